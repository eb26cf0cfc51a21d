package cluster_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// TestEveryRegisteredKindHasAStore checks that the cluster's stores
// derive from api.Registered: one per kind, under its resource, with its
// scale subresource, and none for a kind that is not registered.
func TestEveryRegisteredKindHasAStore(t *testing.T) {
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	for _, k := range api.Registered() {
		r, err := c.ResourceFor(k.GroupVersionKind)
		require.NoError(t, err, k.Kind)
		require.Equal(t, k.Resource, r.Resource(), k.Kind)
		sc, ok := r.(interface{ HasScale() bool })
		require.True(t, ok, "%s: a *Store", k.Kind)
		require.Equal(t, k.Scale, sc.HasScale(), "%s: scale subresource", k.Kind)
		_, ok = cluster.ScaleOf(k.New())
		require.Equal(t, k.Scale, ok, "%s: ScaleOf knows the replicas of exactly the kinds with a scale subresource", k.Kind)
	}
	_, err = c.ResourceFor(api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	require.Error(t, err)
	s, ok := cluster.StoreFor[*api.Lease](c)
	require.True(t, ok)
	require.Equal(t, "leases", s.Resource())
}
