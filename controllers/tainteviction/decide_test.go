package tainteviction_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// The helpers of kcm's taint_eviction_test.go: createNoExecuteTaint and
// addToleration (a negative duration tolerates forever).
func noExecuteTaint(i int) api.Taint {
	return api.Taint{Key: fmt.Sprintf("testTaint%d", i), Value: fmt.Sprintf("test%d", i), Effect: api.TaintEffectNoExecute}
}

func toleration(i int, seconds int64) api.Toleration {
	t := api.Toleration{Key: fmt.Sprintf("testTaint%d", i), Value: fmt.Sprintf("test%d", i), Effect: api.TaintEffectNoExecute}
	if seconds >= 0 {
		t.TolerationSeconds = &seconds
	}
	return t
}

func pod(tolerations ...api.Toleration) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pod1"}}
	p.Spec.NodeName, p.Spec.Tolerations = "node1", tolerations
	return p
}

func taints(is ...int) []api.Taint {
	var out []api.Taint
	for _, i := range is {
		out = append(out, noExecuteTaint(i))
	}
	return out
}

func secs(s int64) *int64 { return &s }

// kcm's TestGetMinTolerationTime (pkg/controller/tainteviction/taint_eviction_test.go).
func TestMinTolerationTime(t *testing.T) {
	tests := []struct {
		tolerations []api.Toleration
		want        time.Duration
		bounded     bool
	}{
		{nil, 0, true},
		{[]api.Toleration{{TolerationSeconds: nil}}, 0, false},
		{[]api.Toleration{{TolerationSeconds: secs(1)}, {TolerationSeconds: secs(2)}}, time.Second, true},
		{[]api.Toleration{{TolerationSeconds: secs(1)}, {TolerationSeconds: nil}}, time.Second, true},
		{[]api.Toleration{{TolerationSeconds: nil}, {TolerationSeconds: secs(1)}}, time.Second, true},
		{[]api.Toleration{{TolerationSeconds: secs(300)}, {TolerationSeconds: secs(0)}}, 0, true},
		{[]api.Toleration{{TolerationSeconds: secs(-5)}}, 0, true},
	}
	for i, tt := range tests {
		d, bounded := tainteviction.MinTolerationTime(tt.tolerations)
		require.Equal(t, tt.want, d, i)
		require.Equal(t, tt.bounded, bounded, i)
	}
}

// The cases of kcm's TestCreatePod, TestUpdatePod, TestCreateNode and
// TestUpdateNode (pkg/controller/tainteviction/taint_eviction_test.go),
// as one decision each; evictAt is the delay from now, -1 for none.
func TestDecide(t *testing.T) {
	pending := func(createdAgo, firesIn time.Duration) *tainteviction.Pending {
		return &tainteviction.Pending{CreatedAt: now.Add(-createdAgo), FireAt: now.Add(firesIn)}
	}
	ds := pod()
	ds.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "fluentd", UID: "u1", Controller: ptr(true)}}
	terminating := pod()
	terminating.DeletionTimestamp = ptr(api.NewTime(now))
	tests := []struct {
		name    string
		pod     *api.Pod
		taints  []api.Taint
		pending *tainteviction.Pending
		cancel  bool
		evictIn time.Duration // -1: nothing scheduled
		keep    bool          // the pending eviction stays as it is
	}{
		{name: "scheduled on untainted Node", pod: pod(), evictIn: -1},
		{name: "schedule on tainted Node", pod: pod(), taints: taints(1), evictIn: 0},
		{name: "schedule on tainted Node with finite toleration", pod: pod(toleration(1, 100)), taints: taints(1), evictIn: 100 * time.Second},
		{name: "schedule on tainted Node with infinite toleration", pod: pod(toleration(1, -1)), taints: taints(1), evictIn: -1},
		{name: "schedule on tainted Node with infinite invalid toleration", pod: pod(toleration(2, -1)), taints: taints(1), evictIn: 0},
		{name: "removing toleration", pod: pod(), taints: taints(1), pending: pending(0, 100*time.Second), cancel: true, evictIn: 0},
		{name: "lengthening toleration shouldn't work", pod: pod(toleration(1, 100)), taints: taints(1),
			pending: pending(time.Second, 0), keep: true, evictIn: -1},
		{name: "shortening a toleration brings the eviction forward", pod: pod(toleration(1, 10)), taints: taints(1),
			pending: pending(0, 100*time.Second), cancel: true, evictIn: 10 * time.Second},
		{name: "shortening the toleration of an older pending eviction does not (kcm's quirk)", pod: pod(toleration(1, 10)), taints: taints(1),
			pending: pending(time.Second, 99*time.Second), keep: true, evictIn: -1},
		{name: "re-deciding at the same instant keeps an identical eviction", pod: pod(toleration(1, 100)), taints: taints(1),
			pending: pending(0, 100*time.Second), keep: true, evictIn: -1},
		{name: "Only one added taint tolerated", pod: pod(toleration(1, 100)), taints: taints(1, 2), evictIn: 0},
		{name: "Taint removed", pod: pod(toleration(1, 1)), pending: pending(0, time.Second), cancel: true, evictIn: -1},
		{name: "Pod with multiple tolerations are evicted when first one runs out",
			pod: pod(toleration(1, 1), toleration(2, 100)), taints: taints(1, 2), evictIn: time.Second},
		{name: "temporarily tolerated taint -> infinitely tolerated taint",
			pod: pod(toleration(1, -1), toleration(2, 60)), taints: taints(1), pending: pending(0, time.Minute), cancel: true, evictIn: -1},
		{name: "infinitely tolerated taint -> temporarily tolerated taint",
			pod: pod(toleration(1, -1), toleration(2, 60)), taints: taints(1, 2), evictIn: time.Minute},
		{name: "a DaemonSet pod is never evicted", pod: ds, taints: taints(1), evictIn: -1},
		{name: "a DaemonSet pod's pending eviction is cancelled", pod: ds, taints: taints(1), pending: pending(0, 0), cancel: true, evictIn: -1},
		{name: "a terminating pod is left to its kubelet", pod: terminating, taints: taints(1), evictIn: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tainteviction.Decide(tt.pod, tt.taints, tt.pending, now)
			require.Equal(t, tt.cancel, d.Cancel, "cancel")
			if tt.evictIn < 0 {
				require.Nil(t, d.Schedule)
				return
			}
			require.NotNil(t, d.Schedule)
			require.Equal(t, now.Add(tt.evictIn), d.Schedule.FireAt)
			if tt.pending != nil && !tt.cancel {
				require.Equal(t, tt.pending.CreatedAt, d.Schedule.CreatedAt)
			}
		})
	}
}

// The default tolerations the store adds (not-ready and unreachable, 300
// s) hold a pod on an unreachable node for five minutes.
func TestDecideDefaultTolerations(t *testing.T) {
	p := pod(
		api.Toleration{Key: "node.kubernetes.io/not-ready", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: secs(300)},
		api.Toleration{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: secs(300)},
	)
	unreachable := []api.Taint{{Key: "node.kubernetes.io/unreachable", Effect: api.TaintEffectNoExecute}}
	d := tainteviction.Decide(p, unreachable, nil, now)
	require.Equal(t, now.Add(5*time.Minute), d.Schedule.FireAt)
	// Re-deciding later keeps the first deadline.
	d2 := tainteviction.Decide(p, unreachable, d.Schedule, now.Add(time.Minute))
	require.False(t, d2.Cancel)
	require.Nil(t, d2.Schedule)
}

func TestNoExecuteTaints(t *testing.T) {
	ts := []api.Taint{{Key: "one", Value: "one", Effect: api.TaintEffectNoExecute}, {Key: "two", Value: "two", Effect: api.TaintEffectNoSchedule}}
	got := tainteviction.NoExecuteTaints(ts)
	require.Len(t, got, 1)
	require.Equal(t, "one", got[0].Key)
}

func ptr[V any](v V) *V { return &v }
