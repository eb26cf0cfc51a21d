package cluster_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

var lateGVK = api.GroupVersionKind{Group: "late.test.ctrlkit.dev", Version: "v1", Kind: "Late"}

// late is a kind registered after its cluster was made.
type late struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		N int `json:"n"`
	} `json:"spec"`
}

func (*late) GroupVersionKind() api.GroupVersionKind { return lateGVK }
func (l *late) DeepCopyObject() api.Object           { return api.DeepCopyOf(l) }

// TestKindRegisteredAfterNew checks that a kind registered after the
// cluster was made is served from its first use, and listed by Kinds
// from then on.
func TestKindRegisteredAfterNew(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	if _, err := api.Register[*late](api.KindInfo{GroupVersionKind: lateGVK, Resource: "lates", Namespaced: true}); err != nil {
		t.Fatal(err)
	}
	r, err := client.For[*late](c)
	if err != nil {
		t.Fatal(err)
	}
	l := &late{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "a"}}
	l.Spec.N = 3
	if _, err := r.Create(t.Context(), l); err != nil {
		t.Fatal(err)
	}
	got, _, err := r.Get(t.Context(), "default/a")
	if err != nil || got.Spec.N != 3 || got.Generation != 1 {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	served := false
	for _, k := range c.Kinds() {
		served = served || k.GroupVersionKind == lateGVK
	}
	if !served {
		t.Fatal("Kinds does not list the late kind")
	}
	if s, ok := c.DynamicStore(lateGVK); !ok || s.Resource() != "lates" {
		t.Fatalf("DynamicStore = %v, %v", s, ok)
	}
	if _, ok := c.DynamicStore(api.GroupVersionKind{Version: "v1", Kind: "Pod"}); ok {
		t.Fatal("DynamicStore serves a built-in kind")
	}
}
