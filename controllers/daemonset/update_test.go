package daemonset

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// TestFenceposts ports kcm's TestGetUnavailableNumbers
// (pkg/controller/daemon/update_test.go): maxSurge and maxUnavailable
// resolved against the nodes that should run a pod.
func TestFenceposts(t *testing.T) {
	cases := []struct {
		name                     string
		ds                       *api.DaemonSet
		nodes                    int
		maxSurge, maxUnavailable int
	}{
		{"No nodes", newDaemonSet(withMaxUnavailable(api.FromInt32(0))), 0, 0, 0},
		{"Two nodes with ready pods", newDaemonSet(withMaxUnavailable(api.FromInt32(1))), 2, 0, 1},
		{"Two nodes, one node without pods", newDaemonSet(withMaxUnavailable(api.FromInt32(0))), 2, 0, 1},
		{"Two nodes, one node without pods, surge", newDaemonSet(withMaxSurge(api.FromInt32(1)), withMaxUnavailable(api.FromInt32(0))), 2, 1, 0},
		{"Two nodes with pods, MaxUnavailable in percents", newDaemonSet(withMaxUnavailable(api.FromString("50%"))), 2, 0, 1},
		{"Two nodes with pods, MaxUnavailable in percents, surge", newDaemonSet(withMaxSurge(api.FromString("50%")), withMaxUnavailable(api.FromInt32(0))), 2, 1, 0},
		{"Two nodes with pods, MaxUnavailable is 100%, surge", newDaemonSet(withMaxSurge(api.FromString("100%")), withMaxUnavailable(api.FromInt32(0))), 2, 2, 0},
		{"Two nodes with pods, MaxUnavailable in percents, pod terminating", newDaemonSet(withMaxUnavailable(api.FromString("50%"))), 3, 0, 2},
		{"default: maxUnavailable 1", newDaemonSet(), 5, 0, 1},
		{"OnDelete", newDaemonSet(func(ds *api.DaemonSet) { ds.Spec.UpdateStrategy.Type = OnDeleteStrategy }), 5, 0, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, u := fenceposts(tc.ds, tc.nodes)
			require.Equal(t, tc.maxSurge, s, "maxSurge")
			require.Equal(t, tc.maxUnavailable, u, "maxUnavailable")
		})
	}
}

// cluster is a tiny simulation for the update tests: the decisions are
// applied at once, as kcm's fake pod control applies them.
type simCluster struct {
	t     *testing.T
	ds    *api.DaemonSet
	nodes []*api.Node
	pods  []*api.Pod
	seq   int // numbers the pods it makes
}

// sync runs one decision and applies it: deleted pods vanish, created
// ones appear bound, of the current revision, not ready.
func (c *simCluster) sync() (creates, deletes int) {
	seq := &c.seq
	p := decide(testView(c.ds, c.nodes, c.pods))
	c.pods = slices.DeleteFunc(c.pods, func(x *api.Pod) bool { return slices.Contains(p.delete, x) })
	for _, n := range p.create {
		c.pods = append(c.pods, podFor(seq, c.ds, n, simpleDaemonSetLabel))
	}
	return len(p.create), len(p.delete)
}

func (c *simCluster) markReady() {
	for _, p := range c.pods {
		if !api.IsPodReady(p) {
			ready(p)
		}
	}
}

func (c *simCluster) expect(creates, deletes int) {
	c.t.Helper()
	gc, gd := c.sync()
	require.Equal(c.t, [2]int{creates, deletes}, [2]int{gc, gd}, "(creates, deletes)")
}

func oldReadyCluster(t *testing.T, ds *api.DaemonSet, n int) *simCluster {
	seq := new(int) // numbers the pods of this test
	c := &simCluster{t: t, ds: ds, nodes: addNodes(0, n, nil)}
	for _, node := range c.nodes {
		c.pods = append(c.pods, podFor(seq, ds, node.Name, simpleDaemonSetLabel, hashed("old"), ready))
	}
	return c
}

// TestRollingUpdate ports kcm's TestDaemonSetUpdatesPods: 5 nodes,
// maxUnavailable 2 — delete two old pods, create their replacements,
// wait for them to be ready, and so on.
func TestRollingUpdate(t *testing.T) {
	c := oldReadyCluster(t, newDaemonSet(withMaxUnavailable(api.FromInt32(2))), 5)
	c.expect(0, 2)
	c.expect(2, 0)
	c.expect(0, 0)
	c.markReady()
	c.expect(0, 2)
	c.expect(2, 0)
	c.expect(0, 0)
	c.markReady()
	c.expect(0, 1)
	c.expect(1, 0)
	c.expect(0, 0)
	c.markReady()
	c.expect(0, 0)
}

// TestRollingUpdateWithMaxSurge ports kcm's
// TestDaemonSetUpdatesPodsWithMaxSurge with maxSurge 2. kcm's fake pod
// control observes its writes at once, so there the old pods' deletes
// (manage) and the next surge (rollingUpdate) happen in one sync; here,
// as with a real informer, the surge waits for the next sync.
func TestRollingUpdateWithMaxSurge(t *testing.T) {
	c := oldReadyCluster(t, newDaemonSet(withMaxSurge(api.FromInt32(2)), withMaxUnavailable(api.FromInt32(0))), 5)
	c.expect(2, 0)
	c.expect(0, 0) // the new pods are not available yet: the old stay
	c.markReady()
	c.expect(0, 2)
	c.expect(2, 0)
	c.expect(0, 0)
	c.markReady()
	c.expect(0, 2)
	c.expect(1, 0)
	c.markReady()
	c.expect(0, 1)
	c.expect(0, 0)
}

// TestRollingUpdateAllOldPodsNotReady ports
// TestDaemonSetUpdatesAllOldPodsNotReady: old pods that are not
// available are all replaced at once, whatever maxUnavailable says.
func TestRollingUpdateAllOldPodsNotReady(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	ds := newDaemonSet(withMaxUnavailable(api.FromInt32(3)))
	c := &simCluster{t: t, ds: ds, nodes: addNodes(0, 5, nil)}
	for _, node := range c.nodes {
		c.pods = append(c.pods, podFor(seq, ds, node.Name, simpleDaemonSetLabel, hashed("old")))
	}
	c.expect(0, 5)
	c.expect(5, 0)
}

// TestRollingUpdateNewPodNotReady ports
// TestDaemonSetUpdatesWhenNewPodIsNotReady: a new pod that never turns
// ready holds the update at maxUnavailable.
func TestRollingUpdateNewPodNotReady(t *testing.T) {
	c := oldReadyCluster(t, newDaemonSet(withMaxUnavailable(api.FromInt32(3))), 5)
	c.expect(0, 3)
	c.expect(3, 0)
	c.expect(0, 0)
	c.expect(0, 0)
}

// TestRollingUpdateNoTemplateChange ports
// TestDaemonSetUpdatesNoTemplateChanged, and OnDelete: no update step.
func TestRollingUpdateNoTemplateChange(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	ds := newDaemonSet(withMaxUnavailable(api.FromInt32(3)))
	c := &simCluster{t: t, ds: ds, nodes: addNodes(0, 5, nil)}
	for _, node := range c.nodes {
		c.pods = append(c.pods, podFor(seq, ds, node.Name, simpleDaemonSetLabel, ready))
	}
	c.expect(0, 0)

	onDelete := newDaemonSet(func(ds *api.DaemonSet) { ds.Spec.UpdateStrategy.Type = OnDeleteStrategy })
	c = oldReadyCluster(t, onDelete, 3)
	c.expect(0, 0)
	c.pods = c.pods[1:] // a user deletes one: it comes back at the new revision
	c.expect(1, 0)
	require.Equal(t, "new", c.pods[len(c.pods)-1].Labels[api.LabelControllerRevisionHash])
}

// TestStatus ports kcm's TestNumberReadyStatus, TestObservedGeneration
// and the misscheduled count: status over 3 nodes, one of which no
// longer matches the node selector.
func TestStatus(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	ds := newDaemonSet(withNodeSelector(simpleNodeLabel))
	ds.Generation = 3
	ds.Spec.MinReadySeconds = 30
	nodes := concat(addNodes(0, 3, simpleNodeLabel), addNodes(3, 1, nil))
	pods := concat(
		addPods(seq, ds, "node-0", simpleDaemonSetLabel, 1, readySince(time.Minute)),                   // available
		addPods(seq, ds, "node-1", simpleDaemonSetLabel, 1, readySince(10*time.Second), hashed("old")), // ready, not yet available
		addPods(seq, ds, "node-3", simpleDaemonSetLabel, 1, ready),                                     // misscheduled
	)
	v := testView(ds, nodes, pods)
	st, recheck := calculateStatus(v, false)
	require.Equal(t, api.DaemonSetStatus{
		DesiredNumberScheduled: 3, CurrentNumberScheduled: 2, NumberMisscheduled: 1, NumberReady: 2,
		NumberAvailable: 1, UpdatedNumberScheduled: 1, NumberUnavailable: 2,
	}, st)
	require.Equal(t, 30*time.Second, recheck)
	st, _ = calculateStatus(v, true)
	require.EqualValues(t, 3, st.ObservedGeneration)
}

// TestRollingUpdateUnavailableOldPodCounts: an old pod that is not
// available is replaced at once and counts against maxUnavailable, as in
// kcm's rollingUpdate (numUnavailable++ for it): with maxUnavailable 1,
// two nodes, one old pod available (node-0) and one not (node-1), only
// the unavailable one is deleted. Before the fix both were (node-0 walked
// first, while nothing counted as unavailable yet): the harness's
// DaemonSet scenario found it (a node without a kubelet joined before an
// image change; the reference run did not converge).
func TestRollingUpdateUnavailableOldPodCounts(t *testing.T) {
	seq := new(int) // numbers the pods of this test
	ds := newDaemonSet(withMaxUnavailable(api.FromInt32(1)))
	c := &simCluster{t: t, ds: ds, nodes: addNodes(0, 2, nil)}
	c.pods = append(c.pods,
		podFor(seq, ds, c.nodes[0].Name, simpleDaemonSetLabel, hashed("old"), ready),
		podFor(seq, ds, c.nodes[1].Name, simpleDaemonSetLabel, hashed("old")))
	p := decide(testView(c.ds, c.nodes, c.pods))
	require.Len(t, p.delete, 1)
	require.Equal(t, c.nodes[1].Name, p.delete[0].Spec.NodeName)
}
