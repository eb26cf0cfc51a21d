package managercmd_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
	"github.com/ctrlkit/ctrlkit/source"
)

// Every kind's resource, and its Selects, compare resourceVersions as
// decimal integers (without it the manager's catch-up before leading
// failed on every kube.Client resource: "the source does not implement
// source.VersionComparer"); the client stays a Binder.
func TestOrderedCompares(t *testing.T) {
	kc, err := kube.NewClient(&rest.Config{Host: "http://127.0.0.1:1"}, kube.ClientOptions{})
	require.NoError(t, err)
	c := managercmd.Ordered(kc)
	check := func(v any) {
		t.Helper()
		cmp, ok := v.(source.VersionComparer)
		require.True(t, ok, "%T", v)
		n, err := cmp.CompareResourceVersions("9", "10")
		require.NoError(t, err)
		require.Equal(t, -1, n)
		n, err = cmp.CompareResourceVersions("10", "10")
		require.NoError(t, err)
		require.Equal(t, 0, n)
		_, err = cmp.CompareResourceVersions("abc", "10")
		require.ErrorContains(t, err, "not a decimal integer")
	}
	pods, err := client.For[*api.Pod](c)
	require.NoError(t, err)
	check(pods)
	sel, err := pods.Select(client.SelectOptions{Namespace: "default"})
	require.NoError(t, err)
	check(sel)
	leases, err := client.For[*api.Lease](c)
	require.NoError(t, err)
	check(leases)
	events, err := client.For[*api.Event](c)
	require.NoError(t, err)
	check(events)
	_, err = client.BinderFor(c)
	require.NoError(t, err)
}
