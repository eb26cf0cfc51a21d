package apiextensions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Schema is a compiled structural schema (patterns compiled once). Safe for
// concurrent use: after Compile nothing in it changes.
type Schema struct {
	root *node
	// cel reports whether any node has x-kubernetes-validations.
	cel bool
}

// node is one compiled schema node. The structural part (properties,
// items, additional, the extensions, def) drives pruning and defaulting;
// every part drives validation, as kube-openapi's validator reads the
// whole schema.
type node struct {
	types    []string // "integer","string" for x-kubernetes-int-or-string
	nullable bool
	format   string // as kube keeps it (effectiveFormat)

	def    any
	hasDef bool

	maximum, minimum                   *float64
	exclusiveMaximum, exclusiveMinimum bool
	multipleOf                         *float64
	maxLength, minLength               *int64
	maxItems, minItems                 *int64
	maxProperties, minProperties       *int64
	pattern                            *regexp.Regexp
	patternSrc                         string
	uniqueItems                        bool
	enum                               []any
	required                           []string

	items        *node
	properties   map[string]*node
	additional   *node // additionalProperties' schema
	noAdditional bool  // additionalProperties: false

	allOf, anyOf, oneOf []*node
	not                 *node

	preserveUnknown bool
	embedded        bool
	intOrString     bool
	listType        string
	listMapKeys     []string
}

// Compile compiles s; an error when s is not structural or a pattern does
// not compile.
func Compile(s *api.JSONSchemaProps) (*Schema, error) {
	if errs := CheckStructural(s, "openAPIV3Schema"); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, e := range errs {
			msgs[i] = e.Error()
		}
		return nil, errors.New("apiextensions: schema is not structural: " + strings.Join(msgs, "; "))
	}
	sch := &Schema{}
	root, err := compileNode(s, &sch.cel)
	if err != nil {
		return nil, err
	}
	sch.root = root
	return sch, nil
}

// HasValidationRules reports whether any node has x-kubernetes-validations
// (CEL), which the server does not evaluate and warns about.
func (s *Schema) HasValidationRules() bool { return s.cel }

// compileNode compiles p and everything below it; cel is set when a node
// has x-kubernetes-validations.
func compileNode(p *api.JSONSchemaProps, cel *bool) (*node, error) {
	if p == nil {
		return nil, nil
	}
	if len(p.XValidations) > 0 {
		*cel = true
	}
	n := &node{
		nullable:         p.Nullable,
		maximum:          p.Maximum,
		minimum:          p.Minimum,
		exclusiveMaximum: p.ExclusiveMaximum,
		exclusiveMinimum: p.ExclusiveMinimum,
		multipleOf:       p.MultipleOf,
		maxLength:        p.MaxLength,
		minLength:        p.MinLength,
		maxItems:         p.MaxItems,
		minItems:         p.MinItems,
		maxProperties:    p.MaxProperties,
		minProperties:    p.MinProperties,
		uniqueItems:      p.UniqueItems,
		required:         p.Required,
		preserveUnknown:  p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields,
		embedded:         p.XEmbeddedResource,
		intOrString:      p.XIntOrString,
		listMapKeys:      p.XListMapKeys,
		patternSrc:       p.Pattern,
	}
	single := ""
	switch {
	case p.XIntOrString:
		n.types = []string{"integer", "string"}
	case p.Type != "":
		n.types = []string{p.Type}
		single = p.Type
	}
	n.format = effectiveFormat(single, p.Format)
	if p.XListType != nil {
		n.listType = *p.XListType
	}
	if p.Pattern != "" {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: pattern %q: %w", p.Pattern, err)
		}
		n.pattern = re
	}
	if p.Default != nil && len(p.Default.Raw) > 0 {
		v, err := decodeJSON(p.Default.Raw)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: default: %w", err)
		}
		n.def, n.hasDef = v, true
	}
	for _, e := range p.Enum {
		if len(e.Raw) == 0 { // null
			n.enum = append(n.enum, nil)
			continue
		}
		v, err := decodeJSON(e.Raw)
		if err != nil {
			return nil, fmt.Errorf("apiextensions: enum: %w", err)
		}
		n.enum = append(n.enum, v)
	}
	var err error
	if p.Items != nil {
		if n.items, err = compileNode(p.Items.Schema, cel); err != nil {
			return nil, err
		}
	}
	if len(p.Properties) > 0 {
		n.properties = make(map[string]*node, len(p.Properties))
		for k := range p.Properties {
			v := p.Properties[k]
			if n.properties[k], err = compileNode(&v, cel); err != nil {
				return nil, err
			}
		}
	}
	if ap := p.AdditionalProperties; ap != nil {
		if ap.Schema != nil {
			if n.additional, err = compileNode(ap.Schema, cel); err != nil {
				return nil, err
			}
		} else if !ap.Allows {
			n.noAdditional = true
		}
	}
	for _, list := range []struct {
		in  []api.JSONSchemaProps
		out *[]*node
	}{{p.AllOf, &n.allOf}, {p.AnyOf, &n.anyOf}, {p.OneOf, &n.oneOf}} {
		for i := range list.in {
			c, err := compileNode(&list.in[i], cel)
			if err != nil {
				return nil, err
			}
			*list.out = append(*list.out, c)
		}
	}
	if n.not, err = compileNode(p.Not, cel); err != nil {
		return nil, err
	}
	return n, nil
}

// decodeJSON decodes one JSON value as kube's unstructured decoding does:
// integers that fit int64 as int64, other numbers as float64.
func decodeJSON(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return convertNumbers(v), nil
}

func convertNumbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return i
		}
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case map[string]any:
		for k, e := range v {
			v[k] = convertNumbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = convertNumbers(e)
		}
	}
	return v
}

// deepCopyJSON copies a JSON value (nil, bool, string, int64, float64,
// []any, map[string]any).
func deepCopyJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = deepCopyJSON(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = deepCopyJSON(e)
		}
		return c
	}
	return v
}
