package kube_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/client/clienttest"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube"
)

// kube.Client serves the kinds added with api.Register (apitest's Widget
// and Gizmo) over HTTP on ctrlkit's API server with every semantic the
// own-kinds suite checks.
func TestClientOwnKinds(t *testing.T) {
	clienttest.RunOwnKinds(t, func(t *testing.T) client.Client {
		cl, _ := newServedClient(t, cluster.Options{}, kube.ClientOptions{QPS: 10000, Burst: 10000})
		return cl
	})
}

// An own kind's Resource is typed by client.For and untyped by
// client.ForKind, both decoding into the kind's Go type; an unknown kind
// is client.ErrUnknownKind.
func TestClientOwnKindViews(t *testing.T) {
	cl, _ := newServedClient(t, cluster.Options{}, kube.ClientOptions{QPS: 10000, Burst: 10000, OrderedVersions: true})
	widgets, err := client.For[*apitest.Widget](cl)
	require.NoError(t, err)
	require.Equal(t, "widgets", widgets.Resource())
	w := &apitest.Widget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "w"}, Spec: apitest.WidgetSpec{Color: "green"}}
	_, err = widgets.Create(t.Context(), w)
	require.NoError(t, err)
	require.EqualValues(t, 1, *w.Spec.Replicas, "the server's defaulting")
	require.Equal(t, apitest.WidgetGVK, w.GroupVersionKind())

	untyped, err := client.ForKind(cl, apitest.WidgetGVK)
	require.NoError(t, err)
	obj, _, err := untyped.Get(t.Context(), "default/w")
	require.NoError(t, err)
	require.IsType(t, &apitest.Widget{}, obj)
	require.Equal(t, "green", obj.(*apitest.Widget).Spec.Color)

	_, err = cl.ResourceFor(api.GroupVersionKind{Group: "example.ctrlkit.dev", Version: "v2", Kind: "Widget"})
	require.ErrorIs(t, err, client.ErrUnknownKind)
}
