package crdgen_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen/internal/badlist"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen/internal/widget"
)

var widgetInfo = api.KindInfo{GroupVersionKind: api.GroupVersionKind{Group: "example.com", Version: "v1alpha1", Kind: "Widget"}}

func generateWidget(t *testing.T) *api.CustomResourceDefinition {
	t.Helper()
	crd, err := crdgen.Generate(widgetInfo, reflect.TypeFor[*widget.Widget](), crdgen.Options{Dir: "internal/widget"})
	require.NoError(t, err)
	return crd
}

func prop(t *testing.T, s *api.JSONSchemaProps, path string) *api.JSONSchemaProps {
	t.Helper()
	for _, p := range strings.Split(path, ".") {
		if p == "[]" {
			require.NotNil(t, s.Items, "%s: no items", path)
			s = s.Items.Schema
			continue
		}
		c, ok := s.Properties[p]
		require.True(t, ok, "%s: no property %q", path, p)
		s = &c
	}
	return s
}

func rawJSON(t *testing.T, j *api.JSON) any {
	t.Helper()
	require.NotNil(t, j)
	var v any
	require.NoError(t, json.Unmarshal(j.Raw, &v))
	return v
}

func TestGenerateWidget(t *testing.T) {
	crd := generateWidget(t)
	require.Equal(t, "widgets.example.com", crd.Name)
	require.Equal(t, "apiextensions.k8s.io/v1", crd.APIVersion)
	require.Equal(t, api.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
		ShortNames: []string{"wd", "wdg"}, Categories: []string{"all"}}, crd.Spec.Names)
	require.Equal(t, api.NamespaceScoped, crd.Spec.Scope)
	require.Len(t, crd.Spec.Versions, 1)
	v := crd.Spec.Versions[0]
	require.Equal(t, "v1alpha1", v.Name)
	require.True(t, v.Served && v.Storage)
	require.NotNil(t, v.Subresources.Status)
	require.Equal(t, ".spec.replicas", v.Subresources.Scale.SpecReplicasPath)
	require.Equal(t, ".status.readyReplicas", v.Subresources.Scale.StatusReplicasPath)
	require.Equal(t, ".status.selector", *v.Subresources.Scale.LabelSelectorPath)
	require.Equal(t, []api.CustomResourceColumnDefinition{
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ready", Type: "integer", JSONPath: ".status.readyReplicas", Description: "Pods ready", Priority: 1},
	}, v.AdditionalPrinterColumns)

	root := v.Schema.OpenAPIV3Schema
	require.Equal(t, "object", root.Type)
	require.Equal(t, "Widget is a sample workload that runs a number of identical pods.", root.Description, "type doc, markers removed")
	require.Equal(t, []string{"spec"}, root.Required, "status is omitzero, apiVersion/kind/metadata never required")
	require.Equal(t, api.JSONSchemaProps{Type: "object"}, *prop(t, root, "metadata"), "metadata: type object only")
	require.Equal(t, "string", prop(t, root, "apiVersion").Type)
	require.Equal(t, "string", prop(t, root, "kind").Type)

	spec := prop(t, root, "spec")
	require.Equal(t, "Spec is the desired state.", spec.Description, "the field's doc wins over the type's")
	require.Equal(t, []string{"color", "name", "selector"}, spec.Required,
		"no omitempty and not a pointer, or +required; +optional drops email")
	require.Equal(t, []api.ValidationRule{{Rule: "self.minReplicas <= self.replicas", Message: "minReplicas must not exceed replicas"}}, spec.XValidations)

	r := prop(t, root, "spec.replicas")
	require.Equal(t, "integer", r.Type)
	require.Equal(t, "int32", r.Format)
	require.Equal(t, 0.0, *r.Minimum)
	require.Equal(t, 100.0, *r.Maximum)
	require.Equal(t, 1.0, rawJSON(t, r.Default))
	require.Equal(t, "Replicas is the number of pods.", r.Description)

	c := prop(t, root, "spec.color")
	require.Equal(t, "string", c.Type)
	var enum []any
	for _, e := range c.Enum {
		enum = append(enum, rawJSON(t, &e))
	}
	require.Equal(t, []any{"red", "green", "blue"}, enum, "a named type's markers apply where it is used")
	require.Equal(t, "Color is the widget's colour.", c.Description)

	n := prop(t, root, "spec.name")
	require.Equal(t, int64(1), *n.MinLength)
	require.Equal(t, int64(63), *n.MaxLength)
	require.Equal(t, "^[a-z][-a-z0-9]*$", n.Pattern)
	require.Equal(t, "email", prop(t, root, "spec.email").Format)
	require.Equal(t, api.JSONSchemaProps{Type: "number", Format: "double", Description: "Weight is a relative weight."}, *prop(t, root, "spec.weight"))
	require.Equal(t, "boolean", prop(t, root, "spec.paused").Type)
	for _, p := range []string{"spec.size", "spec.port"} {
		s := prop(t, root, p)
		require.True(t, s.XIntOrString, p)
		require.Empty(t, s.Type, p)
		require.Equal(t, []api.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}, s.AnyOf, p)
	}
	res := prop(t, root, "spec.resources")
	require.Equal(t, "object", res.Type)
	require.True(t, res.AdditionalProperties.Schema.XIntOrString, "a resource list maps names to quantities")
	require.Equal(t, "string", prop(t, root, "spec.labels").AdditionalProperties.Schema.Type)

	ports := prop(t, root, "spec.ports")
	require.Equal(t, "array", ports.Type)
	require.Equal(t, "map", *ports.XListType)
	require.Equal(t, []string{"name"}, ports.XListMapKeys)
	require.Equal(t, int64(8), *ports.MaxItems)
	require.Equal(t, []string{"name", "port"}, prop(t, root, "spec.ports.[]").Required)
	require.Equal(t, 65535.0, *prop(t, root, "spec.ports.[].port").Maximum)
	require.Equal(t, "set", *prop(t, root, "spec.tags").XListType)
	require.Equal(t, "string", prop(t, root, "spec.tags.[]").Type)

	require.Equal(t, "object", prop(t, root, "spec.selector.matchLabels").Type, "types of other packages by reflection")
	require.Equal(t, api.JSONSchemaProps{Type: "object"}, *prop(t, root, "spec.template.metadata"), "embedded metadata: type object only")
	require.Equal(t, "array", prop(t, root, "spec.template.spec.containers").Type)
	require.Equal(t, api.JSONSchemaProps{Type: "string", Format: "date-time", Description: "Deadline is when the widget gives up."}, *prop(t, root, "spec.deadline"))
	require.Equal(t, "byte", prop(t, root, "spec.data").Format)
	require.Equal(t, "Owner is the widget's owner.", prop(t, root, "spec.owner").Description, "embedded structs are inlined")
	for _, gone := range []string{"Secret", "secret", "Common"} {
		require.NotContains(t, spec.Properties, gone)
	}
	st := prop(t, root, "status")
	require.Empty(t, st.Required)
	require.Equal(t, "date-time", prop(t, root, "status.lastUpdate").Format)

	requireStructural(t, root, "", true)
}

// requireStructural checks kube-apiserver's structural-schema rules that
// a generated schema could break: every node has a type unless it
// preserves unknown fields or is an int-or-string, the int-or-string
// anyOf has only types in it, and metadata at the root is restricted to
// its type.
func requireStructural(t *testing.T, s *api.JSONSchemaProps, path string, root bool) {
	t.Helper()
	if s.Type == "" && !s.XIntOrString && (s.XPreserveUnknownFields == nil || !*s.XPreserveUnknownFields) {
		t.Errorf("%s: no type", path)
	}
	for _, a := range s.AnyOf {
		if !reflect.DeepEqual(a, api.JSONSchemaProps{Type: a.Type}) {
			t.Errorf("%s: anyOf has more than a type: %+v", path, a)
		}
	}
	if s.Items != nil {
		requireStructural(t, s.Items.Schema, path+"[]", false)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		if len(s.Properties) > 0 {
			t.Errorf("%s: properties and additionalProperties", path)
		}
		requireStructural(t, s.AdditionalProperties.Schema, path+".*", false)
	}
	for k, p := range s.Properties {
		if root && k == "metadata" && !reflect.DeepEqual(p, api.JSONSchemaProps{Type: "object"}) {
			t.Errorf("metadata: %+v", p)
		}
		requireStructural(t, &p, path+"."+k, false)
	}
}

// The generated YAML decodes strictly into the same definition.
func TestWriteYAMLRoundTrip(t *testing.T) {
	crd := generateWidget(t)
	var b bytes.Buffer
	require.NoError(t, crdgen.WriteYAML(&b, crd))
	require.True(t, strings.HasPrefix(b.String(), "---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"), b.String()[:80])
	objs, err := api.Decode(b.Bytes(), api.DecodeOptions{})
	require.NoError(t, err)
	require.Len(t, objs, 1)
	require.Equal(t, crd, objs[0])
}

// Without the source, the schema is the same but has no descriptions and
// no markers.
func TestGenerateWithoutSource(t *testing.T) {
	crd, err := crdgen.Generate(api.KindInfo{GroupVersionKind: api.GroupVersionKind{Group: "example.com", Version: "v1"},
		Namespaced: true, Status: true}, reflect.TypeFor[widget.Widget](), crdgen.Options{})
	require.NoError(t, err)
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	require.Equal(t, "widgets", crd.Spec.Names.Plural)
	require.Empty(t, root.Description)
	require.Empty(t, prop(t, root, "spec.replicas").Description)
	require.Nil(t, prop(t, root, "spec.replicas").Minimum)
	require.Equal(t, []string{"color", "name", "email"}, prop(t, root, "spec").Required, "in field order")
	require.NotNil(t, crd.Spec.Versions[0].Subresources.Status)
	require.Nil(t, crd.Spec.Versions[0].Subresources.Scale)
	requireStructural(t, root, "", true)
}

// KindInfo wins over the markers where it says something.
func TestKindInfoOverridesMarkers(t *testing.T) {
	info := widgetInfo
	info.Resource, info.ShortNames, info.Categories = "gadgets", []string{"gd"}, []string{"toys"}
	crd, err := crdgen.Generate(info, reflect.TypeFor[widget.Widget](), crdgen.Options{Dir: "internal/widget",
		Columns: []api.CustomResourceColumnDefinition{{Name: "Color", Type: "string", JSONPath: ".spec.color"}}})
	require.NoError(t, err)
	require.Equal(t, "gadgets.example.com", crd.Name)
	require.Equal(t, []string{"gd"}, crd.Spec.Names.ShortNames)
	require.Equal(t, []string{"toys"}, crd.Spec.Names.Categories)
	cols := crd.Spec.Versions[0].AdditionalPrinterColumns
	require.Equal(t, "Color", cols[len(cols)-1].Name)
}

type recursive struct {
	Next *recursive `json:"next,omitempty"`
}

// The clashing fields have no json tags (vet rejects clashing tags): their
// JSON name is the Go name.

type otherInner struct {
	X bool
}

// dupName has two x at the same depth, which encoding/json would drop.
type dupName struct {
	inner      `json:",inline"`
	otherInner `json:",inline"`
}

type inner struct {
	X int
	Y string `json:"y,omitempty"`
}

// shadowing has an x of its own, which hides inner's, as in encoding/json.
type shadowing struct {
	inner `json:",inline"`
	X     *string
}

// An outer field hides an embedded one of the same JSON name, as
// encoding/json decodes it.
func TestGenerateShadowedField(t *testing.T) {
	crd, err := crdgen.Generate(widgetInfo, reflect.TypeFor[shadowing](), crdgen.Options{})
	require.NoError(t, err)
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	require.Equal(t, "string", prop(t, root, "X").Type)
	require.Equal(t, "string", prop(t, root, "y").Type)
	require.Empty(t, root.Required, "inner's required X is hidden")
}

type badMap struct {
	M map[int]string `json:"m"`
}

func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		info api.KindInfo
		typ  reflect.Type
		opts crdgen.Options
		want string
	}{
		{"no group", api.KindInfo{GroupVersionKind: api.GroupVersionKind{Version: "v1"}}, reflect.TypeFor[widget.Widget](), crdgen.Options{}, "needs a group"},
		{"no type", widgetInfo, nil, crdgen.Options{}, "no Go type"},
		{"not a struct", widgetInfo, reflect.TypeFor[string](), crdgen.Options{}, "not a struct"},
		{"recursive", widgetInfo, reflect.TypeFor[recursive](), crdgen.Options{}, "cannot be recursive"},
		{"duplicate name", widgetInfo, reflect.TypeFor[dupName](), crdgen.Options{}, `have the JSON name "X"`},
		{"map key", widgetInfo, reflect.TypeFor[badMap](), crdgen.Options{}, "m: map key type int is not a string"},
		{"wrong dir", widgetInfo, reflect.TypeFor[recursive](), crdgen.Options{Dir: "internal/widget"}, "not declared in internal/widget"},
		{"no dir", widgetInfo, reflect.TypeFor[widget.Widget](), crdgen.Options{Dir: "internal/nothing"}, "no Go files"},
	} {
		_, err := crdgen.Generate(tc.info, tc.typ, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for kind, want := range map[string]string{"Widget": "widgets", "Policy": "policies", "Gateway": "gateways",
		"Ingress": "ingresses", "Box": "boxes", "Patch": "patches", "Mesh": "meshes"} {
		require.Equal(t, want, crdgen.Plural(kind))
	}
}

// List markers that kube-apiserver rejects, and a misspelt marker, are
// errors naming the type, the field and the reason.
func TestGenerateBadMarkers(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want string
	}{
		{reflect.TypeFor[badlist.OptionalKey](), "field OptionalKey.Items (items): +listMapKey=name must be required or have a default"},
		{reflect.TypeFor[badlist.ObjectSet](), "+listType=set needs scalar items, not object"},
		{reflect.TypeFor[badlist.NoKeys](), "+listType=map needs at least one +listMapKey"},
		{reflect.TypeFor[badlist.BadType](), "+listType=bag is not atomic, set or map"},
		{reflect.TypeFor[badlist.KeyWithoutMap](), "+listMapKey needs +listType=map"},
		{reflect.TypeFor[badlist.NotAList](), `+listType on a field of type "string", not an array`},
		{reflect.TypeFor[badlist.UnknownMarker](), "field UnknownMarker.N (n): unknown marker +kubebuilder:validation:Minimun"},
	} {
		_, err := crdgen.Generate(widgetInfo, tc.typ, crdgen.Options{Dir: "internal/badlist"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.typ.Name(), err, tc.want)
		}
	}
	crd, err := crdgen.Generate(widgetInfo, reflect.TypeFor[badlist.Good](), crdgen.Options{Dir: "internal/badlist"})
	require.NoError(t, err)
	require.Equal(t, []string{"port"}, prop(t, crd.Spec.Versions[0].Schema.OpenAPIV3Schema, "items").XListMapKeys)
}
