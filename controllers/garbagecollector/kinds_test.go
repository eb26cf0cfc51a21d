package garbagecollector_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// TestCollectsDependentsOfEveryKind checks that the collector watches
// every built-in kind (ownkinds_test.go has the registered ones): a sample of each kind (from
// controllers/api/testdata/kinds.yaml), owned by a ConfigMap (a Node for
// cluster-scoped kinds), goes once its owner is deleted. The collector
// learns an object's owners only from the informer of its kind, so a
// registered kind it does not watch keeps its orphaned sample — as the
// Event does, which the collector ignores as kcm does.
func TestCollectsDependentsOfEveryKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		samples, err := api.DecodeFile("../api/testdata/kinds.yaml", api.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cmOwner := e.configMap("default", "owner")
		nodeOwner := &api.Node{ObjectMeta: api.ObjectMeta{Name: "owner"}}
		if _, err := e.c.Nodes().Create(e.ctx, nodeOwner); err != nil {
			t.Fatal(err)
		}
		ref := func(o api.Object) api.OwnerReference {
			g := o.GroupVersionKind()
			m := o.GetObjectMeta()
			return api.OwnerReference{APIVersion: g.APIVersion(), Kind: g.Kind, Name: m.Name, UID: m.UID}
		}
		for _, s := range samples {
			owner := ref(nodeOwner)
			if api.IsNamespaced(s.GroupVersionKind().Kind) {
				owner = ref(cmOwner)
			}
			s.GetObjectMeta().OwnerReferences = []api.OwnerReference{owner}
			if _, err := e.c.CreateObject(e.ctx, s); err != nil {
				t.Fatalf("create %s: %v", s.GroupVersionKind().Kind, err)
			}
		}
		e.settle()
		if _, err := e.c.ConfigMaps().Delete(e.ctx, "default/owner", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := e.c.Nodes().Delete(e.ctx, "owner", ""); err != nil {
			t.Fatal(err)
		}
		e.settle()
		if len(samples) != len(api.Kinds()) {
			t.Fatalf("%d samples for %d built-in kinds", len(samples), len(api.Kinds()))
		}
		for _, s := range samples {
			kind := s.GroupVersionKind()
			r, err := e.c.ResourceFor(kind)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := getObject(e.ctx, r, api.Key(s))
			if kind.Kind == "Event" && kind.Group == "" {
				if err != nil {
					t.Errorf("the Event went (%v): events are not collected", err)
				}
				continue
			}
			switch {
			case errors.Is(err, source.ErrNotFound):
			case err != nil:
				t.Fatalf("get %s: %v", kind.Kind, err)
			case obj.GetObjectMeta().DeletionTimestamp == nil:
				t.Errorf("%s %s outlived its owner: the collector does not watch its kind", kind.Kind, api.Key(s))
			}
		}
	})
}

// getObject calls r.Get(ctx, key) on a client.Resource[T] whose T the caller
// does not know (the test goes over every kind).
func getObject(ctx context.Context, r any, key string) (api.Object, error) {
	out := reflect.ValueOf(r).MethodByName("Get").Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(key)})
	if err, _ := out[2].Interface().(error); err != nil {
		return nil, err
	}
	return out[0].Interface().(api.Object), nil
}
