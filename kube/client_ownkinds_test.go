package kube_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

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

// A kind the program registered but the server does not serve (its CRD
// not installed) is client.ErrUnknownKind, as kube-controller-manager
// watches only what discovery lists; once the server serves it, the next
// call finds it.
func TestClientOwnKindNotServed(t *testing.T) {
	var serve atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/apis/example.ctrlkit.dev/v1" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		list := `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"example.ctrlkit.dev/v1","resources":[]}`
		if serve.Load() {
			list = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"example.ctrlkit.dev/v1","resources":[{"name":"widgets","namespaced":true,"kind":"Widget","verbs":["get","list"]}]}`
		}
		_, _ = w.Write([]byte(list))
	}))
	defer srv.Close()
	cl, err := kube.NewClient(&rest.Config{Host: srv.URL}, kube.ClientOptions{})
	require.NoError(t, err)
	_, err = client.For[*apitest.Gizmo](cl)
	require.ErrorIs(t, err, client.ErrUnknownKind, "a group version the server does not serve")
	_, err = client.For[*apitest.Widget](cl)
	require.ErrorIs(t, err, client.ErrUnknownKind, "a resource its group version does not list")
	serve.Store(true)
	w, err := client.For[*apitest.Widget](cl)
	require.NoError(t, err)
	require.Equal(t, "widgets", w.Resource())
}
