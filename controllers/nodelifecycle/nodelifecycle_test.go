package nodelifecycle_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
)

func threeNodes() []node { return []node{{name: "node-1"}, {name: "node-2"}, {name: "node-3"}} }

// A node dies under a ReplicaSet's pods: its conditions go Unknown after
// the grace period, it is tainted, its pod is marked not ready and, after
// the default 300 s toleration, evicted and replaced elsewhere; when it
// comes back it is untainted and Ready again.
func TestNodeDiesUnderReplicaSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, threeNodes(), nodelifecycle.Options{})
		h.replicaSet("web", 3)
		time.Sleep(time.Minute)
		synctest.Wait()
		victims := h.podsOn("node-1")
		require.Len(t, victims, 1, "the scheduler spreads the ReplicaSet")
		victim := victims[0]
		require.True(t, api.IsPodReady(victim))
		for _, tol := range victim.Spec.Tolerations {
			if tol.Key == api.TaintNodeUnreachable {
				require.EqualValues(t, 300, *tol.TolerationSeconds, "the store adds the default toleration")
			}
		}

		h.kubelets["node-1"].Stop()
		stopped := time.Now()
		time.Sleep(45 * time.Second)
		synctest.Wait()
		require.Equal(t, api.ConditionTrue, condition(h.node("node-1"), api.NodeReady).Status, "within the grace period")

		time.Sleep(25 * time.Second) // stopped + 70 s
		synctest.Wait()
		n := h.node("node-1")
		for _, ct := range []api.NodeConditionType{api.NodeReady, api.NodeMemoryPressure, api.NodeDiskPressure, api.NodePIDPressure} {
			c := condition(n, ct)
			require.Equal(t, api.ConditionUnknown, c.Status, ct)
			require.Equal(t, nodelifecycle.ReasonNodeStatusUnknown, c.Reason)
			require.Equal(t, nodelifecycle.MessageNodeStatusUnknown, c.Message)
		}
		unknownAt := condition(n, api.NodeReady).LastTransitionTime.Time
		require.True(t, unknownAt.Sub(stopped) > 50*time.Second && unknownAt.Sub(stopped) <= 65*time.Second, "Unknown %v after the stop", unknownAt.Sub(stopped))
		noExec, ok := taint(n, api.TaintNodeUnreachable, api.TaintEffectNoExecute)
		require.True(t, ok, "tainted unreachable:NoExecute: %v", n.Spec.Taints)
		require.NotNil(t, noExec.TimeAdded)
		_, ok = taint(n, api.TaintNodeUnreachable, api.TaintEffectNoSchedule)
		require.True(t, ok, "and unreachable:NoSchedule")
		_, ok = taint(n, api.TaintNodeNotReady, api.TaintEffectNoExecute)
		require.False(t, ok)
		p, _, err := h.c.Pods().Get(h.ctx, api.Key(victim))
		require.NoError(t, err)
		require.False(t, api.IsPodReady(p), "MarkPodsNotReady")

		// The default toleration holds the pod for 300 s after the taint.
		taintedAt := noExec.TimeAdded.Time
		time.Sleep(time.Until(taintedAt.Add(290 * time.Second)))
		synctest.Wait()
		p, _, err = h.c.Pods().Get(h.ctx, api.Key(victim))
		require.NoError(t, err)
		require.Nil(t, p.DeletionTimestamp, "still tolerated")
		time.Sleep(20 * time.Second)
		synctest.Wait()
		p, _, err = h.c.Pods().Get(h.ctx, api.Key(victim))
		require.NoError(t, err, "Terminating: its kubelet cannot confirm")
		require.NotNil(t, p.DeletionTimestamp, "evicted")
		dt, ok := p.Status.GetCondition(tainteviction.ConditionDisruptionTarget)
		require.True(t, ok)
		require.Equal(t, tainteviction.ReasonDeletionByTaintManager, dt.Reason)

		time.Sleep(30 * time.Second)
		synctest.Wait()
		ready := map[string]int{}
		for _, p := range h.pods() {
			if p.DeletionTimestamp == nil {
				require.True(t, api.IsPodReady(p), p.Name)
				ready[p.Spec.NodeName]++
			}
		}
		require.Equal(t, 3, ready["node-2"]+ready["node-3"], "replaced on the live nodes: %v", ready)
		require.Zero(t, ready["node-1"])

		// The node comes back.
		h.kubelets["node-1"].Start()
		time.Sleep(time.Minute)
		synctest.Wait()
		n = h.node("node-1")
		for _, ct := range []api.NodeConditionType{api.NodeReady} {
			require.Equal(t, api.ConditionTrue, condition(n, ct).Status)
		}
		require.Empty(t, n.Spec.Taints, "untainted")
		_, _, err = h.c.Pods().Get(h.ctx, api.Key(victim))
		require.Error(t, err, "the kubelet confirmed the deletion")
		require.Len(t, h.pods(), 3)
	})
}
