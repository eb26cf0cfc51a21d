package daemonset

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestManage ports cases of kube-controller-manager's
// pkg/controller/daemon/daemon_controller_test.go (their test names in
// the case names): how many pods one sync creates and deletes.
func TestManage(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	noSchedule := api.Taint{Key: "dedicated", Value: "user", Effect: api.TaintEffectNoSchedule}
	noExecute := api.Taint{Key: "dedicated", Value: "user", Effect: api.TaintEffectNoExecute}
	tolerate := func(tt api.Taint) api.Toleration {
		return api.Toleration{Key: tt.Key, Operator: api.TolerationOpEqual, Value: tt.Value, Effect: tt.Effect}
	}
	affinity := func(ds *api.DaemonSet) {
		ds.Spec.Template.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
				MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: api.NodeSelectorOpIn, Values: []string{"blue"}}},
			}}}}}
	}
	named := func(n string) dsOpt { return func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeName = n } }
	ds := newDaemonSet()

	cases := []struct {
		name         string
		ds           *api.DaemonSet
		nodes        []*api.Node
		pods         []*api.Pod
		creates      int
		deletes      int
		failedEvents int
		createdOn    []string // checked when set
	}{
		{name: "TestSimpleDaemonSetLaunchesPods", ds: ds, nodes: addNodes(0, 5, nil), creates: 5},
		{name: "TestNoNodesDoesNothing", ds: ds},
		{name: "TestOneNodeDaemonLaunchesPod", ds: ds, nodes: addNodes(0, 1, nil), creates: 1, createdOn: []string{"node-0"}},
		{name: "TestNotReadyNodeDaemonDoesLaunchPod", ds: ds, creates: 1,
			nodes: []*api.Node{newNode("not-ready", notReady, tainted(api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}))}},
		{name: "TestUnreachableNodeDaemonLaunchesPod", ds: ds, creates: 1,
			nodes: []*api.Node{newNode("left", tainted(api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}))}},
		{name: "TestTaintPressureNodeDaemonLaunchesPod", ds: ds, creates: 1,
			nodes: []*api.Node{newNode("resources-pressure", tainted(
				api.Taint{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule},
				api.Taint{Key: api.TaintNodeMemoryPressure, Effect: api.TaintEffectNoSchedule},
				api.Taint{Key: api.TaintNodePIDPressure, Effect: api.TaintEffectNoSchedule}))}},
		{name: "unschedulable node (TestUnschedulableNodeDaemonDoesLaunchPod)", ds: ds, creates: 1,
			nodes: []*api.Node{newNode("cordoned", func(n *api.Node) { n.Spec.Unschedulable = true },
				tainted(api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule}))}},
		{name: "network-unavailable only tolerated with hostNetwork", ds: ds,
			nodes: []*api.Node{newNode("no-net", tainted(api.Taint{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule}))}},
		{name: "network-unavailable tolerated by a hostNetwork daemon", creates: 1,
			ds:    newDaemonSet(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.HostNetwork = true }),
			nodes: []*api.Node{newNode("no-net", tainted(api.Taint{Key: api.TaintNodeNetworkUnavailable, Effect: api.TaintEffectNoSchedule}))}},
		{name: "TestInsufficientCapacityNodeDaemonLaunchesPod (the scheduler decides fit)", ds: ds, creates: 1,
			nodes: []*api.Node{newNode("too-much-mem", func(n *api.Node) {
				n.Status.Allocatable = api.ResourceList{api.ResourceMemory: api.MustParse("1Mi")}
			})}},
		{name: "TestDealsWithExistingPods", ds: ds, nodes: addNodes(0, 5, nil), creates: 2, deletes: 5,
			pods: concat(addPods(seq, ds, "node-1", simpleDaemonSetLabel, 1), addPods(seq, ds, "node-2", simpleDaemonSetLabel, 2),
				addPods(seq, ds, "node-3", simpleDaemonSetLabel, 5), addPods(seq, ds, "node-4", simpleDaemonSetLabel2, 2))},
		{name: "TestSelectorDaemonLaunchesPods", ds: newDaemonSet(withNodeSelector(simpleNodeLabel)), creates: 3,
			nodes: concat(addNodes(0, 4, nil), addNodes(4, 3, simpleNodeLabel))},
		{name: "TestSelectorDaemonDeletesUnselectedPods", ds: newDaemonSet(withNodeSelector(simpleNodeLabel)),
			nodes: concat(addNodes(0, 5, nil), addNodes(5, 5, simpleNodeLabel)), creates: 5, deletes: 4,
			pods: concat(addPods(seq, ds, "node-0", simpleDaemonSetLabel2, 2), addPods(seq, ds, "node-1", simpleDaemonSetLabel, 3),
				addPods(seq, ds, "node-1", simpleDaemonSetLabel2, 1), addPods(seq, ds, "node-4", simpleDaemonSetLabel, 1))},
		{name: "TestSelectorDaemonDealsWithExistingPods", ds: newDaemonSet(withNodeSelector(simpleNodeLabel)),
			nodes: concat(addNodes(0, 5, nil), addNodes(5, 5, simpleNodeLabel)), creates: 3, deletes: 20,
			pods: concat(addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1), addPods(seq, ds, "node-1", simpleDaemonSetLabel, 3),
				addPods(seq, ds, "node-1", simpleDaemonSetLabel2, 2), addPods(seq, ds, "node-2", simpleDaemonSetLabel, 4),
				addPods(seq, ds, "node-6", simpleDaemonSetLabel, 13), addPods(seq, ds, "node-7", simpleDaemonSetLabel2, 4),
				addPods(seq, ds, "node-9", simpleDaemonSetLabel, 1), addPods(seq, ds, "node-9", simpleDaemonSetLabel2, 1))},
		{name: "TestBadSelectorDaemonDoesNothing", ds: newDaemonSet(withNodeSelector(simpleDaemonSetLabel2)),
			nodes: concat(addNodes(0, 4, nil), addNodes(4, 3, simpleNodeLabel))},
		{name: "TestNameDaemonSetLaunchesPods", ds: newDaemonSet(named("node-0")), nodes: addNodes(0, 5, nil), creates: 1,
			createdOn: []string{"node-0"}},
		{name: "TestBadNameDaemonSetDoesNothing", ds: newDaemonSet(named("node-10")), nodes: addNodes(0, 5, nil)},
		{name: "TestNameAndSelectorDaemonSetLaunchesPods", ds: newDaemonSet(named("node-6"), withNodeSelector(simpleNodeLabel)),
			nodes: concat(addNodes(0, 4, nil), addNodes(4, 3, simpleNodeLabel)), creates: 1, createdOn: []string{"node-6"}},
		{name: "TestInconsistentNameSelectorDaemonSetDoesNothing", ds: newDaemonSet(named("node-0"), withNodeSelector(simpleNodeLabel)),
			nodes: concat(addNodes(0, 4, nil), addNodes(4, 3, simpleNodeLabel))},
		{name: "TestNodeAffinityDaemonLaunchesPods", ds: newDaemonSet(affinity),
			nodes: concat(addNodes(0, 4, nil), addNodes(4, 3, simpleNodeLabel)), creates: 3,
			createdOn: []string{"node-4", "node-5", "node-6"}},
		{name: "TestTaintedNodeDaemonDoesNotLaunchIntolerantPod", ds: ds,
			nodes: []*api.Node{newNode("tainted", tainted(noSchedule))}},
		{name: "TestTaintedNodeDaemonLaunchesToleratePod", ds: newDaemonSet(withTolerations(tolerate(noSchedule))), creates: 1,
			nodes: []*api.Node{newNode("tainted", tainted(noSchedule))}},
		{name: "TestNoScheduleTaintedDoesntEvicitRunningIntolerantPod", ds: ds,
			nodes: []*api.Node{newNode("tainted", tainted(noSchedule))},
			pods:  addPods(seq, ds, "tainted", simpleDaemonSetLabel, 1)},
		{name: "TestNoExecuteTaintedDoesEvicitRunningIntolerantPod", ds: ds, deletes: 1,
			nodes: []*api.Node{newNode("tainted", tainted(noExecute))},
			pods:  addPods(seq, ds, "tainted", simpleDaemonSetLabel, 1)},
		{name: "the documentation's fluentd tolerates the master NoSchedule taint", creates: 2,
			ds: newDaemonSet(withTolerations(api.Toleration{Key: "node-role.kubernetes.io/master", Effect: api.TaintEffectNoSchedule})),
			nodes: []*api.Node{newNode("master", tainted(api.Taint{Key: "node-role.kubernetes.io/master", Effect: api.TaintEffectNoSchedule})),
				newNode("worker")}},
		{name: "TestDaemonKillFailedPods (1 failed, 0 normal)", ds: ds, nodes: addNodes(0, 1, nil), deletes: 1, failedEvents: 1,
			pods: addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, failed)},
		{name: "TestDaemonKillFailedPods (0 failed, 1 normal)", ds: ds, nodes: addNodes(0, 1, nil),
			pods: addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1)},
		{name: "TestDaemonKillFailedPods (1 failed, 1 normal)", ds: ds, nodes: addNodes(0, 1, nil), deletes: 1, failedEvents: 1,
			pods: concat(addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, failed), addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1))},
		{name: "succeeded daemon pods are deleted too", ds: ds, nodes: addNodes(0, 1, nil), deletes: 1,
			pods: addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, succeeded)},
		{name: "a pod being deleted is not replaced until it is gone", ds: ds, nodes: addNodes(0, 1, nil),
			pods: addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, deleting)},
		{name: "TestDeleteUnscheduledPodForNotExistingNode", ds: ds, nodes: addNodes(0, 1, nil), deletes: 1,
			pods: concat(addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1), addPods(seq, ds, "node-1", simpleDaemonSetLabel, 1, pinned("node-1")))},
		{name: "a bound pod on a node that is gone is left to the pod GC", ds: ds, nodes: addNodes(0, 1, nil),
			pods: concat(addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1), addPods(seq, ds, "node-1", simpleDaemonSetLabel, 1))},
		{name: "a pending pod pinned to an existing node counts as its pod", ds: ds, nodes: addNodes(0, 1, nil),
			pods: addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, pinned("node-0"))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := decide(testView(tc.ds, tc.nodes, tc.pods))
			require.Len(t, p.create, tc.creates, "creates")
			require.Len(t, p.delete, tc.deletes, "deletes")
			require.Len(t, p.failed, tc.failedEvents, "failed pods")
			if tc.createdOn != nil {
				require.Equal(t, tc.createdOn, p.create)
			}
		})
	}
}

// TestManageKeepsTheOldest: of several daemon pods on a node the oldest
// stays, scheduled before unscheduled (podByCreationTimestampAndPhase).
func TestManageKeepsTheOldest(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	ds := newDaemonSet()
	older := podFor(seq, ds, "node-0", simpleDaemonSetLabel, pinned("node-0"))
	bound := podFor(seq, ds, "node-0", simpleDaemonSetLabel)
	newer := podFor(seq, ds, "node-0", simpleDaemonSetLabel)
	p := decide(testView(ds, addNodes(0, 1, nil), []*api.Pod{newer, older, bound}))
	require.Empty(t, p.create)
	require.ElementsMatch(t, []string{older.Name, newer.Name}, podNames(p.delete), "the oldest scheduled pod stays")
}

// TestFailedPodBackoff ports TestDaemonKillFailedPodsBackoff: a failed
// pod is deleted at once, and the next within the node's back-off waits
// (the set is requeued when the wait ends), as kcm's flowcontrol.Backoff
// with 1 s initial and 15 min maximum steps.
func TestFailedPodBackoff(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	ds := newDaemonSet()
	b := newBackoff(FailedPodsBackoffInitial, FailedPodsBackoffMax)
	step := func(at time.Time) plan {
		v := testView(ds, addNodes(0, 1, nil), addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, failed))
		v.now = at
		v.backoff = func(n string) (time.Duration, bool) { return b.waiting(backoffKey(ds, n), at) }
		p := decide(v)
		for _, n := range p.backoffNext {
			b.next(backoffKey(ds, n), at)
		}
		return p
	}
	steps := []struct {
		at      time.Duration
		deletes int
		requeue time.Duration
	}{
		{0, 1, 0},                                // first failure: deleted, back-off 1 s
		{500 * time.Millisecond, 0, time.Second}, // within 1 s: held
		{time.Second, 1, 0},                      // after it: deleted, back-off 2 s
		{2 * time.Second, 0, 2 * time.Second},
		{3 * time.Second, 1, 0},                // back-off 4 s
		{3*time.Second + 31*time.Minute, 1, 0}, // long quiet: starts over at 1 s
		{3*time.Second + 31*time.Minute + 999*time.Millisecond, 0, time.Second},
	}
	for _, s := range steps {
		p := step(t0.Add(s.at))
		require.Len(t, p.delete, s.deletes, "at +%v", s.at)
		require.Equal(t, s.requeue, p.requeue, "at +%v", s.at)
	}
	b.gc(t0.Add(2 * time.Hour))
	require.Zero(t, b.len(), "collected after twice the maximum")
}

// TestBurstReplicas: one sync creates at most burstReplicas pods.
func TestBurstReplicas(t *testing.T) {
	ds := newDaemonSet()
	v := testView(ds, addNodes(0, 300, nil), nil)
	require.Len(t, decide(v).create, DefaultBurstReplicas)
	v.burst = 10
	require.Len(t, decide(v).create, 10)
}

// TestDaemonTolerations: the tolerations every daemon pod gets, a
// template's own with the same key, operator and effect replaced
// (AddOrUpdateDaemonPodTolerations).
func TestDaemonTolerations(t *testing.T) {
	secs := int64(300)
	spec := api.PodSpec{Tolerations: []api.Toleration{
		{Key: api.TaintNodeNotReady, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &secs},
		{Key: "node-role.kubernetes.io/master", Effect: api.TaintEffectNoSchedule},
	}}
	AddDaemonTolerations(&spec)
	exists := func(k string, e api.TaintEffect) api.Toleration {
		return api.Toleration{Key: k, Operator: api.TolerationOpExists, Effect: e}
	}
	require.Equal(t, []api.Toleration{
		exists(api.TaintNodeNotReady, api.TaintEffectNoExecute),
		{Key: "node-role.kubernetes.io/master", Effect: api.TaintEffectNoSchedule},
		exists(api.TaintNodeUnreachable, api.TaintEffectNoExecute),
		exists(api.TaintNodeDiskPressure, api.TaintEffectNoSchedule),
		exists(api.TaintNodeMemoryPressure, api.TaintEffectNoSchedule),
		exists(api.TaintNodePIDPressure, api.TaintEffectNoSchedule),
		exists(api.TaintNodeUnschedulable, api.TaintEffectNoSchedule),
	}, spec.Tolerations)
	spec.HostNetwork = true
	AddDaemonTolerations(&spec)
	require.Len(t, spec.Tolerations, 8)
	require.Equal(t, exists(api.TaintNodeNetworkUnavailable, api.TaintEffectNoSchedule), spec.Tolerations[7])
}

// TestShouldRun ports cases of kcm's TestNodeShouldRunDaemonPod.
func TestShouldRun(t *testing.T) {
	noExec := api.Taint{Key: "k", Value: "v", Effect: api.TaintEffectNoExecute}
	noSched := api.Taint{Key: "k", Value: "v", Effect: api.TaintEffectNoSchedule}
	cases := []struct {
		name                 string
		ds                   *api.DaemonSet
		node                 *api.Node
		run, continueRunning bool
	}{
		{"plain node", newDaemonSet(), newNode("n"), true, true},
		{"node selector mismatch", newDaemonSet(withNodeSelector(simpleNodeLabel)), newNode("n"), false, false},
		{"node selector match", newDaemonSet(withNodeSelector(simpleNodeLabel)), newNode("n", labelled(simpleNodeLabel)), true, true},
		{"other node name", newDaemonSet(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.NodeName = "other" }), newNode("n"), false, false},
		{"untolerated NoSchedule", newDaemonSet(), newNode("n", tainted(noSched)), false, true},
		{"untolerated NoExecute", newDaemonSet(), newNode("n", tainted(noExec)), false, false},
		{"tolerated NoExecute", newDaemonSet(withTolerations(api.Toleration{Key: "k", Operator: api.TolerationOpExists})),
			newNode("n", tainted(noExec)), true, true},
		{"PreferNoSchedule is ignored", newDaemonSet(),
			newNode("n", tainted(api.Taint{Key: "k", Effect: api.TaintEffectPreferNoSchedule})), true, true},
		{"matchFields on another node", newDaemonSet(func(ds *api.DaemonSet) { ds.Spec.Template.Spec.Affinity = pinToNode(nil, "other") }),
			newNode("n"), false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run, cont := ShouldRun(tc.ds, tc.node)
			require.Equal(t, tc.run, run, "shouldRun")
			require.Equal(t, tc.continueRunning, cont, "shouldContinueRunning")
		})
	}
}

// TestTargetNodeNameAndPinning: a created pod is pinned by
// metadata.name matchFields, replacing the template's required terms
// (ReplaceDaemonSetPodNodeNameNodeAffinity), and is found by that node
// before it is bound (GetTargetNodeName).
func TestTargetNodeNameAndPinning(t *testing.T) {
	a := &api.Affinity{NodeAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "color", Operator: api.NodeSelectorOpIn, Values: []string{"blue"}}},
		}}},
		PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 1}},
	}}
	got := pinToNode(a, "node-3")
	require.Equal(t, []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{
		{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"node-3"}}}}},
		got.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
	require.Len(t, got.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, 1, "preferred terms kept")

	p := &api.Pod{Spec: api.PodSpec{Affinity: got}}
	n, ok := targetNodeName(p)
	require.True(t, ok)
	require.Equal(t, "node-3", n)
	require.True(t, api.PodMatchesNode(p, newNode("node-3")), "the scheduler's node affinity honours matchFields")
	require.False(t, api.PodMatchesNode(p, newNode("node-4")))
	p.Spec.NodeName = "node-9"
	n, _ = targetNodeName(p)
	require.Equal(t, "node-9", n, "spec.nodeName wins once bound")
	_, ok = targetNodeName(&api.Pod{})
	require.False(t, ok)
}
