package crdgen

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var (
	timeType        = reflect.TypeFor[api.Time]()
	microTimeType   = reflect.TypeFor[api.MicroTime]()
	stdTimeType     = reflect.TypeFor[time.Time]()
	quantityType    = reflect.TypeFor[api.Quantity]()
	intOrStringType = reflect.TypeFor[api.IntOrString]()
	objectMetaType  = reflect.TypeFor[api.ObjectMeta]()
	typeMetaType    = reflect.TypeFor[api.TypeMeta]()
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
)

// walker builds the schema of a Go type by reflection, with the doc
// comments and markers of the types of one package (pkgPath) from its
// source.
type walker struct {
	pkgPath string
	src     map[string]*typeSource // by type name; nil without source
	stack   []reflect.Type         // the struct types being walked, for cycles
	// name, when set, names the definition of a named type: its values
	// are then a $ref to it (see Definitions); "" inlines the type.
	name func(reflect.Type) string
	defs map[string]api.JSONSchemaProps // the definitions made, by name
	// checks are the list checks left until every definition is made
	// (a list's items may be a definition still being made).
	checks []func() error
}

// source returns the parsed source of t, a type of the walker's package,
// or nil.
func (w *walker) source(t reflect.Type) *typeSource {
	if w.src == nil || t.PkgPath() != w.pkgPath || t.Name() == "" {
		return nil
	}
	return w.src[t.Name()]
}

// intOrString is the schema kube's generated CRDs give a value that is an
// integer or a string (IntOrString, Quantity).
func intOrString() api.JSONSchemaProps {
	return api.JSONSchemaProps{
		AnyOf:        []api.JSONSchemaProps{{Type: "integer"}, {Type: "string"}},
		XIntOrString: true,
	}
}

// schema returns the schema of values of type t at path (for errors).
func (w *walker) schema(t reflect.Type, path string) (api.JSONSchemaProps, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if w.name != nil && t.Name() != "" {
		if name := w.name(t); name != "" {
			if _, ok := w.defs[name]; !ok {
				w.defs[name] = api.JSONSchemaProps{} // a placeholder, for recursive types
				s, err := w.inline(t, path)
				if err != nil {
					return s, err
				}
				w.defs[name] = s
			}
			return api.JSONSchemaProps{Ref: &name}, nil
		}
	}
	return w.inline(t, path)
}

// inline returns the schema of values of type t (not a pointer) at path,
// never a $ref to t's own definition.
func (w *walker) inline(t reflect.Type, path string) (api.JSONSchemaProps, error) {
	s, err := w.shape(t, path)
	if err != nil {
		return s, err
	}
	if src := w.source(t); src != nil {
		s.Description = src.doc
		if err := applyMarkers(&s, src.markers); err != nil {
			return s, fmt.Errorf("crdgen: type %s (at %s): %w", t.Name(), path, err)
		}
	}
	return s, nil
}

// shape is the schema of t by its Go type alone.
func (w *walker) shape(t reflect.Type, path string) (api.JSONSchemaProps, error) {
	switch t {
	case timeType, microTimeType, stdTimeType:
		return api.JSONSchemaProps{Type: "string", Format: "date-time"}, nil
	case quantityType, intOrStringType:
		return intOrString(), nil
	case rawMessageType:
		return api.JSONSchemaProps{XPreserveUnknownFields: ptr(true)}, nil
	}
	if t == objectMetaType && w.name == nil {
		return api.JSONSchemaProps{Type: "object"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return api.JSONSchemaProps{Type: "boolean"}, nil
	case reflect.Int32:
		return api.JSONSchemaProps{Type: "integer", Format: "int32"}, nil
	case reflect.Int64:
		return api.JSONSchemaProps{Type: "integer", Format: "int64"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return api.JSONSchemaProps{Type: "integer"}, nil
	case reflect.Float32:
		return api.JSONSchemaProps{Type: "number", Format: "float"}, nil
	case reflect.Float64:
		return api.JSONSchemaProps{Type: "number", Format: "double"}, nil
	case reflect.String:
		return api.JSONSchemaProps{Type: "string"}, nil
	case reflect.Interface:
		return api.JSONSchemaProps{XPreserveUnknownFields: ptr(true)}, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return api.JSONSchemaProps{Type: "string", Format: "byte"}, nil
		}
		items, err := w.schema(t.Elem(), path+"[]")
		if err != nil {
			return items, err
		}
		return api.JSONSchemaProps{Type: "array", Items: &api.JSONSchemaPropsOrArray{Schema: &items}}, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return api.JSONSchemaProps{}, fmt.Errorf("crdgen: %s: map key type %s is not a string", path, t.Key())
		}
		if t.Elem().Kind() == reflect.Interface {
			return api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}, nil
		}
		vals, err := w.schema(t.Elem(), path+".*")
		if err != nil {
			return vals, err
		}
		return api.JSONSchemaProps{Type: "object", AdditionalProperties: &api.JSONSchemaPropsOrBool{Allows: true, Schema: &vals}}, nil
	case reflect.Struct:
		return w.object(t, path, false)
	}
	return api.JSONSchemaProps{}, fmt.Errorf("crdgen: %s: cannot represent Go type %s in a schema", path, t)
}

// object is the schema of struct type t. root is true for the kind's own
// type, whose apiVersion, kind and metadata are never required.
func (w *walker) object(t reflect.Type, path string, root bool) (api.JSONSchemaProps, error) {
	for _, s := range w.stack {
		if s == t {
			return api.JSONSchemaProps{}, fmt.Errorf("crdgen: %s: type %s contains itself; a CRD schema cannot be recursive", path, t)
		}
	}
	w.stack = append(w.stack, t)
	defer func() { w.stack = w.stack[:len(w.stack)-1] }()
	s := api.JSONSchemaProps{Type: "object"}
	if err := w.fields(t, path, root, &s, 0, map[string]int{}); err != nil {
		return s, err
	}
	return s, nil
}

// fields adds the properties of t's fields to s, inlining embedded
// structs as encoding/json does: t is embedded depth levels deep, and
// depths records the depth of each property added so far. As in
// encoding/json, the shallower of two fields with one JSON name wins;
// two at the same depth are an error (encoding/json would drop both).
func (w *walker) fields(t reflect.Type, path string, root bool, s *api.JSONSchemaProps, depth int, depths map[string]int) error {
	src := w.source(t)
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			if err := w.fields(ft, path, root, s, depth+1, depths); err != nil {
				return err
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fpath := name
		if path != "" {
			fpath = path + "." + name
		}
		fs, err := w.schema(f.Type, fpath)
		if err != nil {
			return err
		}
		required := f.Type.Kind() != reflect.Pointer && !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero")
		if src != nil {
			fc := src.fields[f.Name]
			if fc.doc != "" {
				fs.Description = fc.doc
			}
			if err := applyMarkers(&fs, fc.markers); err != nil {
				return fmt.Errorf("crdgen: field %s.%s (%s): %w", t.Name(), f.Name, fpath, err)
			}
			check := func(fs api.JSONSchemaProps) error {
				if err := checkList(&fs, w.defs); err != nil {
					return fmt.Errorf("crdgen: field %s.%s (%s): %w", t.Name(), f.Name, fpath, err)
				}
				return nil
			}
			if w.name != nil {
				w.checks = append(w.checks, func() error { return check(fs) })
			} else if err := check(fs); err != nil {
				return err
			}
			switch {
			case fc.has("optional") || fc.has("kubebuilder:validation:Optional"):
				required = false
			case fc.has("required") || fc.has("kubebuilder:validation:Required"):
				required = true
			}
		}
		if root && (t == typeMetaType || ft == objectMetaType) {
			required = false
			fs = rootMeta(name)
		}
		if d, ok := depths[name]; ok {
			if d == depth {
				return fmt.Errorf("crdgen: %s: two fields of %s have the JSON name %q", fpath, t, name)
			}
			if d < depth {
				continue // shadowed by a shallower field
			}
			s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
		}
		depths[name] = depth
		if s.Properties == nil {
			s.Properties = map[string]api.JSONSchemaProps{}
		}
		s.Properties[name] = fs
		if required {
			s.Required = append(s.Required, name)
		}
	}
	return nil
}

// rootMeta is the schema of an object's apiVersion, kind and metadata,
// as kube's generated CRDs give them (metadata is type object only: the
// API server validates it itself).
func rootMeta(name string) api.JSONSchemaProps {
	switch name {
	case "apiVersion":
		return api.JSONSchemaProps{Type: "string", Description: "APIVersion is the versioned schema of this object: group/version."}
	case "kind":
		return api.JSONSchemaProps{Type: "string", Description: "Kind is the kind of this object, in CamelCase."}
	}
	return api.JSONSchemaProps{Type: "object"}
}

func hasOpt(opts, o string) bool {
	for _, x := range strings.Split(opts, ",") {
		if x == o {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

// applyMarkers applies the schema markers of a type or field to s. Markers
// of other tools (+k8s:…, +genclient) are ignored; a +kubebuilder marker
// this package does not know is an error, so that a misspelt one is not
// silently dropped.
func applyMarkers(s *api.JSONSchemaProps, ms []marker) error {
	for _, m := range ms {
		if err := applyMarker(s, m); err != nil {
			return err
		}
	}
	return nil
}

func applyMarker(s *api.JSONSchemaProps, m marker) error {
	const v = "kubebuilder:validation:"
	num := func() (float64, error) {
		f, err := strconv.ParseFloat(m.value, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("+%s=%s: not a number", m.name, m.value)
		}
		return f, nil
	}
	count := func() (*int64, error) {
		n, err := strconv.ParseInt(m.value, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("+%s=%s: not a count", m.name, m.value)
		}
		return &n, nil
	}
	flag := func() (bool, error) {
		if m.value == "" {
			return true, nil
		}
		return strconv.ParseBool(m.value)
	}
	var err error
	switch m.name {
	case v + "Minimum":
		var f float64
		f, err = num()
		s.Minimum = &f
	case v + "Maximum":
		var f float64
		f, err = num()
		s.Maximum = &f
	case v + "ExclusiveMinimum":
		s.ExclusiveMinimum, err = flag()
	case v + "ExclusiveMaximum":
		s.ExclusiveMaximum, err = flag()
	case v + "MultipleOf":
		var f float64
		f, err = num()
		s.MultipleOf = &f
	case v + "MinLength":
		s.MinLength, err = count()
	case v + "MaxLength":
		s.MaxLength, err = count()
	case v + "MinItems":
		s.MinItems, err = count()
	case v + "MaxItems":
		s.MaxItems, err = count()
	case v + "MinProperties":
		s.MinProperties, err = count()
	case v + "MaxProperties":
		s.MaxProperties, err = count()
	case v + "UniqueItems":
		s.UniqueItems, err = flag()
	case v + "Pattern":
		s.Pattern, err = unquote(m.value)
	case v + "Format":
		s.Format, err = unquote(m.value)
	case v + "Type":
		s.Type, err = unquote(m.value)
	case v + "Enum":
		s.Enum = nil
		for _, e := range splitOutside(m.value, ';') {
			s.Enum = append(s.Enum, api.JSON{Raw: jsonValue(e)})
		}
	case "kubebuilder:default", "default":
		s.Default = &api.JSON{Raw: jsonValue(m.value)}
	case "kubebuilder:example":
		s.Example = &api.JSON{Raw: jsonValue(m.value)}
	case v + "Nullable", "nullable":
		s.Nullable = true
	case v + "EmbeddedResource":
		s.XEmbeddedResource = true
	case v + "XIntOrString":
		*s = intOrString()
	case "kubebuilder:pruning:PreserveUnknownFields":
		s.XPreserveUnknownFields = ptr(true)
	case v + "XValidation":
		rule := api.ValidationRule{Rule: m.args["rule"], Message: m.args["message"],
			MessageExpression: m.args["messageExpression"], FieldPath: m.args["fieldPath"]}
		if r := m.args["reason"]; r != "" {
			rule.Reason = &r
		}
		if o := m.args["optionalOldSelf"]; o != "" {
			b, perr := strconv.ParseBool(o)
			rule.OptionalOldSelf, err = &b, perr
		}
		if rule.Rule == "" {
			return fmt.Errorf("+%s: no rule", m.name)
		}
		s.XValidations = append(s.XValidations, rule)
	case "listType", "kubebuilder:validation:listType":
		s.XListType = ptr(m.value)
	case "listMapKey", "kubebuilder:validation:listMapKey":
		s.XListMapKeys = append(s.XListMapKeys, m.value)
	case "mapType", "structType":
		s.XMapType = ptr(m.value)
	case "optional", "required", v + "Optional", v + "Required":
		// Read by the caller: they make a field optional or required.
	default:
		if strings.HasPrefix(m.name, v) || strings.HasPrefix(m.name, "kubebuilder:pruning") {
			return fmt.Errorf("unknown marker +%s", m.name)
		}
	}
	if err != nil {
		return fmt.Errorf("+%s=%s: %w", m.name, m.value, err)
	}
	return nil
}

// checkList checks the list markers of s as kube-apiserver validates
// x-kubernetes-list-type and x-kubernetes-list-map-keys, so that a
// definition it would reject is an error here.
func checkList(s *api.JSONSchemaProps, defs map[string]api.JSONSchemaProps) error {
	if s.XListType == nil {
		if len(s.XListMapKeys) > 0 {
			return errors.New("+listMapKey needs +listType=map")
		}
		return nil
	}
	if s.Type != "array" {
		return fmt.Errorf("+listType on a field of type %q, not an array", s.Type)
	}
	items := s.Items.Schema
	if items.Ref != nil && defs != nil {
		d := defs[*items.Ref]
		items = &d
	}
	switch *s.XListType {
	case "atomic":
	case "set":
		if items.Type == "object" || items.Type == "array" {
			return fmt.Errorf("+listType=set needs scalar items, not %s", items.Type)
		}
	case "map":
		if items.Type != "object" {
			return fmt.Errorf("+listType=map needs object items, not %q", items.Type)
		}
		if len(s.XListMapKeys) == 0 {
			return errors.New("+listType=map needs at least one +listMapKey")
		}
		for _, k := range s.XListMapKeys {
			p, ok := items.Properties[k]
			if !ok {
				return fmt.Errorf("+listMapKey=%s is not a field of the items", k)
			}
			if p.Type == "object" || p.Type == "array" {
				return fmt.Errorf("+listMapKey=%s is not a scalar", k)
			}
			if !slices.Contains(items.Required, k) && p.Default == nil {
				return fmt.Errorf("+listMapKey=%s must be required or have a default", k)
			}
		}
	default:
		return fmt.Errorf("+listType=%s is not atomic, set or map", *s.XListType)
	}
	return nil
}
