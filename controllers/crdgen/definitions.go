package crdgen

import (
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// DefinitionOptions configures Definitions.
type DefinitionOptions struct {
	// PkgPath is the import path of the package whose types Comments
	// describes; the types of other packages get their structure only.
	PkgPath string
	// Comments are the doc comments and markers of PkgPath's types, as
	// ParseComments reads them (or generated code holds them).
	Comments Comments
	// Name returns the definition name of a named type
	// ("io.k8s.api.apps.v1.Deployment"), or "" to inline its schema
	// wherever it is used (as for a named string or integer type).
	Name func(reflect.Type) string
}

// Definitions returns the schemas of types (structs, or pointers to
// them) and of every named type they reach that opts.Name names, by
// definition name: the definitions of an OpenAPI document. A value of a
// named type is a schema whose Ref is the bare definition name (the
// caller prefixes it: "#/definitions/" in OpenAPI v2,
// "#/components/schemas/" in v3), with the field's description beside
// it. Unlike Generate's single schema, the types may be recursive
// (through a named type), and ObjectMeta is a definition like any other.
// The rules of the package documentation apply to each definition, the
// markers included. The second map gives the Go type of each definition.
func Definitions(types []reflect.Type, opts DefinitionOptions) (map[string]api.JSONSchemaProps, map[string]reflect.Type, error) {
	if opts.Name == nil {
		return nil, nil, fmt.Errorf("crdgen: Definitions needs a Name function")
	}
	w := &walker{pkgPath: opts.PkgPath, defs: map[string]api.JSONSchemaProps{}}
	goTypes := map[string]reflect.Type{}
	w.name = func(t reflect.Type) string {
		n := opts.Name(t)
		if n != "" {
			goTypes[n] = t
		}
		return n
	}
	if opts.Comments != nil {
		src, err := compileComments(opts.Comments)
		if err != nil {
			return nil, nil, err
		}
		w.src = src
	}
	for _, t := range types {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if w.name(t) == "" {
			return nil, nil, fmt.Errorf("crdgen: type %s has no definition name", t)
		}
		if _, err := w.schema(t, ""); err != nil {
			return nil, nil, err
		}
	}
	for _, check := range w.checks {
		if err := check(); err != nil {
			return nil, nil, err
		}
	}
	return w.defs, goTypes, nil
}
