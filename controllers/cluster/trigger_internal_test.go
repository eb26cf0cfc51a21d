package cluster

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// A relist of an indexed Select — a version with NotOlderThan — is served
// from the running hub's index, without a List of the store: the pods
// with that node name at the hub's version, in key order, as a filtered
// List of the store gives them. A pod bound, moved off by deletion, or
// selected by another term too, is where the store says. Lists the hub
// cannot answer read the store.
func TestIndexedRelistServedByTheHub(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c, err := New(ctx, Options{})
		if err != nil {
			t.Fatal(err)
		}
		pods := storeOf[*api.Pod](c)
		mem := pods.s.(memory[*api.Pod])
		lw, err := pods.Select(SelectOptions{FieldSelector: "spec.nodeName=n1"})
		if err != nil {
			t.Fatal(err)
		}
		all, err := pods.Select(SelectOptions{}) // the store's answer, filtered below
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lw.Watch(ctx, source.WatchOptions{}); err != nil { // starts the hub
			t.Fatal(err)
		}
		var first string
		var rvs []string // every write's version
		for i := range 30 {
			name := fmt.Sprintf("p%02d", 29-i) // created out of key order
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}}
			p.Spec.Containers = []api.Container{{Name: "c", Image: "i"}}
			rv, err := pods.Create(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if first == "" {
				first = rv
			}
			brv, err := c.Bind(ctx, "default", name, fmt.Sprintf("n%d", i%3))
			if err != nil {
				t.Fatal(err)
			}
			rvs = append(rvs, rv, brv)
		}
		zero := int64(0)
		drv, err := pods.DeleteWith(ctx, "default/p01", DeleteOptions{GracePeriodSeconds: &zero})
		if err != nil {
			t.Fatal(err)
		}
		rvs = append(rvs, drv)
		synctest.Wait() // the hub has dispatched every write

		want := func() []string {
			t.Helper()
			l, err := all.List(ctx, source.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range l.Items {
				if p.Spec.NodeName == "n1" {
					names = append(names, p.Name)
				}
			}
			return names
		}()
		if len(want) != 9 {
			t.Fatalf("the store has %d pods on n1, want 9: %v", len(want), want)
		}
		lists := mem.ListCalls()
		l, err := lw.List(ctx, source.ListOptions{ResourceVersion: first})
		if err != nil {
			t.Fatal(err)
		}
		if n := mem.ListCalls() - lists; n != 0 {
			t.Fatalf("the relist read the store %d times", n)
		}
		var got []string
		for _, p := range l.Items {
			got = append(got, p.Name)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("hub list %v, want %v", got, want)
		}
		_, cur, _ := pods.Get(ctx, "default/p00")
		if l.ResourceVersion == "" {
			t.Fatal("the hub's list has no version")
		}
		if c, err := pods.CompareResourceVersions(l.ResourceVersion, cur); err != nil || c < 0 {
			t.Fatalf("hub list at %s, older than p00's last write %s (%v)", l.ResourceVersion, cur, err)
		}

		// At an exact version — what source.Filter seeds a watch from —
		// the hub undoes the later events of its ring: the same pods at
		// the same versions as the store's list at that version.
		names := func(l source.List[*api.Pod]) []string {
			var out []string
			for _, p := range l.Items {
				if p.Spec.NodeName == "n1" {
					out = append(out, p.Name+"@"+p.ResourceVersion)
				}
			}
			return out
		}
		for _, rv := range rvs {
			exact := source.ListOptions{ResourceVersion: rv, ResourceVersionMatch: source.Exact}
			lists := mem.ListCalls()
			hub, err := lw.List(ctx, exact)
			if err != nil {
				t.Fatal(err)
			}
			if n := mem.ListCalls() - lists; n != 0 {
				t.Fatalf("the list at exactly %s read the store %d times", rv, n)
			}
			store, err := all.List(ctx, exact)
			if err != nil {
				t.Fatal(err)
			}
			if hub.ResourceVersion != rv || !slices.Equal(names(hub), names(store)) {
				t.Fatalf("at exactly %s: hub %s %v, store %v", rv, hub.ResourceVersion, names(hub), names(store))
			}
		}

		// What the hub cannot answer reads the store: the latest, more
		// items than the limit.
		for _, opts := range []source.ListOptions{
			{},
			{ResourceVersion: first, Limit: 5},
		} {
			lists := mem.ListCalls()
			if _, err := lw.List(ctx, opts); err != nil {
				t.Fatalf("%+v: %v", opts, err)
			}
			if mem.ListCalls() == lists {
				t.Fatalf("%+v was not read from the store", opts)
			}
		}
	})
}
