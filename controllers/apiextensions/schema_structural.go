package apiextensions

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// CheckStructural returns the errors that make s, a CRD version's
// openAPIV3Schema, not structural, at paths under fldPath (e.g.
// "spec.versions[0].schema.openAPIV3Schema"), with kube's types and
// messages. It checks, as kube-apiserver does when a CustomResourceDefinition
// is created:
//
//   - what CRD schemas may not use: $ref, id, additionalItems,
//     patternProperties, definitions, dependencies, uniqueItems, items as an
//     array, type null, an unknown type, nullable at the root,
//     x-kubernetes-preserve-unknown-fields: false, properties beside
//     additionalProperties, defaults in the root's metadata, apiVersion and
//     kind, embedded resources inside resource metadata, and the
//     x-kubernetes-list-type, -list-map-keys and -map-type rules;
//   - the structural rules: every object field and array item has a type
//     (unless x-kubernetes-int-or-string or preserve-unknown-fields), arrays
//     have items, no additionalProperties at the root, nothing but value
//     validations under allOf/anyOf/oneOf/not (the int-or-string anyOf
//     excepted) and only for fields the schema specifies outside them,
//     metadata restricted to name and generateName at the root and absent in
//     nested contexts, embedded resources are objects, patterns compile;
//   - once structural, that every default validates against its node and
//     has no field that pruning would drop.
//
// CEL rules (x-kubernetes-validations) are checked only for their shape.
func CheckStructural(s *api.JSONSchemaProps, fldPath string) []api.FieldError {
	if s == nil {
		return []api.FieldError{{Type: api.FieldRequired, Field: fldPath, Detail: "schemas are required"}}
	}
	var c checker
	if s.Nullable {
		c.forbidden(fldPath+".nullable", "nullable cannot be true at the root")
	}
	c.crdSchema(s, fldPath, crdContext{allowDefaults: true}, true)
	if msg := unsupportedField(s); msg != "" {
		// kube cannot build the structural schema: it says so only when
		// nothing else is wrong.
		if len(c.errs) == 0 {
			c.invalid(fldPath, "", msg)
		}
		return c.errs
	}
	var st checker
	st.invariants(s, levelRoot, fldPath)
	st.completeness(s, fldPath)
	sortByError(st.errs)
	if len(st.errs) == 0 {
		st.defaults(s, fldPath, false, true)
	}
	return append(st.errs, c.errs...)
}

// unsupportedField returns why kube cannot build a structural schema from
// s (a field structural schemas do not have), or "".
func unsupportedField(s *api.JSONSchemaProps) string {
	if s == nil {
		return ""
	}
	switch {
	case s.ID != "":
		return "OpenAPIV3Schema 'id' is not supported"
	case s.Schema != "":
		return "OpenAPIV3Schema 'schema' is not supported"
	case s.Ref != nil && *s.Ref != "":
		return "OpenAPIV3Schema '$ref' is not supported"
	case len(s.PatternProperties) > 0:
		return "OpenAPIV3Schema 'patternProperties' is not supported"
	case len(s.Dependencies) > 0:
		return "OpenAPIV3Schema 'dependencies' is not supported"
	case s.AdditionalItems != nil:
		return "OpenAPIV3Schema 'additionalItems' is not supported"
	case len(s.Definitions) > 0:
		return "OpenAPIV3Schema 'definitions' is not supported"
	case s.Items != nil && len(s.Items.JSONSchemas) > 0:
		return "OpenAPIV3Schema 'items' must be a schema, but is an array"
	}
	var children []*api.JSONSchemaProps
	if s.Items != nil {
		children = append(children, s.Items.Schema)
	}
	if s.AdditionalProperties != nil {
		children = append(children, s.AdditionalProperties.Schema)
	}
	for _, k := range sortedPropNames(s.Properties) {
		v := s.Properties[k]
		children = append(children, &v)
	}
	for _, list := range [][]api.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			children = append(children, &list[i])
		}
	}
	children = append(children, s.Not)
	for _, c := range children {
		if msg := unsupportedField(c); msg != "" {
			return msg
		}
	}
	return ""
}

func sortByError(errs []api.FieldError) {
	slices.SortStableFunc(errs, func(a, b api.FieldError) int { return strings.Compare(a.Error(), b.Error()) })
}

type checker struct{ errs []api.FieldError }

func (c *checker) add(t api.FieldErrorType, field, value, detail string) {
	c.errs = append(c.errs, api.FieldError{Type: t, Field: field, Value: value, Detail: detail})
}
func (c *checker) forbidden(field, detail string) { c.add(api.FieldForbidden, field, "", detail) }
func (c *checker) required(field, detail string)  { c.add(api.FieldRequired, field, "", detail) }
func (c *checker) invalid(field, value, detail string) {
	c.add(api.FieldInvalid, field, value, detail)
}
func (c *checker) unsupported(field, value string, allowed ...string) {
	q := make([]string, len(allowed))
	for i, a := range allowed {
		q[i] = strconv.Quote(a)
	}
	c.add(api.FieldUnsupported, field, value, "supported values: "+strings.Join(q, ", "))
}

func propPath(p, k string) string { return p + ".properties[" + k + "]" }

// crdContext is where a node sits, for the rules that depend on it.
type crdContext struct {
	allowDefaults  bool
	noDefaultsWhy  string
	insideMetadata bool
}

var openAPITypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// crdSchema applies the CRD-only rules of kube's
// ValidateCustomResourceDefinitionOpenAPISchema to s and its children.
func (c *checker) crdSchema(s *api.JSONSchemaProps, p string, ctx crdContext, isRoot bool) {
	if s == nil {
		return
	}
	if s.Type != "" && !slices.Contains(openAPITypes, s.Type) {
		c.unsupported(p+".type", s.Type, openAPITypes...)
	}
	if s.Default != nil && !ctx.allowDefaults {
		d := "must not be set"
		if ctx.noDefaultsWhy != "" {
			d += " " + ctx.noDefaultsWhy
		}
		c.forbidden(p+".default", d)
	}
	if s.ID != "" {
		c.forbidden(p+".id", "id is not supported")
	}
	if s.AdditionalItems != nil {
		c.forbidden(p+".additionalItems", "additionalItems is not supported")
	}
	if len(s.PatternProperties) > 0 {
		c.forbidden(p+".patternProperties", "patternProperties is not supported")
	}
	if len(s.Definitions) > 0 {
		c.forbidden(p+".definitions", "definitions is not supported")
	}
	if s.Dependencies != nil {
		c.forbidden(p+".dependencies", "dependencies is not supported")
	}
	if s.Ref != nil {
		c.forbidden(p+".$ref", "$ref is not supported")
	}
	if s.Type == "null" {
		c.forbidden(p+".type", "type cannot be set to null, use nullable as an alternative")
	}
	if s.Items != nil && len(s.Items.JSONSchemas) > 0 {
		c.forbidden(p+".items", "items must be a schema object and not an array")
	}
	if ctx.insideMetadata && s.XEmbeddedResource {
		c.forbidden(p+".x-kubernetes-embedded-resource", "must not be used inside of resource meta")
	}
	if s.UniqueItems {
		c.forbidden(p+".uniqueItems", "uniqueItems cannot be set to true since the runtime complexity becomes quadratic")
	}
	if ap := s.AdditionalProperties; ap != nil {
		if len(s.Properties) > 0 && (!ap.Allows || ap.Schema != nil) {
			c.forbidden(p+".additionalProperties", "additionalProperties and properties are mutual exclusive")
		}
		sub := ctx
		if ctx.insideMetadata {
			sub.allowDefaults, sub.noDefaultsWhy = false, "inside additionalProperties applying to object metadata"
		}
		c.crdSchema(ap.Schema, p+".additionalProperties", sub, false)
	}
	for _, k := range sortedPropNames(s.Properties) {
		v := s.Properties[k]
		sub := ctx
		if (isRoot || s.XEmbeddedResource) && metaField(k) {
			sub.insideMetadata = true
			if isRoot {
				sub.allowDefaults, sub.noDefaultsWhy = false, "in top-level "+k
			}
		}
		c.crdSchema(&v, propPath(p, k), sub, false)
	}
	c.crdSchema(s.Not, p+".not", ctx, false)
	for _, list := range []struct {
		name string
		in   []api.JSONSchemaProps
	}{{"allOf", s.AllOf}, {"oneOf", s.OneOf}, {"anyOf", s.AnyOf}} {
		for i := range list.in {
			c.crdSchema(&list.in[i], fmt.Sprintf("%s.%s[%d]", p, list.name, i), ctx, false)
		}
	}
	for _, k := range sortedPropNames(s.Definitions) {
		v := s.Definitions[k]
		c.crdSchema(&v, p+".definitions["+k+"]", ctx, false)
	}
	if s.Items != nil {
		c.crdSchema(s.Items.Schema, p+".items", ctx, false)
		for i := range s.Items.JSONSchemas {
			c.crdSchema(&s.Items.JSONSchemas[i], fmt.Sprintf("%s.items[%d]", p, i), ctx, false)
		}
	}
	if x := s.XPreserveUnknownFields; x != nil && !*x {
		c.invalid(p+".x-kubernetes-preserve-unknown-fields", "false", "must be true or undefined")
	}
	c.extensionRules(s, p)
}

// extensionRules are the x-kubernetes-map-type, -list-type,
// -list-map-keys and -validations rules of one node.
func (c *checker) extensionRules(s *api.JSONSchemaProps, p string) {
	if s.XMapType != nil {
		if s.Type != "object" {
			if s.Type == "" {
				c.required(p+".type", "must be object if x-kubernetes-map-type is specified")
			} else {
				c.invalid(p+".type", s.Type, "must be object if x-kubernetes-map-type is specified")
			}
		}
		if m := *s.XMapType; m != "atomic" && m != "granular" {
			c.unsupported(p+".x-kubernetes-map-type", m, "atomic", "granular")
		}
	}
	lt := ""
	if s.XListType != nil {
		lt = *s.XListType
		if s.Type != "array" {
			if s.Type == "" {
				c.required(p+".type", "must be array if x-kubernetes-list-type is specified")
			} else {
				c.invalid(p+".type", s.Type, "must be array if x-kubernetes-list-type is specified")
			}
		} else if lt == "set" && s.Items != nil && s.Items.Schema != nil {
			is := s.Items.Schema
			switch is.Type {
			case "array":
				if is.XListType != nil && *is.XListType != "atomic" {
					c.invalid(p+".items.x-kubernetes-list-type", *is.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set")
				}
			case "object":
				if is.XMapType == nil || *is.XMapType != "atomic" {
					c.invalid(p+".items.x-kubernetes-map-type", "", "must be atomic as item of a list with x-kubernetes-list-type=set")
				}
			}
		}
		if lt != "atomic" && lt != "set" && lt != "map" {
			c.unsupported(p+".x-kubernetes-list-type", lt, "atomic", "set", "map")
		}
	}
	if len(s.XListMapKeys) > 0 {
		if s.XListType == nil {
			c.required(p+".x-kubernetes-list-type", "must be map if x-kubernetes-list-map-keys is non-empty")
		} else if lt != "map" {
			c.invalid(p+".x-kubernetes-list-type", lt, "must be map if x-kubernetes-list-map-keys is non-empty")
		}
	}
	if lt == "map" {
		if len(s.XListMapKeys) == 0 {
			c.required(p+".x-kubernetes-list-map-keys", "must not be empty if x-kubernetes-list-type is map")
		}
		if s.Items == nil {
			c.required(p+".items", "must have a schema if x-kubernetes-list-type is map")
		}
		if s.Items != nil && s.Items.Schema == nil {
			c.invalid(p+".items", "", "must only have a single schema if x-kubernetes-list-type is map")
		}
		if s.Items != nil && s.Items.Schema != nil {
			is := s.Items.Schema
			if is.Type != "object" {
				c.invalid(p+".items.type", is.Type, "must be object if parent array's x-kubernetes-list-type is map")
			} else {
				keys := formatValue(s.XListMapKeys)
				seen := map[string]bool{}
				for _, k := range s.XListMapKeys {
					if ks, ok := is.Properties[k]; ok {
						if ks.Type == "array" || ks.Type == "object" {
							c.invalid(propPath(p+".items", k)+".type", is.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map")
						}
					} else {
						c.invalid(p+".x-kubernetes-list-map-keys", keys, "entries must all be names of item properties")
					}
					if seen[k] {
						c.invalid(p+".x-kubernetes-list-map-keys", keys, "must not contain duplicate entries")
					}
					seen[k] = true
				}
			}
		}
	}
	if s.Items != nil && s.Items.Schema != nil && (lt == "set" || lt == "map") {
		is := s.Items.Schema
		if is.Nullable {
			c.forbidden(p+".items.nullable", "cannot be nullable when x-kubernetes-list-type is "+lt)
		}
		if lt == "map" {
			for _, k := range s.XListMapKeys {
				ks, ok := is.Properties[k]
				if !ok {
					continue
				}
				if !slices.Contains(is.Required, k) && ks.Default == nil {
					c.required(propPath(p+".items", k)+".default", "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property")
				}
				if ks.Nullable {
					c.forbidden(propPath(p+".items", k)+".nullable", "this property is in x-kubernetes-list-map-keys, so it cannot be nullable")
				}
			}
		}
	}
	for i, r := range s.XValidations {
		rp := fmt.Sprintf("%s.x-kubernetes-validations[%d]", p, i)
		switch msg := strings.TrimSpace(r.Message); {
		case strings.TrimSpace(r.Rule) == "":
			c.required(rp+".rule", "rule is not specified")
		case r.Message != "" && msg == "":
			c.invalid(rp+".message", r.Message, "must be non-empty if specified")
		case strings.ContainsAny(msg, "\n\r"):
			c.invalid(rp+".message", r.Message, "must not contain line breaks")
		case msg == "" && strings.ContainsAny(r.Rule, "\n\r") && r.MessageExpression == "":
			c.required(rp+".message", "message must be specified if rule contains line breaks")
		}
	}
}

func sortedPropNames(m map[string]api.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

type level int

const (
	levelRoot level = iota
	levelItem
	levelField
)

func isIntOrStringAnyOf(v []api.JSONSchemaProps) bool {
	return len(v) == 2 &&
		reflect.DeepEqual(v[0], api.JSONSchemaProps{Type: "integer"}) &&
		reflect.DeepEqual(v[1], api.JSONSchemaProps{Type: "string"})
}

// invariants checks the structural rules of a node of the structural part
// (kube's validateStructuralInvariants).
func (c *checker) invariants(s *api.JSONSchemaProps, lvl level, p string) {
	if s == nil {
		return
	}
	var items *api.JSONSchemaProps
	if s.Items != nil {
		items = s.Items.Schema
	}
	if s.Type == "array" && items == nil {
		c.required(p+".items", "must be specified")
	}
	c.invariants(items, levelItem, p+".items")
	for _, k := range sortedPropNames(s.Properties) {
		v := s.Properties[k]
		c.invariants(&v, levelField, propPath(p, k))
	}
	if s.AdditionalProperties != nil {
		if lvl == levelRoot {
			c.forbidden(p+".additionalProperties", "must not be used at the root")
		}
		c.invariants(s.AdditionalProperties.Schema, levelField, p+".additionalProperties")
	}
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if s.XIntOrString && preserve {
		c.invalid(p+".x-kubernetes-preserve-unknown-fields", "true", "must be false if x-kubernetes-int-or-string is true")
	}
	if s.XIntOrString && s.XEmbeddedResource {
		c.invalid(p+".x-kubernetes-embedded-resource", "true", "must be false if x-kubernetes-int-or-string is true")
	}
	skipAnyOf := isIntOrStringAnyOf(s.AnyOf)
	skipFirstAllOfAnyOf := len(s.AllOf) > 0 && isIntOrStringAnyOf(s.AllOf[0].AnyOf)
	c.valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, p)

	checkMeta := lvl == levelRoot || s.XEmbeddedResource
	switch {
	case s.XEmbeddedResource && s.Type != "object":
		if s.Type == "" {
			c.required(p+".type", "must be object if x-kubernetes-embedded-resource is true")
		} else {
			c.invalid(p+".type", s.Type, "must be object if x-kubernetes-embedded-resource is true")
		}
	case s.Type == "" && !s.XIntOrString && !preserve:
		switch lvl {
		case levelRoot:
			c.required(p+".type", "must not be empty at the root")
		case levelItem:
			c.required(p+".type", "must not be empty for specified array items")
		case levelField:
			c.required(p+".type", "must not be empty for specified object fields")
		}
	}
	if s.XEmbeddedResource && s.AdditionalProperties != nil {
		c.forbidden(p+".additionalProperties", "must not be used if x-kubernetes-embedded-resource is set")
	}
	if lvl == levelRoot && s.Type != "" && s.Type != "object" {
		c.invalid(p+".type", s.Type, "must be object at the root")
	}
	for _, k := range []string{"kind", "apiVersion"} {
		if v, ok := s.Properties[k]; ok && checkMeta && v.Type != "string" {
			c.invalid(propPath(p, k)+".type", v.Type, "must be string")
		}
	}
	if m, ok := s.Properties["metadata"]; ok {
		mp := propPath(p, "metadata")
		if checkMeta && m.Type != "object" {
			c.invalid(mp+".type", m.Type, "must be object")
		}
		if lvl == levelRoot && !onlyNameAndGenerateName(m) {
			c.forbidden(mp, "must not specify anything other than name and generateName, but metadata is implicitly specified")
		}
	}
	if s.XEmbeddedResource && !preserve && len(s.Properties) == 0 {
		c.required(p+".properties", "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields")
	}
}

// onlyNameAndGenerateName: the root's metadata schema may have a type, a
// default (checked elsewhere) and properties name and generateName, nothing
// else.
func onlyNameAndGenerateName(m api.JSONSchemaProps) bool {
	_, name := m.Properties["name"]
	_, gen := m.Properties["generateName"]
	if (name && gen && len(m.Properties) == 2) || ((name || gen) && len(m.Properties) == 1) {
		m.Properties = nil
	}
	m.Type = ""
	m.Default = nil
	return reflect.DeepEqual(m, api.JSONSchemaProps{})
}

// valueValidation checks allOf, anyOf, oneOf and not of s and the pattern
// (kube's validateValueValidation).
func (c *checker) valueValidation(s *api.JSONSchemaProps, skipAnyOf, skipFirstAllOfAnyOf bool, p string) {
	if !skipAnyOf {
		for i := range s.AnyOf {
			c.nested(&s.AnyOf[i], false, fmt.Sprintf("%s.anyOf[%d]", p, i))
		}
	}
	for i := range s.AllOf {
		c.nested(&s.AllOf[i], skipFirstAllOfAnyOf && i == 0, fmt.Sprintf("%s.allOf[%d]", p, i))
	}
	for i := range s.OneOf {
		c.nested(&s.OneOf[i], false, fmt.Sprintf("%s.oneOf[%d]", p, i))
	}
	c.nested(s.Not, false, p+".not")
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			c.invalid(p+".pattern", s.Pattern, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err))
		}
	}
}

// nested checks a schema under allOf/anyOf/oneOf/not: value validations
// only (kube's validateNestedValueValidation).
func (c *checker) nested(v *api.JSONSchemaProps, skipAnyOf bool, p string) {
	if v == nil {
		return
	}
	c.valueValidation(v, skipAnyOf, false, p)
	if v.Items != nil {
		c.nested(v.Items.Schema, false, p+".items")
	}
	for _, k := range sortedPropNames(v.Properties) {
		f := v.Properties[k]
		c.nested(&f, false, propPath(p, k))
	}
	if v.Type != "" {
		c.forbidden(p+".type", "must be empty to be structural")
	}
	if v.AdditionalProperties != nil {
		c.forbidden(p+".additionalProperties", "must be undefined to be structural")
	}
	if v.Default != nil {
		c.forbidden(p+".default", "must be undefined to be structural")
	}
	if v.Title != "" {
		c.forbidden(p+".title", "must be empty to be structural")
	}
	if v.Description != "" {
		c.forbidden(p+".description", "must be empty to be structural")
	}
	if v.Nullable {
		c.forbidden(p+".nullable", "must be false to be structural")
	}
	if v.XPreserveUnknownFields != nil && *v.XPreserveUnknownFields {
		c.forbidden(p+".x-kubernetes-preserve-unknown-fields", "must be false to be structural")
	}
	if v.XEmbeddedResource {
		c.forbidden(p+".x-kubernetes-embedded-resource", "must be false to be structural")
	}
	if v.XIntOrString {
		c.forbidden(p+".x-kubernetes-int-or-string", "must be false to be structural")
	}
	if len(v.XListMapKeys) > 0 {
		c.forbidden(p+".x-kubernetes-list-map-keys", "must be empty to be structural")
	}
	if v.XListType != nil {
		c.forbidden(p+".x-kubernetes-list-type", "must be undefined to be structural")
	}
	if v.XMapType != nil {
		c.forbidden(p+".x-kubernetes-map-type", "must be undefined to be structural")
	}
	if len(v.XValidations) > 0 {
		c.forbidden(p+".x-kubernetes-validations", "must be empty to be structural")
	}
	if _, ok := v.Properties["metadata"]; ok {
		c.forbidden(propPath(p, "metadata"), "must not be specified in a nested context")
	}
}

// completeness: every property and items the root's value validations
// mention is specified in the structural part (kube's
// validateStructuralCompleteness, which starts at the root only: value
// validations of inner nodes are not checked for it).
func (c *checker) completeness(s *api.JSONSchemaProps, p string) {
	c.valueCompleteness(s, s, p, p)
}

func (c *checker) valueCompleteness(v, s *api.JSONSchemaProps, sp, vp string) {
	if s == nil {
		c.required(sp, "because it is defined in "+vp)
		return
	}
	c.nestedCompleteness(v.Not, s, sp, vp+".not")
	for _, list := range []struct {
		name string
		in   []api.JSONSchemaProps
	}{{"allOf", v.AllOf}, {"anyOf", v.AnyOf}, {"oneOf", v.OneOf}} {
		for i := range list.in {
			c.nestedCompleteness(&list.in[i], s, sp, fmt.Sprintf("%s.%s[%d]", vp, list.name, i))
		}
	}
}

func (c *checker) nestedCompleteness(v, s *api.JSONSchemaProps, sp, vp string) {
	if v == nil {
		return
	}
	if s == nil {
		c.required(sp, "because it is defined in "+vp)
		return
	}
	c.valueCompleteness(v, s, sp, vp)
	if v.Items != nil && v.Items.Schema != nil {
		var si *api.JSONSchemaProps
		if s.Items != nil {
			si = s.Items.Schema
		}
		c.nestedCompleteness(v.Items.Schema, si, sp+".items", vp+".items")
	}
	for _, k := range sortedPropNames(v.Properties) {
		vf := v.Properties[k]
		sf, ok := s.Properties[k]
		if !ok {
			c.required(propPath(sp, k), "because it is defined in "+propPath(vp, k))
			continue
		}
		c.nestedCompleteness(&vf, &sf, propPath(sp, k), propPath(vp, k))
	}
}
