package kube_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/kube"
)

// TestClientServesEveryRegisteredKind checks that the client's kinds and
// plurals come from api.Registered.
func TestClientServesEveryRegisteredKind(t *testing.T) {
	c, err := kube.NewClient(&rest.Config{Host: "http://127.0.0.1:1"}, kube.ClientOptions{})
	require.NoError(t, err)
	for _, k := range api.Registered() {
		require.Equal(t, k.Resource, kube.PluralOf(k.GroupVersionKind), k.Kind)
		r, err := c.ResourceFor(k.GroupVersionKind)
		require.NoError(t, err, k.Kind)
		require.Equal(t, k.Resource, r.Resource(), k.Kind)
	}
	require.Equal(t, "widgets", kube.PluralOf(api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}),
		"an unregistered kind's plural is guessed")
}
