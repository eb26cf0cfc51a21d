package realkube_test

import (
	"context"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// testOrderedVersions: kube-apiserver's resourceVersions are etcd
// revisions, so a kube.Client with OrderedVersions lets an informer of
// a real server wait for the version a write returned, and a
// read-your-writes gate follow it.
func testOrderedVersions(t *testing.T, cl *kube.Client) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	cms, err := client.For[*api.ConfigMap](cl)
	if err != nil {
		t.Fatal(err)
	}
	sel, err := cms.Select(client.SelectOptions{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := informer.New(sel, api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{})
	if err != nil {
		t.Fatal(err)
	}
	gate, err := reconcile.NewConsistency[string](inf, inf)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() { cancel(); <-done }()
	var last string
	for _, name := range []string{"ordered-a", "ordered-b", "ordered-c"} {
		rv, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}})
		if err != nil {
			t.Fatal(err)
		}
		if err := gate.WroteKey("req", "default/"+name, rv); err != nil {
			t.Fatalf("the gate refuses the server's version %q: %v", rv, err)
		}
		if last != "" {
			if c, err := inf.CompareResourceVersions(last, rv); err != nil || c >= 0 {
				t.Fatalf("compare %s with the later %s: %d, %v", last, rv, c, err)
			}
		}
		last = rv
	}
	if err := inf.WaitForResourceVersion(ctx, last); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ordered-a", "ordered-b", "ordered-c"} {
		if _, ok := inf.Lister().Get("default/" + name); !ok {
			t.Errorf("the cache lacks %s after waiting for %s", name, last)
		}
	}
}
