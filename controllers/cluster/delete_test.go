package cluster_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/source"
)

// Graceful deletion of pods at explicit instants, in virtual time.
func TestDeletePodGracePeriods(t *testing.T) {
	type step struct {
		after time.Duration // virtual time passed before the delete
		grace *int64        // DeleteOptions.GracePeriodSeconds
		// want: removed, or the deletion fields left, relative to the
		// bubble's start.
		removed  bool
		deadline time.Duration
		left     int64
	}
	cases := []struct {
		name    string
		spec    *int64 // spec.terminationGracePeriodSeconds
		bound   bool
		phase   api.PodPhase
		fins    []string
		steps   []step
		genWant int64
	}{
		{name: "DefaultGrace", bound: true, steps: []step{
			{deadline: 30 * time.Second, left: 30},
			{after: 10 * time.Second, deadline: 30 * time.Second, left: 30}, // again: unchanged
			{after: 5 * time.Second, grace: ptr(int64(0)), removed: true},   // the kubelet confirms
		}},
		{name: "SpecGrace", bound: true, spec: ptr(int64(90)), steps: []step{
			{deadline: 90 * time.Second, left: 90},
			{after: 20 * time.Second, grace: ptr(int64(10)), deadline: 30 * time.Second, left: 10}, // shortened from now
			{after: time.Second, grace: ptr(int64(60)), deadline: 30 * time.Second, left: 10},      // never lengthened
		}},
		{name: "ZeroGraceAtOnce", bound: true, steps: []step{{grace: ptr(int64(0)), removed: true}}},
		{name: "Unscheduled", steps: []step{{removed: true}}},
		{name: "Succeeded", bound: true, phase: api.PodSucceeded, steps: []step{{removed: true}}},
		{name: "FinalizerOutlivesGraceZero", bound: true, fins: []string{"example.com/keep"}, steps: []step{
			{grace: ptr(int64(0)), deadline: 0, left: 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				start := time.Now().UTC()
				c := newMemory(t, cluster.Options{})
				p := clustertest.Pod("default", "p", nil)
				p.Spec.TerminationGracePeriodSeconds = tc.spec
				p.Finalizers = tc.fins
				if _, err := c.Pods().Create(ctx, p); err != nil {
					t.Fatal(err)
				}
				if tc.bound {
					if _, err := c.Bind(ctx, "default", "p", "n1"); err != nil {
						t.Fatal(err)
					}
				}
				if tc.phase != "" {
					p, _, _ := c.Pods().Get(ctx, "default/p")
					p.Status.Phase = tc.phase
					if _, err := c.Pods().UpdateStatus(ctx, p); err != nil {
						t.Fatal(err)
					}
				}
				var elapsed time.Duration
				for i, st := range tc.steps {
					time.Sleep(st.after)
					elapsed += st.after
					if _, err := c.Pods().DeleteWith(ctx, "default/p", cluster.DeleteOptions{GracePeriodSeconds: st.grace}); err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					got, _, err := c.Pods().Get(ctx, "default/p")
					if st.removed {
						if !errors.Is(err, source.ErrNotFound) {
							t.Fatalf("step %d: %v, want removed", i, err)
						}
						continue
					}
					if err != nil {
						t.Fatalf("step %d: %v", i, err)
					}
					if got.DeletionTimestamp == nil || !got.DeletionTimestamp.Equal(start.Add(st.deadline)) {
						t.Errorf("step %d: deletionTimestamp %v, want start+%v", i, got.DeletionTimestamp, st.deadline)
					}
					if *got.DeletionGracePeriodSeconds != st.left {
						t.Errorf("step %d: deletionGracePeriodSeconds %d, want %d", i, *got.DeletionGracePeriodSeconds, st.left)
					}
					if got.Generation != 2 {
						t.Errorf("step %d: generation %d, want 2 (bumped once)", i, got.Generation)
					}
				}
			})
		})
	}
}

// An object with finalizers waits for them, whatever the grace period;
// with a pending grace period a pod outlives its last finalizer.
func TestDeleteFinalizerAndGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		c := newMemory(t, cluster.Options{})
		p := clustertest.Pod("default", "p", nil)
		p.Finalizers = []string{"example.com/keep"}
		if _, err := c.Pods().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Bind(ctx, "default", "p", "n1"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Pods().Delete(ctx, "default/p", ""); err != nil {
			t.Fatal(err)
		}
		got, _, _ := c.Pods().Get(ctx, "default/p")
		got.Finalizers = nil
		if _, err := c.Pods().Update(ctx, got, ""); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Pods().Get(ctx, "default/p"); err != nil {
			t.Fatalf("pod with a pending grace period removed with its last finalizer: %v", err)
		}
		if _, err := c.Pods().DeleteWith(ctx, "default/p", cluster.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Pods().Get(ctx, "default/p"); !errors.Is(err, source.ErrNotFound) {
			t.Fatalf("after grace 0: %v", err)
		}
	})
}

// The finalizers a delete leaves, for each policy and starting set
// (kube-apiserver's deletionFinalizersForGarbageCollection).
func TestDeletePropagationFinalizers(t *testing.T) {
	cases := []struct {
		policy cluster.PropagationPolicy
		start  []string
		want   []string // nil: removed
	}{
		{"", nil, nil},
		{"", []string{"orphan"}, []string{"orphan"}},
		{"", []string{"foregroundDeletion"}, []string{"foregroundDeletion"}},
		{cluster.DeletePropagationBackground, []string{"orphan", "x.io/f"}, []string{"x.io/f"}},
		{cluster.DeletePropagationOrphan, nil, []string{"orphan"}},
		{cluster.DeletePropagationOrphan, []string{"foregroundDeletion"}, []string{"orphan"}},
		{cluster.DeletePropagationForeground, []string{"x.io/f"}, []string{"x.io/f", "foregroundDeletion"}},
		{cluster.DeletePropagationForeground, []string{"orphan"}, []string{"foregroundDeletion"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.policy)+jsonOf(tc.start), func(t *testing.T) {
			ctx := context.Background()
			c := newMemory(t, cluster.Options{})
			d := clustertest.Deployment("default", "d")
			d.Finalizers = tc.start
			if _, err := c.Deployments().Create(ctx, d); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Deployments().DeleteWith(ctx, "default/d", cluster.DeleteOptions{PropagationPolicy: tc.policy}); err != nil {
				t.Fatal(err)
			}
			got, _, err := c.Deployments().Get(ctx, "default/d")
			if tc.want == nil {
				if !errors.Is(err, source.ErrNotFound) {
					t.Fatalf("%v, want removed", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if jsonOf(got.Finalizers) != jsonOf(tc.want) || got.DeletionTimestamp == nil {
				t.Errorf("finalizers %v (deletionTimestamp %v), want %v", got.Finalizers, got.DeletionTimestamp, tc.want)
			}
		})
	}
	c := newMemory(t, cluster.Options{})
	if _, err := c.Pods().DeleteWith(context.Background(), "default/x", cluster.DeleteOptions{PropagationPolicy: "Sideways"}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("unknown policy: %v", err)
	}
}

// Update and UpdateStatus, case by case: what bumps the generation, what
// is written.
func TestGenerationAndStatus(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name     string
		change   func(d *api.Deployment)
		status   bool // through UpdateStatus
		wantGen  int64
		written  bool
		replicas int32 // status.replicas after
	}{
		{"Nothing", func(d *api.Deployment) {}, false, 1, false, 0},
		{"Label", func(d *api.Deployment) { d.Labels = map[string]string{"a": "b"} }, false, 1, true, 0},
		{"Annotation", func(d *api.Deployment) { d.Annotations = map[string]string{"a": "b"} }, false, 1, true, 0},
		{"Spec", func(d *api.Deployment) { d.Spec.MinReadySeconds = 5 }, false, 2, true, 0},
		{"SpecDefaultedValue", func(d *api.Deployment) { d.Spec.Replicas = nil }, false, 1, false, 0}, // defaults back to 1
		{"StatusByUpdate", func(d *api.Deployment) { d.Status.Replicas = 3 }, false, 1, false, 0},
		{"StatusByUpdateStatus", func(d *api.Deployment) { d.Status.Replicas = 3 }, true, 1, true, 3},
		{"SpecByUpdateStatus", func(d *api.Deployment) { d.Spec.MinReadySeconds = 5 }, true, 1, false, 0},
		// A different uid is not ignored but a precondition (IsConflict): clienttest's UpdateUIDPrecondition.
		{"ServerFieldsIgnored", func(d *api.Deployment) { d.Generation = 9; d.CreationTimestamp = api.Time{} }, false, 1, false, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newMemory(t, cluster.Options{})
			d := clustertest.Deployment("default", "d")
			rv, err := c.Deployments().Create(ctx, d)
			if err != nil {
				t.Fatal(err)
			}
			uid := d.UID
			tc.change(d)
			var rv2 string
			if tc.status {
				rv2, err = c.Deployments().UpdateStatus(ctx, d)
			} else {
				rv2, err = c.Deployments().Update(ctx, d, "")
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _, _ := c.Deployments().Get(ctx, "default/d")
			if got.Generation != tc.wantGen || (rv2 != rv) != tc.written || got.Status.Replicas != tc.replicas || got.UID != uid {
				t.Errorf("generation %d (want %d), written %v (want %v), status.replicas %d (want %d), uid kept %v",
					got.Generation, tc.wantGen, rv2 != rv, tc.written, got.Status.Replicas, tc.replicas, got.UID == uid)
			}
			if jsonOf(got) != jsonOf(d) {
				t.Errorf("the caller's object is not the stored one:\n%s\n%s", jsonOf(d), jsonOf(got))
			}
		})
	}
}
