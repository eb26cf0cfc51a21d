package client_test

import (
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// For fails cleanly, never panics, on a nil client, a typed nil cluster
// and a kind the client does not serve; it finds every kind of
// controllers/api on the in-process cluster.
func TestFor(t *testing.T) {
	_, err := client.For[*api.Pod](nil)
	if !errors.Is(err, client.ErrUnknownKind) {
		t.Fatalf("nil client: %v", err)
	}
	var typedNil *cluster.Cluster
	_, err = client.For[*api.Pod](typedNil)
	if !errors.Is(err, client.ErrUnknownKind) {
		t.Fatalf("typed nil cluster: %v", err)
	}
	c, err := cluster.New(t.Context(), cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.For[*api.Scale](c); !errors.Is(err, client.ErrUnknownKind) {
		t.Fatalf("Scale is no kind: %v", err)
	}
	for _, gvk := range api.Kinds() {
		r, err := c.ResourceFor(gvk)
		if err != nil {
			t.Fatalf("%s: %v", gvk, err)
		}
		if r.Resource() == "" {
			t.Fatalf("%s: no resource name", gvk)
		}
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil || pods.Resource() != "pods" {
		t.Fatalf("pods: %v %v", pods, err)
	}
	other := api.GroupVersionKind{Group: "apps", Version: "v1beta1", Kind: "Deployment"}
	if _, err := c.ResourceFor(other); !errors.Is(err, client.ErrUnknownKind) {
		t.Fatalf("%s: %v", other, err)
	}
}
