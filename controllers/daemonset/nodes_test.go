package daemonset_test

import (
	"errors"
	"maps"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/source"
)

// updateNode changes a node's spec or labels, retrying on conflicts with
// the kubelet's status writes.
func (e *env) updateNode(name string, change func(*api.Node)) {
	e.t.Helper()
	for {
		n, rv, err := e.c.Nodes().Get(e.ctx, name)
		require.NoError(e.t, err)
		change(n)
		if _, err = e.c.Nodes().Update(e.ctx, n, rv); !errors.Is(err, source.ErrConflict) {
			require.NoError(e.t, err)
			return
		}
	}
}

func logDaemon(nodeSelector map[string]string) *api.DaemonSet {
	ds := &api.DaemonSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "log"}}
	ds.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "log"}}
	ds.Spec.Template.Labels = map[string]string{"app": "log"}
	ds.Spec.Template.Spec.NodeSelector = nodeSelector
	ds.Spec.Template.Spec.Containers = []api.Container{{Name: "log", Image: "log:1"}}
	grace := int64(5)
	ds.Spec.Template.Spec.TerminationGracePeriodSeconds = &grace
	return ds
}

// Node eligibility follows the node: a label the node selector wants
// brings a pod, its removal takes it away; a NoSchedule taint keeps the
// running pod, a NoExecute one removes it; a cordoned node keeps it (the
// daemon tolerates node.kubernetes.io/unschedulable).
func TestNodeEligibilityEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t,
			kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24", Labels: map[string]string{"logging": "on"}},
			kubelet.Options{NodeName: "node-2", PodCIDR: "10.244.2.0/24"},
		)
		e.settle(time.Second)
		_, err := e.c.CreateObject(e.ctx, logDaemon(map[string]string{"logging": "on"}))
		require.NoError(t, err)
		e.settle(30 * time.Second)
		require.Equal(t, map[string]int{"node-1": 1}, e.podsPerNode())

		e.updateNode("node-2", func(n *api.Node) { n.Labels = maps.Clone(n.Labels); n.Labels["logging"] = "on" })
		e.settle(30 * time.Second)
		require.Equal(t, map[string]int{"node-1": 1, "node-2": 1}, e.podsPerNode(), "labelled: a pod")

		e.updateNode("node-1", func(n *api.Node) { delete(n.Labels, "logging") })
		e.settle(30 * time.Second)
		require.Equal(t, map[string]int{"node-2": 1}, e.podsPerNode(), "unlabelled: gone")

		e.updateNode("node-2", func(n *api.Node) {
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule})
			n.Spec.Unschedulable = true
		})
		e.settle(30 * time.Second)
		require.Equal(t, map[string]int{"node-2": 1}, e.podsPerNode(), "NoSchedule and cordon: the running pod stays")
		ds, _, err := e.c.DaemonSets().Get(e.ctx, "default/log")
		require.NoError(t, err)
		require.EqualValues(t, 0, ds.Status.DesiredNumberScheduled)
		require.EqualValues(t, 1, ds.Status.NumberMisscheduled, "running where it should not be scheduled")

		e.updateNode("node-2", func(n *api.Node) {
			n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoExecute})
		})
		e.settle(30 * time.Second)
		require.Empty(t, e.podsPerNode(), "NoExecute: evicted")
		require.Empty(t, e.pods())
	})
}

// A node whose kubelet rejects every pod (marks it Failed at once, as a
// kubelet's admission would): the controller deletes and re-creates the
// pod, each time waiting a back-off of 1 s doubling, per (set, node).
func TestFailedPodBackoffEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t) // no kubelets: nodes are registered by hand, pods are failed by the test
		_, err := e.c.Nodes().Create(e.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "bad"}})
		require.NoError(t, err)
		w, err := e.c.Pods().Watch(e.ctx, source.WatchOptions{})
		require.NoError(t, err)
		e.wg.Go(func() {
			for ev := range w {
				// On every add or update (the scheduler writes too), fail
				// the pod; a conflict is retried on the next event.
				if ev.Type == source.Deleted || ev.Object.Status.Phase == api.PodFailed {
					continue
				}
				p := ev.Object.DeepCopy()
				p.Status.Phase = api.PodFailed
				p.Status.Reason = "NodeAffinity"
				_, _ = e.c.Pods().UpdateStatus(e.ctx, p)
			}
		})
		_, err = e.c.CreateObject(e.ctx, logDaemon(nil))
		require.NoError(t, err)
		began := time.Now()
		failures := func() int {
			n := 0
			for _, ev := range e.rec.Events() {
				if ev.Reason == daemonset.ReasonFailedDaemonPod {
					n++
				}
			}
			return n
		}
		// Deletions at 0, 1, 3, 7 and 15 s.
		for _, step := range []struct {
			at   time.Duration
			want int
		}{{500 * time.Millisecond, 1}, {2 * time.Second, 2}, {4 * time.Second, 3}, {8 * time.Second, 4}, {14 * time.Second, 4}, {16 * time.Second, 5}} {
			time.Sleep(time.Until(began.Add(step.at)))
			synctest.Wait()
			require.Equal(t, step.want, failures(), "FailedDaemonPod events by +%v", step.at)
		}
	})
}

// Daemons stay on sick nodes: the taints the node lifecycle controller
// and the kubelet put on a node that stopped reporting or runs short of
// resources (not-ready and unreachable NoExecute, the pressure and
// unschedulable NoSchedule taints) neither evict the daemon pod nor keep
// a new one off: a node registered with them gets its pod, scheduled
// and running.
func TestUnhealthyNodesKeepTheirDaemons(t *testing.T) {
	sick := []api.Taint{
		{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute},
		{Key: api.TaintNodeDiskPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeMemoryPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodePIDPressure, Effect: api.TaintEffectNoSchedule},
		{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule},
	}
	synctest.Test(t, func(t *testing.T) {
		e := start(t, kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24"})
		e.settle(time.Second)
		_, err := e.c.CreateObject(e.ctx, logDaemon(nil))
		require.NoError(t, err)
		e.settle(30 * time.Second)
		before := e.pods()
		require.Len(t, before, 1)

		e.updateNode("node-1", func(n *api.Node) { n.Spec.Taints = sick })
		e.addNode(kubelet.Options{NodeName: "node-2", PodCIDR: "10.244.2.0/24", Taints: sick})
		e.settle(time.Minute)
		require.Equal(t, map[string]int{"node-1": 1, "node-2": 1}, e.podsPerNode())
		_, _, err = e.c.Pods().Get(e.ctx, api.Key(before[0]))
		require.NoError(t, err, "the pod on node-1 was not replaced")
	})
}
