package clienttest

import (
	"slices"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// DeleteWith's preconditions: a uid or resourceVersion that does not
// match is IsConflict and deletes nothing.
func testDeletePreconditions(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	rv, err := cms.Create(e.ctx, cm)
	must(t, err)
	_, err = cms.DeleteWith(e.ctx, ns+"/a", client.DeleteOptions{Preconditions: client.Preconditions{UID: "00000000-0000-0000-0000-000000000000"}})
	wantErr(t, "delete with another uid", err, "IsConflict")
	cm.Data = map[string]string{"k": "v"}
	_, err = cms.Update(e.ctx, cm, "")
	must(t, err)
	_, err = cms.DeleteWith(e.ctx, ns+"/a", client.DeleteOptions{Preconditions: client.Preconditions{ResourceVersion: rv}})
	wantErr(t, "delete with a stale resourceVersion", err, "IsConflict")
	_, err = cms.Delete(e.ctx, ns+"/a", rv)
	wantErr(t, "Delete with a stale ifVersion", err, "IsConflict")
	if _, _, err := cms.Get(e.ctx, ns+"/a"); err != nil {
		t.Fatalf("a failed precondition deleted the object: %v", err)
	}
	_, err = cms.DeleteWith(e.ctx, ns+"/a", client.DeleteOptions{Preconditions: client.Preconditions{UID: cm.UID, ResourceVersion: cm.ResourceVersion}})
	must(t, err)
	_, _, err = cms.Get(e.ctx, ns+"/a")
	wantErr(t, "get the deleted object", err, "IsNotFound")
	_, err = cms.Delete(e.ctx, ns+"/a", "")
	wantErr(t, "delete a missing object", err, "IsNotFound")
}

// The Background policy, and no policy, remove an object without
// finalizers at once; watchers see it Deleted.
func testDeleteBackground(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	var rv string
	for _, name := range []string{"a", "b"} {
		var err error
		rv, err = cms.Create(e.ctx, ConfigMap(ns, name, nil))
		must(t, err)
	}
	events := watch(t, e, cms, client.SelectOptions{Namespace: ns}, rv)
	for _, tc := range []struct {
		name   string
		policy client.PropagationPolicy
	}{{"a", ""}, {"b", client.DeletePropagationBackground}} {
		_, err := cms.DeleteWith(e.ctx, ns+"/"+tc.name, client.DeleteOptions{PropagationPolicy: tc.policy})
		must(t, err)
		_, _, err = cms.Get(e.ctx, ns+"/"+tc.name)
		wantErr(t, "get after a "+string(tc.policy)+" delete", err, "IsNotFound")
		expect(t, nextChange(t, e, events), source.Deleted, tc.name)
	}
}

// deleteMarked deletes a config map with policy and checks it stays,
// marked, with finalizer; removing the finalizer then removes it.
func deleteMarked(t *testing.T, e *env, policy client.PropagationPolicy, finalizer string) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	_, err := cms.Create(e.ctx, cm)
	must(t, err)
	rv, err := cms.DeleteWith(e.ctx, ns+"/a", client.DeleteOptions{PropagationPolicy: policy})
	must(t, err)
	got, gotRV, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if got.DeletionTimestamp == nil || !slices.Contains(got.Finalizers, finalizer) || got.UID != cm.UID {
		t.Fatalf("%s delete: deletionTimestamp %v finalizers %v, want it marked with %q", policy, got.DeletionTimestamp, got.Finalizers, finalizer)
	}
	if rv != gotRV {
		t.Errorf("DeleteWith returned %q, the marked object is at %q", rv, gotRV)
	}
	got.Finalizers = slices.DeleteFunc(got.Finalizers, func(f string) bool { return f == finalizer })
	_, err = cms.Update(e.ctx, got, "")
	must(t, err)
	_, _, err = cms.Get(e.ctx, ns+"/a")
	wantErr(t, "get after the finalizer is removed", err, "IsNotFound")
}

// The Orphan policy marks the object with the "orphan" finalizer.
func testDeleteOrphan(t *testing.T, e *env) {
	deleteMarked(t, e, client.DeletePropagationOrphan, client.FinalizerOrphanDependents)
}

// The Foreground policy marks the object with the "foregroundDeletion"
// finalizer.
func testDeleteForeground(t *testing.T, e *env) {
	deleteMarked(t, e, client.DeletePropagationForeground, client.FinalizerDeleteDependents)
}

// An object with a finalizer is marked (Modified, with a
// deletionTimestamp), and removed (Deleted) when an Update clears its
// finalizers.
func testDeleteFinalizer(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	cm.Finalizers = []string{"example.com/keep"}
	rv, err := cms.Create(e.ctx, cm)
	must(t, err)
	events := watch(t, e, cms, client.SelectOptions{Namespace: ns}, rv)
	_, err = cms.Delete(e.ctx, ns+"/a", "")
	must(t, err)
	ev := nextChange(t, e, events)
	expect(t, ev, source.Modified, "a")
	if ev.Object.DeletionTimestamp == nil || !slices.Equal(ev.Object.Finalizers, []string{"example.com/keep"}) {
		t.Fatalf("marked object: deletionTimestamp %v finalizers %v", ev.Object.DeletionTimestamp, ev.Object.Finalizers)
	}
	got, _, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if got.DeletionTimestamp == nil {
		t.Fatal("Get does not see the deletionTimestamp")
	}
	got.Finalizers = nil
	_, err = cms.Update(e.ctx, got, "")
	must(t, err)
	expect(t, nextChange(t, e, events), source.Deleted, "a")
	_, _, err = cms.Get(e.ctx, ns+"/a")
	wantErr(t, "get after the finalizers are cleared", err, "IsNotFound")
}

// A pod bound to a node is deleted gracefully: marked with its grace
// period, it stays until deleted with grace period 0. A pod never bound
// is removed at once.
func testDeletePodGraceful(t *testing.T, e *env) {
	ns := e.namespace(t)
	pods := resource[*api.Pod](t, e)
	binder, err := client.BinderFor(e.c)
	must(t, err)
	_, err = pods.Create(e.ctx, Pod(ns, "pending", nil))
	must(t, err)
	_, err = pods.Delete(e.ctx, ns+"/pending", "")
	must(t, err)
	_, _, err = pods.Get(e.ctx, ns+"/pending")
	wantErr(t, "get an unbound pod after delete", err, "IsNotFound")

	rv, err := pods.Create(e.ctx, Pod(ns, "running", nil))
	must(t, err)
	events := watch(t, e, pods, client.SelectOptions{Namespace: ns}, rv)
	_, err = binder.Bind(e.ctx, ns, "running", "clienttest-node")
	must(t, err)
	// kube-apiserver decides a pod's grace period first on its watch
	// cache's copy, and the decision sticks when etcd's copy is read
	// next: a delete racing the binding into that cache removes the pod
	// at once, as if never bound (a lagging cache on a loaded machine).
	// A watch is served from that cache, so once the binding shows in
	// one the delete is graceful.
	for bound := false; !bound; {
		ev := nextChange(t, e, events)
		if ev.Type != source.Modified {
			t.Fatalf("after Bind: %v, want Modified", ev.Type)
		}
		bound = ev.Object.Spec.NodeName == "clienttest-node"
	}
	_, err = pods.Delete(e.ctx, ns+"/running", "")
	must(t, err)
	p, _, err := pods.Get(e.ctx, ns+"/running")
	must(t, err)
	if p.DeletionTimestamp == nil || p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != 30 {
		t.Fatalf("graceful delete: deletionTimestamp %v grace %v, want marked with 30s", p.DeletionTimestamp, p.DeletionGracePeriodSeconds)
	}
	// The kubelet confirms that the containers stopped.
	_, err = pods.DeleteWith(e.ctx, ns+"/running", client.DeleteOptions{GracePeriodSeconds: new(int64)})
	must(t, err)
	_, _, err = pods.Get(e.ctx, ns+"/running")
	wantErr(t, "get after a grace-0 delete", err, "IsNotFound")
}
