package disruption_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/disruption"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// newPod is kube's newPod: labels foo=bar, Ready.
func newPod(name string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID("uid-" + name),
		Labels: map[string]string{"foo": "bar"}},
		Status: api.PodStatus{Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}}
}

func unready(p *api.Pod) *api.Pod { p.Status.Conditions = nil; return p }

func owned(p *api.Pod, apiVersion, kind, name string) *api.Pod {
	yes := true
	p.OwnerReferences = append(p.OwnerReferences, api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name,
		UID: api.UID("uid-" + name), Controller: &yes})
	return p
}

func pods(n int, prefix string, edit func(int, *api.Pod) *api.Pod) []*api.Pod {
	var out []*api.Pod
	for i := range n {
		out = append(out, edit(i, newPod(fmt.Sprintf("%s %d", prefix, i))))
	}
	return out
}

func minAvailable(v api.IntOrString) *api.PodDisruptionBudget {
	return &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "pdb", Generation: 1},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &v,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}}}
}

func maxUnavailable(v api.IntOrString) *api.PodDisruptionBudget {
	b := minAvailable(v)
	b.Spec.MaxUnavailable, b.Spec.MinAvailable = b.Spec.MinAvailable, nil
	return b
}

// scales is a ScaleFunc over a table name → replicas (UID "uid-"+name).
func scales(m map[string]int32) disruption.ScaleFunc {
	return func(r api.OwnerReference, _ string) (api.UID, int32, bool, error) {
		n, ok := m[r.Name]
		if !ok || r.UID != api.UID("uid-"+r.Name) {
			return "", 0, false, nil
		}
		return r.UID, n, true, nil
	}
}

type counts struct{ allowed, current, desired, expected int32 }

// The cases of kube's pkg/controller/disruption/disruption_test.go
// (TestNoSelector, TestUnavailable, TestIntegerMaxUnavailable,
// TestIntegerMaxUnavailableWithScaling,
// TestPercentageMaxUnavailableWithScaling, TestNakedPod,
// TestStatusForUnmanagedPod, TestReplicaSet, TestScaleResource,
// TestMultipleControllers, TestReplicationController,
// TestStatefulSetController, TestTwoControllers), each at the states the
// upstream test verifies, run against Decide.
func TestDecidePorted(t *testing.T) {
	rcLabels := func(_ int, p *api.Pod) *api.Pod {
		p.Labels["baz"] = "quux"
		return owned(p, "v1", "ReplicationController", "rc")
	}
	cases := []struct {
		name   string
		pdb    *api.PodDisruptionBudget
		pods   []*api.Pod
		scales map[string]int32
		want   counts
	}{
		{"NoSelector/no pods", func() *api.PodDisruptionBudget {
			b := minAvailable(api.FromInt32(3))
			b.Spec.Selector = &api.LabelSelector{}
			return b
		}(), nil, nil, counts{0, 0, 3, 0}},
		{"NoSelector/one pod", minAvailable(api.FromInt32(3)), []*api.Pod{newPod("yo-yo-yo")}, nil, counts{0, 1, 3, 1}},
		{"Unavailable/3 of min 3", minAvailable(api.FromInt32(3)), pods(3, "yo", func(_ int, p *api.Pod) *api.Pod { return p }), nil, counts{0, 3, 3, 3}},
		{"Unavailable/4 of min 3", minAvailable(api.FromInt32(3)), pods(4, "yo", func(_ int, p *api.Pod) *api.Pod { return p }), nil, counts{1, 4, 3, 4}},
		{"Unavailable/one unready", minAvailable(api.FromInt32(3)), pods(4, "yo", func(i int, p *api.Pod) *api.Pod {
			if i == 0 {
				return unready(p)
			}
			return p
		}), nil, counts{0, 3, 3, 4}},
		{"IntegerMaxUnavailable/no pods", maxUnavailable(api.FromInt32(1)), nil, nil, counts{0, 0, 0, 0}},
		{"IntegerMaxUnavailable/naked pod", maxUnavailable(api.FromInt32(1)), []*api.Pod{newPod("naked")}, nil, counts{0, 1, 0, 0}},
		{"IntegerMaxUnavailableWithScaling/rs 7", maxUnavailable(api.FromInt32(2)),
			[]*api.Pod{owned(newPod("pod"), "apps/v1", "ReplicaSet", "rs")}, map[string]int32{"rs": 7}, counts{0, 1, 5, 7}},
		{"IntegerMaxUnavailableWithScaling/rs 5", maxUnavailable(api.FromInt32(2)),
			[]*api.Pod{owned(newPod("pod"), "apps/v1", "ReplicaSet", "rs")}, map[string]int32{"rs": 5}, counts{0, 1, 3, 5}},
		{"PercentageMaxUnavailableWithScaling/rs 7", maxUnavailable(api.FromString("30%")),
			[]*api.Pod{owned(newPod("pod"), "apps/v1", "ReplicaSet", "rs")}, map[string]int32{"rs": 7}, counts{0, 1, 4, 7}},
		{"PercentageMaxUnavailableWithScaling/rs 3", maxUnavailable(api.FromString("30%")),
			[]*api.Pod{owned(newPod("pod"), "apps/v1", "ReplicaSet", "rs")}, map[string]int32{"rs": 3}, counts{0, 1, 2, 3}},
		{"NakedPod", minAvailable(api.FromString("28%")), []*api.Pod{newPod("naked")}, nil, counts{0, 1, 0, 0}},
		{"ReplicaSet", minAvailable(api.FromString("20%")),
			[]*api.Pod{owned(newPod("pod"), "apps/v1", "ReplicaSet", "rs")}, map[string]int32{"rs": 10}, counts{0, 1, 2, 10}},
		{"ScaleResource", maxUnavailable(api.FromInt32(5)),
			pods(4, "pod", func(_ int, p *api.Pod) *api.Pod { return owned(p, "custom.k8s.io/v1", "customresource", "cr") }),
			map[string]int32{"cr": 10}, counts{0, 4, 5, 10}},
		{"MultipleControllers/one rc", minAvailable(api.FromString("1%")),
			pods(2, "pod", func(_ int, p *api.Pod) *api.Pod { return owned(p, "v1", "ReplicationController", "rc") }),
			map[string]int32{"rc": 1}, counts{1, 2, 1, 1}},
		{"ReplicationController/2 of 3", minAvailable(api.FromString("34%")), pods(2, "foobar", rcLabels),
			map[string]int32{"rc": 3}, counts{0, 2, 2, 3}},
		{"ReplicationController/3 of 3", minAvailable(api.FromString("34%")), pods(3, "foobar", rcLabels),
			map[string]int32{"rc": 3}, counts{1, 3, 2, 3}},
		{"ReplicationController/rogue", minAvailable(api.FromString("34%")), append(pods(3, "foobar", rcLabels), newPod("rogue")),
			map[string]int32{"rc": 3}, counts{2, 4, 2, 3}},
		{"StatefulSetController/3 of 3", minAvailable(api.FromString("34%")),
			pods(3, "foobar", func(_ int, p *api.Pod) *api.Pod { return owned(p, "apps/v1", "StatefulSet", "ss") }),
			map[string]int32{"ss": 3}, counts{1, 3, 2, 3}},
		// TestTwoControllers: 11 pods of an RC (6 unready), then 11 of a
		// Deployment's RS (4 unready), 28% of 22 rounds up to 7.
		{"TwoControllers/rc only", minAvailable(api.FromString("28%")),
			pods(11, "quux", func(i int, p *api.Pod) *api.Pod {
				if i < 6 {
					unready(p)
				}
				return owned(p, "v1", "ReplicationController", "rc")
			}), map[string]int32{"rc": 11}, counts{1, 5, 4, 11}},
		{"TwoControllers/both", minAvailable(api.FromString("28%")),
			append(pods(11, "quux", func(i int, p *api.Pod) *api.Pod {
				if i < 6 {
					unready(p)
				}
				return owned(p, "v1", "ReplicationController", "rc")
			}), pods(11, "quuux", func(i int, p *api.Pod) *api.Pod {
				if i < 7 {
					unready(p)
				}
				return owned(p, "apps/v1", "ReplicaSet", "rs")
			})...), map[string]int32{"rc": 11, "rs": 11}, counts{2, 9, 7, 22}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := disruption.Decide(c.pdb, c.pods, scales(c.scales), t0)
			require.NoError(t, d.Err)
			got := counts{d.Status.DisruptionsAllowed, d.Status.CurrentHealthy, d.Status.DesiredHealthy, d.Status.ExpectedPods}
			require.Equal(t, c.want, got)
			require.True(t, d.Write)
			require.Equal(t, int64(1), d.Status.ObservedGeneration)
			require.Len(t, d.Status.Conditions, 1)
			cond := d.Status.Conditions[0]
			require.Equal(t, disruption.ConditionDisruptionAllowed, cond.Type)
			if c.want.allowed > 0 {
				require.Equal(t, api.ConditionTrue, cond.Status)
				require.Equal(t, disruption.ReasonSufficientPods, cond.Reason)
			} else {
				require.Equal(t, api.ConditionFalse, cond.Status)
				require.Equal(t, disruption.ReasonInsufficientPods, cond.Reason)
			}
			require.Equal(t, t0, cond.LastTransitionTime.Time)
		})
	}
}

// TestUpdateDisruptedPods is kube's TestUpdateDisruptedPods: entries of
// pods being deleted, expired or gone are dropped; the recheck is when
// the kept one expires; the expired one is reported (NotDeleted).
func TestUpdateDisruptedPods(t *testing.T) {
	pdb := minAvailable(api.FromInt32(1))
	pdb.Status.DisruptedPods = map[string]api.Time{
		"p1":       api.NewTime(t0),                       // removed: its deletion started
		"p2":       api.NewTime(t0.Add(-5 * time.Minute)), // removed: expired
		"p3":       api.NewTime(t0),                       // kept
		"notthere": api.NewTime(t0),                       // removed: gone
	}
	p1 := newPod("p1")
	del := api.NewTime(t0)
	p1.DeletionTimestamp = &del
	d := disruption.Decide(pdb, []*api.Pod{p1, newPod("p2"), newPod("p3")}, nil, t0)
	require.NoError(t, d.Err)
	require.Equal(t, counts{0, 1, 1, 3}, counts{d.Status.DisruptionsAllowed, d.Status.CurrentHealthy, d.Status.DesiredHealthy, d.Status.ExpectedPods})
	require.Equal(t, map[string]api.Time{"p3": api.NewTime(t0)}, d.Status.DisruptedPods)
	require.Equal(t, t0.Add(disruption.DeletionTimeout), d.Recheck)
	require.Len(t, d.Events, 1)
	require.Equal(t, disruption.EventNotDeleted, d.Events[0].Reason)
	require.Equal(t, "p2", d.Events[0].Pod.Name)
	require.Equal(t, "Pod was expected by PDB default/pdb to be deleted but it wasn't", d.Events[0].Message)

	// Past the timeout p3 counts again, and the entry is gone.
	pdb.Status = d.Status
	d = disruption.Decide(pdb, []*api.Pod{newPod("p2"), newPod("p3")}, nil, t0.Add(disruption.DeletionTimeout+time.Second))
	require.Equal(t, int32(2), d.Status.CurrentHealthy)
	require.Equal(t, int32(1), d.Status.DisruptionsAllowed)
	require.Empty(t, d.Status.DisruptedPods)
	require.True(t, d.Recheck.IsZero())
}

// A status already up to date is not written again; a pod without a
// known controller is an error (kcm's "found no controllers for pod")
// and the fail-safe status allows nothing.
func TestDecideNoWriteAndFailSafe(t *testing.T) {
	pdb := minAvailable(api.FromInt32(1))
	ps := pods(3, "p", func(_ int, p *api.Pod) *api.Pod { return p })
	d := disruption.Decide(pdb, ps, nil, t0)
	require.True(t, d.Write)
	pdb.Status = d.Status
	d = disruption.Decide(pdb, ps, nil, t0.Add(time.Hour))
	require.False(t, d.Write, "nothing changed")
	require.Equal(t, t0, d.Status.Conditions[0].LastTransitionTime.Time)

	pdb.Generation = 2
	d = disruption.Decide(pdb, ps, nil, t0.Add(time.Hour))
	require.True(t, d.Write, "a new generation is observed")
	require.Equal(t, int64(2), d.Status.ObservedGeneration)
	require.Equal(t, t0, d.Status.Conditions[0].LastTransitionTime.Time, "the condition's status did not change")
	require.Equal(t, int64(2), d.Status.Conditions[0].ObservedGeneration)

	pct := maxUnavailable(api.FromString("50%"))
	pct.Status = d.Status
	d = disruption.Decide(pct, []*api.Pod{owned(newPod("x"), "batch/v1", "Job", "j")}, scales(nil), t0.Add(2*time.Hour))
	require.ErrorIs(t, d.Err, disruption.ErrNoController)
	require.Equal(t, disruption.EventCalculateExpectedPodCountFailed, d.Events[0].Reason)
	require.Equal(t, `Failed to calculate the number of expected pods: found no controllers for pod "x"`, d.Events[0].Message)
	st := disruption.FailSafe(pct, d.Err, t0.Add(2*time.Hour))
	require.Equal(t, int32(0), st.DisruptionsAllowed)
	require.Equal(t, disruption.ReasonSyncFailed, st.Conditions[0].Reason)
	require.Equal(t, api.ConditionFalse, st.Conditions[0].Status)
	require.Equal(t, t0.Add(2*time.Hour), st.Conditions[0].LastTransitionTime.Time)

	// No pods: the NoPods event; an unmanaged pod: UnmanagedPods.
	d = disruption.Decide(pdb, nil, nil, t0)
	require.Equal(t, disruption.EventNoPods, d.Events[0].Reason)
	require.False(t, d.Events[0].Warning)
	d = disruption.Decide(pct, []*api.Pod{newPod("naked")}, nil, t0)
	require.NoError(t, d.Err)
	require.Equal(t, disruption.EventUnmanagedPods, d.Events[0].Reason)
	require.True(t, d.Events[0].Warning)
}
