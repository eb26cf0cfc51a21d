package patch

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// fieldStrategy is a field's patchStrategy tag upstream ("merge",
// "retainKeys", "merge,retainKeys", "replace") and its patchMergeKey (the
// JSON name of the key of a list of objects; empty for a list of scalars).
type fieldStrategy struct {
	strategy string
	mergeKey string
}

// merges reports whether a list field merges rather than being replaced.
// "retainKeys" only tells clients to send $retainKeys; it changes nothing
// on the server (apimachinery's extractRetainKeysPatchStrategy drops it).
func (s fieldStrategy) merges() bool {
	for part := range strings.SplitSeq(s.strategy, ",") {
		if part == "merge" {
			return true
		}
	}
	return false
}

// replaces reports whether a map field is replaced whole rather than merged.
func (s fieldStrategy) replaces() bool {
	for part := range strings.SplitSeq(s.strategy, ",") {
		if part == "replace" {
			return true
		}
	}
	return false
}

// schema is the Go type of controllers/api at one place in a document; nil
// where the document is opaque (a json.RawMessage, a scalar with its own
// JSON form) and so merged without strategies: maps merge, lists are
// replaced.
type schema = reflect.Type

var (
	apiPkg     = reflect.TypeFor[api.Pod]().PkgPath()
	ownPkg     = reflect.TypeFor[fieldStrategy]().PkgPath() // for the tests' own schemas
	marshaler  = reflect.TypeFor[json.Marshaler]()
	fieldCache sync.Map // reflect.Type → map[string]structField
)

// structField is one JSON field of a struct type: its Go type and its
// strategy, from the strategies table under the name of the struct that
// declares it (for inline embedded structs, the embedded one) or, for the
// tests' types, from its own patchStrategy and patchMergeKey tags.
type structField struct {
	typ      reflect.Type
	strategy fieldStrategy
}

// schemaFor returns the root schema of a kind, or false for an unknown kind.
func schemaFor(kind string) (schema, bool) {
	obj, ok := api.New(kind)
	if !ok {
		return nil, false
	}
	return reflect.TypeOf(obj).Elem(), true
}

// lookup returns the schema of the member key of an object described by s,
// and the member's strategy. A struct without that JSON field is an error,
// as in apimachinery (LookupPatchMetadataForStruct).
func lookup(s schema, key string) (schema, fieldStrategy, error) {
	s = deref(s)
	if s == nil {
		return nil, fieldStrategy{}, nil
	}
	switch s.Kind() {
	case reflect.Map:
		return deref(s.Elem()), fieldStrategy{}, nil
	case reflect.Struct:
	default:
		return nil, fieldStrategy{}, nil
	}
	fields := fieldsOf(s)
	f, ok := fields[key]
	if !ok {
		for name, ff := range fields { // encoding/json also matches case-insensitively
			if strings.EqualFold(name, key) {
				f, ok = ff, true
				break
			}
		}
	}
	if !ok {
		return nil, fieldStrategy{}, fmt.Errorf("patch: unable to find api field in struct %s for the json field %q", s.Name(), key)
	}
	return deref(f.typ), f.strategy, nil
}

// elem returns the schema of the elements of a list described by s. A
// struct stands for a list of itself (apimachinery accepts a pointer to a
// struct as the type of a merging list).
func elem(s schema) schema {
	switch s = deref(s); {
	case s == nil:
		return nil
	case s.Kind() == reflect.Slice:
		return deref(s.Elem())
	case s.Kind() == reflect.Struct:
		return s
	}
	return nil
}

// deref strips pointers, and returns nil for types outside controllers/api
// or with their own JSON encoding (Quantity, Time, IntOrString).
func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.PkgPath() != apiPkg && t.PkgPath() != ownPkg {
			return nil
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 { // []byte is a base64 string
			return nil
		}
	}
	return t
}

// fieldsOf returns the JSON fields of a struct type, inline embedded
// structs flattened into it.
func fieldsOf(t reflect.Type) map[string]structField {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]structField)
	}
	m := map[string]structField{}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		var embedded []reflect.Type
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					embedded = append(embedded, ft)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := m[name]; !dup { // the shallower field wins, as in encoding/json
				st := strategies[t.Name()][name]
				if tag := f.Tag.Get("patchStrategy"); tag != "" {
					st = fieldStrategy{tag, f.Tag.Get("patchMergeKey")}
				}
				m[name] = structField{f.Type, st}
			}
		}
		for _, e := range embedded {
			add(e)
		}
	}
	add(t)
	fieldCache.Store(t, m)
	return m
}
