package replicaset

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

type podOpt func(*api.Pod)

func pod(name string, opts ...podOpt) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: api.UID("uid-" + name),
		Labels: map[string]string{"app": "web"}, CreationTimestamp: api.NewTime(t0.Add(-time.Hour))}}
	p.Spec.NodeName = "n1"
	p.Status.Phase = api.PodRunning
	for _, o := range opts {
		o(p)
	}
	return p
}

func unscheduled(p *api.Pod) { p.Spec.NodeName = "" }
func pending(p *api.Pod)     { p.Status.Phase = api.PodPending }
func readySince(ago time.Duration) podOpt {
	return func(p *api.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue,
			LastTransitionTime: api.NewTime(t0.Add(-ago))})
	}
}
func labels(kv ...string) podOpt {
	return func(p *api.Pod) {
		p.Labels = map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func podNames(ps []*api.Pod) []string {
	out := []string{}
	for _, p := range ps {
		out = append(out, p.Name)
	}
	return out
}

func pods(n int, opts ...podOpt) []*api.Pod {
	var out []*api.Pod
	for i := range n {
		out = append(out, pod(fmt.Sprintf("p%d", i), opts...))
	}
	return out
}

// How many to create or delete, bounded by burstReplicas, as
// manageReplicas decides (replica_set.go; the burst cases of
// replica_set_test.go's TestControllerBurstReplicas).
func TestManageCounts(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		replicas, have       int
		burst                int
		wantCreate, wantDele int
	}{
		{"steady", 3, 3, 500, 0, 0},
		{"scale up from zero", 10, 0, 500, 10, 0},
		{"scale down", 3, 10, 500, 0, 7},
		{"to zero", 0, 3, 500, 0, 3},
		{"create burst", 1000, 0, 500, 500, 0},
		{"delete burst", 0, 700, 500, 0, 500},
		{"small burst", 10, 2, 3, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			create, del := manage(tc.replicas, pods(tc.have), nil, tc.burst, t0)
			require.Equal(t, tc.wantCreate, create)
			require.Len(t, del, tc.wantDele)
		})
	}
}

// Which pods go first on a scale-down: the ones RankForDeletion ranks
// first (getPodsToDelete).
func TestManageWhichToDelete(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas int
		pods     []*api.Pod
		want     []string
	}{
		{"unscheduled first", 2, []*api.Pod{pod("ready", readySince(time.Hour)), pod("nowhere", unscheduled, pending), pod("ready2", readySince(time.Hour))}, []string{"nowhere"}},
		{"pending then not ready", 1, []*api.Pod{pod("ready", readySince(time.Hour)), pod("starting"), pod("pending", pending)}, []string{"pending", "starting"}},
		{"ready for less time first", 1, []*api.Pod{pod("old", readySince(10*time.Hour)), pod("young", readySince(time.Minute))}, []string{"young"}},
		{"deletion cost", 1, []*api.Pod{
			pod("expensive", readySince(time.Hour), func(p *api.Pod) {
				p.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": "100"}
			}),
			pod("cheap", readySince(time.Hour), func(p *api.Pod) {
				p.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": "-5"}
			}),
		}, []string{"cheap"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			create, del := manage(tc.replicas, tc.pods, func() []*api.Pod { return tc.pods }, 500, t0)
			require.Zero(t, create)
			require.Equal(t, tc.want, podNames(del))
		})
	}
}

// FilterActivePods: terminal and terminating pods are not replicas.
func TestIsActive(t *testing.T) {
	going := pod("going", func(p *api.Pod) { ts := api.NewTime(t0); p.DeletionTimestamp = &ts })
	require.True(t, isActive(pod("running")))
	require.True(t, isActive(pod("pending", pending)))
	require.False(t, isActive(pod("done", func(p *api.Pod) { p.Status.Phase = api.PodSucceeded })))
	require.False(t, isActive(pod("failed", func(p *api.Pod) { p.Status.Phase = api.PodFailed })))
	require.False(t, isActive(going))
}

// calculateStatus over explicit instants: counts, availability after
// minReadySeconds (IsPodAvailable: strictly after), the recheck delay,
// and the ReplicaFailure condition.
func TestCalculateStatus(t *testing.T) {
	tmpl := &api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "fe"}}}
	full := labels("app", "web", "tier", "fe")
	failing := errors.New("pods \"web-\" is forbidden: exceeded quota")
	failure := api.ReplicaSetCondition{Type: ReplicaFailure, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0.Add(-time.Minute)),
		Reason: ReasonFailedCreate, Message: "old"}
	for _, tc := range []struct {
		name        string
		replicas    int
		minReady    int32
		pods        []*api.Pod
		prev        []api.ReplicaSetCondition
		manageErr   error
		want        api.ReplicaSetStatus
		wantRecheck time.Duration
	}{
		{name: "empty", replicas: 0, want: api.ReplicaSetStatus{ObservedGeneration: 7}},
		{name: "counts", replicas: 3, pods: []*api.Pod{pod("a", full, readySince(time.Minute)), pod("b", readySince(time.Minute)), pod("c", full)},
			want: api.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2, ObservedGeneration: 7}},
		{name: "minReadySeconds not yet", replicas: 1, minReady: 30, pods: []*api.Pod{pod("a", readySince(10*time.Second))},
			want:        api.ReplicaSetStatus{Replicas: 1, ReadyReplicas: 1, ObservedGeneration: 7},
			wantRecheck: 20*time.Second + time.Nanosecond},
		{name: "minReadySeconds exactly: not yet", replicas: 1, minReady: 30, pods: []*api.Pod{pod("a", readySince(30*time.Second))},
			want:        api.ReplicaSetStatus{Replicas: 1, ReadyReplicas: 1, ObservedGeneration: 7},
			wantRecheck: time.Nanosecond},
		{name: "minReadySeconds passed", replicas: 2, minReady: 30, pods: []*api.Pod{pod("a", readySince(31*time.Second)), pod("b", readySince(5*time.Second))},
			want:        api.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 7},
			wantRecheck: 25*time.Second + time.Nanosecond},
		{name: "failed create sets the condition", replicas: 2, manageErr: failing,
			want: api.ReplicaSetStatus{ObservedGeneration: 7, Conditions: []api.ReplicaSetCondition{{Type: ReplicaFailure,
				Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0), Reason: ReasonFailedCreate, Message: failing.Error()}}}},
		{name: "failed delete", replicas: 0, pods: []*api.Pod{pod("a")}, manageErr: failing,
			want: api.ReplicaSetStatus{Replicas: 1, ObservedGeneration: 7, Conditions: []api.ReplicaSetCondition{{Type: ReplicaFailure,
				Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0), Reason: ReasonFailedDelete, Message: failing.Error()}}}},
		{name: "a set condition stays as it was", replicas: 2, prev: []api.ReplicaSetCondition{failure}, manageErr: failing,
			want: api.ReplicaSetStatus{ObservedGeneration: 7, Conditions: []api.ReplicaSetCondition{failure}}},
		{name: "success clears it", replicas: 2, prev: []api.ReplicaSetCondition{failure},
			want: api.ReplicaSetStatus{ObservedGeneration: 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := spec{replicas: tc.replicas, minReadySeconds: tc.minReady, template: tmpl, generation: 7}
			prev := api.ReplicaSetStatus{Replicas: 9, ReadyReplicas: 9, ObservedGeneration: 6, Conditions: tc.prev}
			got, recheck := calculateStatus(prev, sp, tc.pods, tc.manageErr, t0)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.wantRecheck, recheck)
			require.Equal(t, tc.prev, prev.Conditions, "the cached status is not changed")
		})
	}
}

func TestStatusEqual(t *testing.T) {
	a := api.ReplicaSetStatus{Replicas: 3, ReadyReplicas: 2, ObservedGeneration: 1}
	require.True(t, statusEqual(a, a))
	b := a
	b.AvailableReplicas = 1
	require.False(t, statusEqual(a, b))
	b = a
	b.Conditions = []api.ReplicaSetCondition{{Type: ReplicaFailure}}
	require.False(t, statusEqual(a, b))
}

// The related pods (getIndirectlyRelatedPods) are listed only to rank
// a partial scale-down, not on a sync that creates, deletes all, or
// does nothing.
func TestManageListsRelatedOnlyToRank(t *testing.T) {
	for _, tc := range []struct {
		name          string
		replicas      int
		have          int
		wantListed    bool
		wantCreateDel [2]int
	}{
		{"steady", 3, 3, false, [2]int{0, 0}},
		{"scale up", 5, 3, false, [2]int{2, 0}},
		{"to zero", 0, 3, false, [2]int{0, 3}},
		{"scale down", 1, 3, true, [2]int{0, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			listed := false
			create, del := manage(tc.replicas, pods(tc.have), func() []*api.Pod { listed = true; return nil }, 500, t0)
			require.Equal(t, tc.wantListed, listed)
			require.Equal(t, tc.wantCreateDel, [2]int{create, len(del)})
		})
	}
}

// A selector requiring every template label counts every pod it picks
// as fully labeled without looking at labels; one that does not still
// checks each pod.
func TestCalculateStatusFullyLabeledBySelector(t *testing.T) {
	tmpl := &api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web", "pod-template-hash": "h1"}}}
	full := labels("app", "web", "pod-template-hash", "h1")
	implying := api.SelectorFromSet(map[string]string{"app": "web", "pod-template-hash": "h1"})
	sp := spec{replicas: 2, template: tmpl, selector: implying, generation: 1}
	got, _ := calculateStatus(api.ReplicaSetStatus{}, sp, []*api.Pod{pod("a", full), pod("b", full)}, nil, t0)
	require.Equal(t, int32(2), got.FullyLabeledReplicas)

	partial := api.SelectorFromSet(map[string]string{"app": "web"})
	sp.selector = partial
	got, _ = calculateStatus(api.ReplicaSetStatus{}, sp, []*api.Pod{pod("a", full), pod("b", labels("app", "web"))}, nil, t0)
	require.Equal(t, int32(1), got.FullyLabeledReplicas)
}
