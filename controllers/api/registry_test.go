package api_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestRegistry checks each registration against its Go type and the
// lookups against the registrations: a kind's facts come from one place.
func TestRegistry(t *testing.T) {
	reg := api.Registered()
	require.GreaterOrEqual(t, len(reg), len(api.Kinds()), "the built-in kinds, then those of Register")
	resources := map[[2]string]bool{}
	for i, k := range reg {
		if i < len(api.Kinds()) {
			require.Equal(t, api.Kinds()[i], k.GroupVersionKind, "Kinds and Registered agree")
		}
		obj := k.New()
		require.Equal(t, k.GoType(), reflect.TypeOf(obj), k.Kind)
		require.Equal(t, k.GroupVersionKind, obj.GroupVersionKind(), "the type's method is its registration")
		_, hasStatus := k.GoType().Elem().FieldByName("Status")
		require.Equal(t, hasStatus, k.Status, "%s: status subresource iff a Status field", k.Kind)
		require.NotEmpty(t, k.Resource, k.Kind)
		require.Equal(t, strings.ToLower(k.Resource), k.Resource)
		require.False(t, resources[[2]string{k.Group, k.Resource}], "%s served twice", k.Resource)
		resources[[2]string{k.Group, k.Resource}] = true
		require.Equal(t, k.Columns == nil, k.Cells == nil, "%s: Columns and Cells go together", k.Kind)
		if k.Cells != nil {
			require.Len(t, k.Cells(obj, time.Now()), len(k.Columns), "%s: one cell per column", k.Kind)
		}

		byGVK, ok := api.InfoOf(k.GroupVersionKind)
		require.True(t, ok)
		require.Equal(t, k.Resource, byGVK.Resource)
		byRes, ok := api.InfoOfResource(k.Group, k.Resource)
		require.True(t, ok)
		require.Equal(t, k.GroupVersionKind, byRes.GroupVersionKind)
		require.Equal(t, k.Namespaced, api.IsNamespaced(k.Kind))
		_, ok = api.InfoOf(api.GroupVersionKind{Group: k.Group, Version: "v0", Kind: k.Kind})
		require.False(t, ok, "another version is not registered")
	}
	pod, ok := api.InfoFor[*api.Pod]()
	require.True(t, ok)
	require.Equal(t, "pods", pod.Resource)
	require.Equal(t, []string{"po"}, pod.ShortNames)
	require.True(t, (&api.Deployment{}).GroupVersionKind() == api.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	_, ok = api.InfoOfResource("", "deployments")
	require.False(t, ok, "deployments are in apps")
}

// TestRegisteredCopies checks that a caller changing what Registered
// returns changes no one else's view.
func TestRegisteredCopies(t *testing.T) {
	reg := api.Registered()
	reg[0].ShortNames[0] = "changed"
	reg[0].Resource = "changed"
	again := api.Registered()
	require.NotEqual(t, "changed", again[0].ShortNames[0])
	require.NotEqual(t, "changed", again[0].Resource)
}
