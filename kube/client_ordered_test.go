package kube_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// By default a Client's resourceVersions are opaque: neither its
// Resources nor their selections compare them, and an informer over
// them cannot wait for a version.
func TestClientVersionsOpaque(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cl, _ := newServedClient(t, cluster.Options{}, kube.ClientOptions{QPS: -1})
		_, _, gate := configMapsGate(t, cl, false)
		// So a read-your-writes gate over an informer of it records nothing.
		require.Error(t, gate.WroteKey("req", "default/a", "5"))
	})
}

// With OrderedVersions every Resource and selection is a
// source.VersionComparer of decimal revisions (through Intercept too),
// and an informer over a selection serves a read-your-writes gate: it
// waits for the version a write returned.
func TestClientOrderedVersions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cl, _ := newServedClient(t, cluster.Options{}, kube.ClientOptions{QPS: -1, OrderedVersions: true})
		for _, gvk := range api.Kinds() {
			r, err := cl.ResourceFor(gvk)
			require.NoError(t, err)
			_, ok := r.(source.VersionComparer)
			require.True(t, ok, "the resource of %s does not compare versions", gvk)
		}
		cms, inf, gate := configMapsGate(t, cl, true)
		vc := cms.(source.VersionComparer)
		for _, tc := range []struct {
			a, b string
			want int
		}{{"9", "10", -1}, {"10", "9", 1}, {"42", "42", 0}, {"0", "1", -1}} {
			got, err := vc.CompareResourceVersions(tc.a, tc.b)
			require.NoError(t, err)
			require.Equal(t, tc.want, got, "compare %s %s", tc.a, tc.b)
		}
		for _, bad := range []string{"", "-1", "abc", "1.5"} {
			_, err := vc.CompareResourceVersions(bad, "1")
			require.Error(t, err, "version %q", bad)
		}
		intercepted, err := client.For[*api.ConfigMap](client.Intercept(cl, func(ctx context.Context, _ client.Call, next func(context.Context) error) error { return next(ctx) }))
		require.NoError(t, err)
		_, ok := intercepted.(source.VersionComparer)
		require.True(t, ok, "an intercepted ordered Resource does not compare versions")

		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		rv, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "a"}})
		require.NoError(t, err)
		require.NoError(t, gate.WroteKey("req", "default/a", rv))
		require.Equal(t, []string{"default/a"}, gate.PendingKeys("req"))
		require.NoError(t, inf.WaitForResourceVersion(ctx, rv))
		got, ok := inf.Lister().Get("default/a")
		require.True(t, ok, "the cache lacks the write it waited for")
		require.Equal(t, rv, got.ResourceVersion)
		cancel()
		<-done
	})
}

// configMapsGate returns cl's ConfigMaps, an informer over their
// selection in the namespace default and a read-your-writes gate over
// it, having checked that the Resource and the selection compare
// versions exactly when ordered.
func configMapsGate(t *testing.T, cl client.Client, ordered bool) (client.Resource[*api.ConfigMap], *informer.Informer[*api.ConfigMap], *reconcile.Consistency[string]) {
	t.Helper()
	cms, err := client.For[*api.ConfigMap](cl)
	require.NoError(t, err)
	_, ok := cms.(source.VersionComparer)
	require.Equal(t, ordered, ok, "the Resource compares versions")
	sel, err := cms.Select(client.SelectOptions{Namespace: "default"})
	require.NoError(t, err)
	_, ok = sel.(source.VersionComparer)
	require.Equal(t, ordered, ok, "the selection compares versions")
	inf, err := informer.New(sel, api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{})
	require.NoError(t, err)
	gate, err := reconcile.NewConsistency[string](inf, inf)
	require.NoError(t, err)
	return cms, inf, gate
}
