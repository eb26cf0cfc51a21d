package crdgen_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
)

// node is recursive through a named type, which Generate refuses and
// Definitions represents with a reference.
type node struct {
	Name     string `json:"name"`
	Children []node `json:"children,omitempty"`
	Meta     api.ObjectMeta
	Next     *node `json:"next,omitempty"`
}

func TestDefinitionsRefsAndComments(t *testing.T) {
	name := func(t reflect.Type) string {
		if t.Kind() != reflect.Struct {
			return ""
		}
		return "test." + t.Name()
	}
	cs := crdgen.Comments{"node": {Doc: "node is a tree.\n", Fields: map[string]string{
		"Next": "Next is the sibling.\n", "Children": "+listType=map\n+listMapKey=name\n"}}}
	defs, goTypes, err := crdgen.Definitions([]reflect.Type{reflect.TypeFor[*node]()}, crdgen.DefinitionOptions{
		PkgPath: reflect.TypeFor[node]().PkgPath(), Comments: cs, Name: name})
	require.NoError(t, err)
	n := defs["test.node"]
	require.Equal(t, "node is a tree.", n.Description)
	require.Equal(t, []string{"name", "Meta"}, n.Required)
	require.Equal(t, "test.node", *n.Properties["next"].Ref)
	require.Equal(t, "Next is the sibling.", n.Properties["next"].Description)
	require.Equal(t, "test.node", *n.Properties["children"].Items.Schema.Ref)
	require.Equal(t, "map", *n.Properties["children"].XListType, "a list marker checked through the reference")
	require.Equal(t, "test.ObjectMeta", *n.Properties["Meta"].Ref)
	require.Equal(t, "object", defs["test.ObjectMeta"].Type)
	require.Contains(t, defs["test.ObjectMeta"].Properties, "labels", "ObjectMeta is a full definition")
	require.Equal(t, "date-time", defs["test.Time"].Format)
	require.Equal(t, reflect.TypeFor[node](), goTypes["test.node"])

	_, _, err = crdgen.Definitions([]reflect.Type{reflect.TypeFor[*node]()}, crdgen.DefinitionOptions{
		PkgPath: reflect.TypeFor[node]().PkgPath(), Name: name,
		Comments: crdgen.Comments{"node": {Fields: map[string]string{"Children": "+listType=map\n+listMapKey=nope\n"}}}})
	require.ErrorContains(t, err, "+listMapKey=nope is not a field of the items")
}

// ParseComments reads a type's and its fields' comments, marker lines
// included.
func TestParseComments(t *testing.T) {
	cs, err := crdgen.ParseComments("internal/widget")
	require.NoError(t, err)
	require.Contains(t, cs, "Widget")
	require.NotEmpty(t, cs["Widget"].Doc)
}
