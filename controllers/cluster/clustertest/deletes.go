package clustertest

import (
	"errors"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

func testDeleteFinalizers(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "cm", Finalizers: []string{"example.com/a", "example.com/b"}}}
	_, err := c.ConfigMaps().Create(ctx, cm)
	must(t, err)
	_, err = c.ConfigMaps().Delete(ctx, "default/cm", "")
	must(t, err)
	got, _, err := c.ConfigMaps().Get(ctx, "default/cm")
	must(t, err)
	if got.DeletionTimestamp == nil || got.DeletionGracePeriodSeconds == nil || *got.DeletionGracePeriodSeconds != 0 {
		t.Fatalf("deleting object: %+v", got.ObjectMeta)
	}
	// No new finalizers, no other change.
	got.Finalizers = append(got.Finalizers, "example.com/c")
	if _, err := c.ConfigMaps().Update(ctx, got, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("adding a finalizer while deleting: %v", err)
	}
	got, _, _ = c.ConfigMaps().Get(ctx, "default/cm")
	got.Data = map[string]string{"k": "v"}
	if _, err := c.ConfigMaps().Update(ctx, got, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("changing data while deleting: %v", err)
	}
	got, _, _ = c.ConfigMaps().Get(ctx, "default/cm")
	got.Finalizers = []string{"example.com/b"}
	_, err = c.ConfigMaps().Update(ctx, got, "")
	must(t, err)
	if _, _, err := c.ConfigMaps().Get(ctx, "default/cm"); err != nil {
		t.Fatalf("removed with a finalizer left: %v", err)
	}
	got.Finalizers = nil
	_, err = c.ConfigMaps().Update(ctx, got, "")
	must(t, err)
	if _, _, err := c.ConfigMaps().Get(ctx, "default/cm"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("the last finalizer removed: %v, want the object gone", err)
	}
}

func testDeletePropagation(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	cases := []struct {
		policy cluster.PropagationPolicy
		want   []string // nil: removed
	}{
		{"", nil},
		{cluster.DeletePropagationBackground, nil},
		{cluster.DeletePropagationOrphan, []string{cluster.FinalizerOrphanDependents}},
		{cluster.DeletePropagationForeground, []string{cluster.FinalizerDeleteDependents}},
	}
	for i, tc := range cases {
		name := "rs" + string(rune('a'+i))
		rs := &api.ReplicaSet{
			ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.ReplicaSetSpec{
				Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: Deployment("", name).Spec.Template,
			},
		}
		_, err := c.ReplicaSets().Create(ctx, rs)
		must(t, err)
		_, err = c.ReplicaSets().DeleteWith(ctx, "default/"+name, cluster.DeleteOptions{PropagationPolicy: tc.policy})
		must(t, err)
		got, _, err := c.ReplicaSets().Get(ctx, "default/"+name)
		if tc.want == nil {
			if !errors.Is(err, source.ErrNotFound) {
				t.Errorf("%q: %v, want removed", tc.policy, err)
			}
			continue
		}
		must(t, err)
		if got.DeletionTimestamp == nil || len(got.Finalizers) != 1 || got.Finalizers[0] != tc.want[0] || got.Generation != 2 {
			t.Errorf("%q: finalizers %v, deletionTimestamp %v, generation %d", tc.policy, got.Finalizers, got.DeletionTimestamp, got.Generation)
		}
		// A second delete with another policy swaps the finalizer; a
		// background one removes the object.
		_, err = c.ReplicaSets().DeleteWith(ctx, "default/"+name, cluster.DeleteOptions{PropagationPolicy: cluster.DeletePropagationBackground})
		must(t, err)
		if _, _, err := c.ReplicaSets().Get(ctx, "default/"+name); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("%q then Background: %v, want removed", tc.policy, err)
		}
	}
}

func testDeletePodGraceful(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	// Never scheduled: removed at once.
	_, err := c.Pods().Create(ctx, Pod("default", "pending", nil))
	must(t, err)
	_, err = c.Pods().Delete(ctx, "default/pending", "")
	must(t, err)
	if _, _, err := c.Pods().Get(ctx, "default/pending"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("unscheduled pod: %v, want removed", err)
	}
	// Bound: graceful.
	_, err = c.Pods().Create(ctx, Pod("default", "running", nil))
	must(t, err)
	_, err = c.Bind(ctx, "default", "running", "n1")
	must(t, err)
	before := time.Now().Truncate(time.Second)
	_, err = c.Pods().Delete(ctx, "default/running", "")
	must(t, err)
	after := time.Now()
	p, _, err := c.Pods().Get(ctx, "default/running")
	must(t, err)
	if p.DeletionTimestamp == nil || *p.DeletionGracePeriodSeconds != 30 {
		t.Fatalf("graceful delete: %+v", p.ObjectMeta)
	}
	if ts := p.DeletionTimestamp.Time; ts.Before(before.Add(30*time.Second)) || ts.After(after.Add(30*time.Second)) {
		t.Errorf("deletionTimestamp %v, want now+30s", ts)
	}
	// Shorten, never lengthen.
	_, err = c.Pods().DeleteWith(ctx, "default/running", cluster.DeleteOptions{GracePeriodSeconds: ptr(int64(60))})
	must(t, err)
	p, _, _ = c.Pods().Get(ctx, "default/running")
	if *p.DeletionGracePeriodSeconds != 30 {
		t.Errorf("lengthened to %d", *p.DeletionGracePeriodSeconds)
	}
	_, err = c.Pods().DeleteWith(ctx, "default/running", cluster.DeleteOptions{GracePeriodSeconds: ptr(int64(5))})
	must(t, err)
	p, _, _ = c.Pods().Get(ctx, "default/running")
	if *p.DeletionGracePeriodSeconds != 5 {
		t.Errorf("shortened to %d, want 5", *p.DeletionGracePeriodSeconds)
	}
	// The status may still change (the kubelet reports); the spec not.
	p.Status.Phase = api.PodRunning
	_, err = c.Pods().UpdateStatus(ctx, p)
	must(t, err)
	// The kubelet confirms.
	_, err = c.Pods().DeleteWith(ctx, "default/running", cluster.DeleteOptions{GracePeriodSeconds: new(int64)})
	must(t, err)
	if _, _, err := c.Pods().Get(ctx, "default/running"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("after grace 0: %v, want removed", err)
	}
}

func testDeletePreconditions(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	p := Pod("default", "a", nil)
	rv, err := c.Pods().Create(ctx, p)
	must(t, err)
	if _, err := c.Pods().DeleteWith(ctx, "default/a", cluster.DeleteOptions{Preconditions: cluster.Preconditions{UID: "other"}}); !errors.Is(err, source.ErrConflict) {
		t.Errorf("uid precondition: %v", err)
	}
	p.Labels = map[string]string{"a": "b"}
	_, err = c.Pods().Update(ctx, p, "")
	must(t, err)
	if _, err := c.Pods().Delete(ctx, "default/a", rv); !errors.Is(err, source.ErrConflict) {
		t.Errorf("stale resourceVersion: %v", err)
	}
	_, err = c.Pods().DeleteWith(ctx, "default/a", cluster.DeleteOptions{Preconditions: cluster.Preconditions{UID: p.UID, ResourceVersion: p.ResourceVersion}})
	must(t, err)
	if _, err := c.Pods().Delete(ctx, "default/a", ""); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("delete missing: %v", err)
	}
}
