package kube_test

import (
	"context"
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube"
)

// TestClientServesEveryRegisteredKind checks that the client's kinds and
// plurals come from api.Registered.
func TestClientServesEveryRegisteredKind(t *testing.T) {
	c, err := kube.NewClient(&rest.Config{Host: "http://127.0.0.1:1"}, kube.ClientOptions{})
	require.NoError(t, err)
	for _, k := range api.Registered() {
		require.Equal(t, k.Resource, kube.PluralOf(k.GroupVersionKind), k.Kind)
		if !api.IsBuiltin(k.GroupVersionKind) {
			continue // served once discovery lists it: TestClientOwnKindNotServed
		}
		r, err := c.ResourceFor(k.GroupVersionKind)
		require.NoError(t, err, k.Kind)
		require.Equal(t, k.Resource, r.Resource(), k.Kind)
	}
	require.Equal(t, "widgets", kube.PluralOf(api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}),
		"an unregistered kind's plural is guessed")
}

// TestClientRoundTripsEveryRegisteredKind creates a sample of every
// registered kind (controllers/api/testdata/kinds.yaml) through the
// client's resource of its kind, against ctrlkit's API server, and reads
// it back: every kind has a working Resource, with its own Go type.
func TestClientRoundTripsEveryRegisteredKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cl, _ := newServedClient(t, cluster.Options{}, kube.ClientOptions{})
		samples, err := api.DecodeFile("../controllers/api/testdata/kinds.yaml", api.DecodeOptions{})
		require.NoError(t, err)
		builtin := 0
		for _, k := range api.Registered() {
			if api.IsBuiltin(k.GroupVersionKind) {
				builtin++ // the kinds of Register (apitest's) have TestClientOwnKinds
			}
		}
		require.Len(t, samples, builtin)
		for _, s := range samples {
			gvk := s.GroupVersionKind()
			r, err := cl.ResourceFor(gvk)
			require.NoError(t, err, gvk.Kind)
			_, err = call(r, "Create", ctx, s)
			require.NoError(t, err, "%s: create", gvk.Kind)
			require.NotEmpty(t, s.GetObjectMeta().UID, gvk.Kind)
			out, err := call(r, "Get", ctx, api.Key(s))
			require.NoError(t, err, "%s: get", gvk.Kind)
			got := out[0].Interface().(api.Object)
			require.IsType(t, s, got, gvk.Kind)
			require.Equal(t, s.GetObjectMeta().UID, got.GetObjectMeta().UID, gvk.Kind)
		}
	})
}

// call calls the method name of r, a client.Resource[T] of a T the test
// does not name, and returns its results and its error (the last one).
func call(r any, name string, ctx context.Context, arg any) ([]reflect.Value, error) {
	out := reflect.ValueOf(r).MethodByName(name).Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(arg)})
	err, _ := out[len(out)-1].Interface().(error)
	return out, err
}
