package openapi

//go:generate go run gen_comments.go

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
)

// Resource is one served resource, as the documents describe it.
type Resource struct {
	api.GroupVersionKind
	// Resource is the plural resource name ("deployments").
	Resource   string
	Namespaced bool
	// Status and Scale say whether the resource has those subresources.
	Status, Scale bool
	// GoType is the kind's Go type (*api.Deployment); nil for a kind a
	// CustomResourceDefinition serves, described by Schema.
	GoType reflect.Type
	// Schema is the CustomResourceDefinition's schema of the version,
	// when GoType is nil; nil there means an object of any content.
	Schema *api.JSONSchemaProps
}

// path is "api/v1" or "apis/apps/v1", the document's path under
// /openapi/v3.
func (r *Resource) path() string {
	if r.Group == "" {
		return "api/" + r.Version
	}
	return "apis/" + r.Group + "/" + r.Version
}

// Documents are the OpenAPI documents of a set of resources.
type Documents struct {
	// V3 holds the OpenAPI v3 document of each group version, by its
	// path under /openapi/v3 ("api/v1", "apis/apps/v1"), as JSON.
	V3 map[string][]byte
	// V2 is the OpenAPI v2 (Swagger 2.0) document of every resource, as
	// JSON.
	V2 []byte
}

// def is one definition: its schema and the Go type it was made from
// (nil for a CustomResourceDefinition's schema or a synthesized one).
type def struct {
	schema api.JSONSchemaProps
	goType reflect.Type
	gvk    []api.GroupVersionKind
}

// builtinDefs are the definitions of every type the built-in kinds
// reach, made once.
var builtinDefs = sync.OnceValues(func() (map[string]*def, error) {
	var types []reflect.Type
	for _, k := range api.Registered() {
		if api.IsBuiltin(k.GroupVersionKind) {
			types = append(types, k.GoType())
		}
	}
	schemas, goTypes, err := crdgen.Definitions(types, crdgen.DefinitionOptions{
		PkgPath: apiPkg, Comments: apiComments, Name: nameFunc("io.k8s.api.core.v1"),
	})
	if err != nil {
		return nil, err
	}
	out := map[string]*def{}
	for n, s := range schemas {
		out[n] = &def{schema: s, goType: goTypes[n]}
	}
	return out, nil
})

// Build returns the documents of rs, served by a server of version
// (its /version gitVersion, "v1.37.2").
func Build(version string, rs []Resource) (*Documents, error) {
	base, err := builtinDefs()
	if err != nil {
		return nil, err
	}
	defs := map[string]*def{}
	for n, d := range base {
		defs[n] = &def{schema: d.schema, goType: d.goType}
	}
	addSynthesized(defs)
	kindDefs := make([]string, len(rs))
	for i := range rs {
		r := &rs[i]
		pkg := packageOf(r.Group, r.Version)
		var name string
		switch {
		case r.GoType != nil:
			name = nameFunc(pkg)(r.GoType.Elem())
			if _, ok := defs[name]; !ok {
				schemas, goTypes, err := crdgen.Definitions([]reflect.Type{r.GoType}, crdgen.DefinitionOptions{Name: nameFunc(pkg)})
				if err != nil {
					return nil, fmt.Errorf("openapi: %s: %w", r.GroupVersionKind, err)
				}
				for n, s := range schemas {
					if _, ok := defs[n]; !ok {
						defs[n] = &def{schema: s, goType: goTypes[n]}
					}
				}
			}
		default:
			name = pkg + "." + r.Kind
			defs[name] = &def{schema: crdSchema(r.Schema)}
		}
		kindDefs[i] = name
		d := defs[name]
		d.gvk = append(d.gvk, r.GroupVersionKind)
		list := &def{schema: listSchema(r.Kind, name), gvk: []api.GroupVersionKind{{Group: r.Group, Version: r.Version, Kind: r.Kind + "List"}}}
		defs[name+"List"] = list
	}

	docs := &Documents{V3: map[string][]byte{}}
	byPath := map[string][]int{}
	for i := range rs {
		byPath[rs[i].path()] = append(byPath[rs[i].path()], i)
	}
	for p, idx := range byPath {
		paths := map[string]any{}
		var roots []string
		for _, i := range idx {
			addPaths(paths, &rs[i], kindDefs[i], true)
			roots = append(roots, kindDefs[i], kindDefs[i]+"List")
		}
		schemas := map[string]any{}
		for _, n := range closure(defs, append(roots, metaPrefix+"Patch", metaPrefix+"Status")) {
			schemas[n] = render(defs[n], "#/components/schemas/", true)
		}
		b, err := json.Marshal(map[string]any{
			"openapi":    "3.0.0",
			"info":       map[string]string{"title": "Kubernetes", "version": version},
			"paths":      paths,
			"components": map[string]any{"schemas": schemas},
		})
		if err != nil {
			return nil, err
		}
		docs.V3[p] = b
	}
	paths := map[string]any{}
	var roots []string
	for i := range rs {
		addPaths(paths, &rs[i], kindDefs[i], false)
		roots = append(roots, kindDefs[i], kindDefs[i]+"List")
	}
	definitions := map[string]any{}
	for _, n := range closure(defs, append(roots, metaPrefix+"Patch", metaPrefix+"Status")) {
		definitions[n] = render(defs[n], "#/definitions/", false)
	}
	docs.V2, err = json.Marshal(map[string]any{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "Kubernetes", "version": version},
		"paths":       paths,
		"definitions": definitions,
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// addSynthesized adds the definitions of apimachinery's types that
// controllers/api has no Go type for: ListMeta, Patch and Status.
func addSynthesized(defs map[string]*def) {
	str := func(d string) api.JSONSchemaProps { return api.JSONSchemaProps{Type: "string", Description: d} }
	defs[metaPrefix+"ListMeta"] = &def{schema: api.JSONSchemaProps{
		Type:        "object",
		Description: "ListMeta describes metadata that synthetic resources must have, including lists and various status objects.",
		Properties: map[string]api.JSONSchemaProps{
			"continue":           str("continue may be set if the user set a limit on the number of items returned; it is the token of the next page."),
			"remainingItemCount": {Type: "integer", Format: "int64", Description: "remainingItemCount is the number of subsequent items in the list which are not included in this list response."},
			"resourceVersion":    str("resourceVersion of the list, for a watch to start from."),
			"selfLink":           str("Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
		},
	}}
	defs[metaPrefix+"Patch"] = &def{schema: api.JSONSchemaProps{Type: "object",
		Description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body."}}
	defs[metaPrefix+"Status"] = &def{schema: api.JSONSchemaProps{
		Type:        "object",
		Description: "Status is a return value for calls that don't return other objects.",
		Properties: map[string]api.JSONSchemaProps{
			"apiVersion": str("APIVersion defines the versioned schema of this representation of an object."),
			"kind":       str("Kind is a string value representing the REST resource this object represents."),
			"code":       {Type: "integer", Format: "int32", Description: "Suggested HTTP return code for this status, 0 if not set."},
			"message":    str("A human-readable description of the status of this operation."),
			"reason":     str("A machine-readable description of why this operation is in the \"Failure\" status."),
			"status":     str("Status of the operation. One of: \"Success\" or \"Failure\"."),
			"metadata":   {Ref: ptr(metaPrefix + "ListMeta"), Description: "Standard list metadata."},
		},
	}}
}

// listSchema is the schema of the list of a kind whose definition is
// named item.
func listSchema(kind, item string) api.JSONSchemaProps {
	return api.JSONSchemaProps{
		Type:        "object",
		Description: kind + "List is a list of " + kind + " objects.",
		Required:    []string{"items"},
		Properties: map[string]api.JSONSchemaProps{
			"apiVersion": {Type: "string", Description: "APIVersion defines the versioned schema of this representation of an object."},
			"kind":       {Type: "string", Description: "Kind is a string value representing the REST resource this object represents."},
			"items":      {Type: "array", Description: "Items is the list of " + kind + " objects.", Items: &api.JSONSchemaPropsOrArray{Schema: &api.JSONSchemaProps{Ref: ptr(item)}}},
			"metadata":   {Ref: ptr(metaPrefix + "ListMeta"), Description: "Standard list metadata."},
		},
	}
}

// crdSchema is the definition of a custom resource from its
// CustomResourceDefinition's schema: its metadata is ObjectMeta, and its
// apiVersion and kind are described, as kube-apiserver publishes it.
func crdSchema(s *api.JSONSchemaProps) api.JSONSchemaProps {
	var out api.JSONSchemaProps
	if s != nil {
		out = *s.DeepCopy()
	} else {
		out = api.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}
	}
	if out.Properties == nil {
		out.Properties = map[string]api.JSONSchemaProps{}
	} else {
		out.Properties = maps.Clone(out.Properties)
	}
	out.Properties["apiVersion"] = api.JSONSchemaProps{Type: "string", Description: "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"}
	out.Properties["kind"] = api.JSONSchemaProps{Type: "string", Description: "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"}
	out.Properties["metadata"] = api.JSONSchemaProps{Ref: ptr(metaPrefix + "ObjectMeta"), Description: "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"}
	return out
}

func ptr[T any](v T) *T { return &v }

// closure returns the names of roots and of every definition they
// reference, sorted.
func closure(defs map[string]*def, roots []string) []string {
	seen := map[string]bool{}
	var visit func(n string)
	var refs func(s *api.JSONSchemaProps)
	refs = func(s *api.JSONSchemaProps) {
		if s == nil {
			return
		}
		if s.Ref != nil {
			visit(*s.Ref)
		}
		for _, p := range s.Properties {
			refs(&p)
		}
		if s.Items != nil {
			refs(s.Items.Schema)
			for i := range s.Items.JSONSchemas {
				refs(&s.Items.JSONSchemas[i])
			}
		}
		if s.AdditionalProperties != nil {
			refs(s.AdditionalProperties.Schema)
		}
		for _, l := range [][]api.JSONSchemaProps{s.AllOf, s.AnyOf, s.OneOf} {
			for i := range l {
				refs(&l[i])
			}
		}
	}
	visit = func(n string) {
		if seen[n] || defs[n] == nil {
			return
		}
		seen[n] = true
		refs(&defs[n].schema)
	}
	for _, r := range roots {
		visit(r)
	}
	return slices.Sorted(maps.Keys(seen))
}

// render is the JSON form of d: its $refs prefixed with refPrefix, the
// strategic-merge-patch metadata of its Go type's fields as
// x-kubernetes-patch-strategy and -patch-merge-key (and, where the
// schema has none, the x-kubernetes-list-type it implies: map, keyed by
// the merge key, or set), and its x-kubernetes-group-version-kind. In
// v3, a $ref with a description or other members beside it is wrapped in
// allOf, as kube-apiserver's v3 documents do.
func render(d *def, refPrefix string, v3 bool) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(d.schema)
	_ = json.Unmarshal(b, &m)
	if props, ok := m["properties"].(map[string]any); ok && d.goType != nil {
		for name, p := range props {
			strategy, key := patch.FieldStrategy(d.goType, name)
			if strategy == "" {
				continue
			}
			pm := p.(map[string]any)
			pm["x-kubernetes-patch-strategy"] = strategy
			if key != "" {
				pm["x-kubernetes-patch-merge-key"] = key
			}
			if pm["type"] == "array" && pm["x-kubernetes-list-type"] == nil && strings.Contains(strategy, "merge") {
				if key != "" {
					pm["x-kubernetes-list-type"] = "map"
					pm["x-kubernetes-list-map-keys"] = []any{key}
				} else {
					pm["x-kubernetes-list-type"] = "set"
				}
			}
		}
	}
	fixRefs(m, refPrefix, v3)
	if len(d.gvk) > 0 {
		var gvks []any
		for _, g := range d.gvk {
			gvks = append(gvks, map[string]any{"group": g.Group, "version": g.Version, "kind": g.Kind})
		}
		m["x-kubernetes-group-version-kind"] = gvks
	}
	return m
}

// fixRefs prefixes the $refs of the schema m and of its subschemas.
func fixRefs(m map[string]any, prefix string, v3 bool) {
	if r, ok := m["$ref"].(string); ok {
		m["$ref"] = prefix + r
		if v3 && len(m) > 1 {
			delete(m, "$ref")
			m["allOf"] = []any{map[string]any{"$ref": prefix + r}}
		}
	}
	for k, v := range m {
		switch k {
		case "properties":
			for _, p := range v.(map[string]any) {
				fixRefs(p.(map[string]any), prefix, v3)
			}
		case "items", "additionalProperties", "not":
			if s, ok := v.(map[string]any); ok {
				fixRefs(s, prefix, v3)
			}
		case "allOf", "anyOf", "oneOf":
			for _, s := range v.([]any) {
				if sm, ok := s.(map[string]any); ok {
					if r, ok := sm["$ref"].(string); ok && !strings.HasPrefix(r, "#/") {
						sm["$ref"] = prefix + r
					} else if !ok {
						fixRefs(sm, prefix, v3)
					}
				}
			}
		}
	}
}

// groupCamel is "AppsV1", "CoreV1", "NetworkingV1", "ExampleComV1": the
// group version as kube-apiserver's operation ids spell it.
func groupCamel(group, version string) string {
	if group == "" {
		group = "core"
	}
	group = strings.TrimSuffix(group, ".k8s.io")
	var b strings.Builder
	for _, part := range strings.FieldsFunc(group, func(r rune) bool { return r == '.' || r == '-' }) {
		rs := []rune(part)
		rs[0] = unicode.ToUpper(rs[0])
		b.WriteString(string(rs))
	}
	rs := []rune(version)
	rs[0] = unicode.ToUpper(rs[0])
	return b.String() + string(rs)
}
