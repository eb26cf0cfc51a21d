package nodelifecycle_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
)

func nodes(n int, zone string) []node {
	var out []node
	for i := 1; i <= n; i++ {
		out = append(out, node{name: fmt.Sprintf("node-%d", i), zone: zone})
	}
	return out
}

func (h *harness) unreachableSince(name string) (time.Time, bool) {
	t, ok := taint(h.node(name), api.TaintNodeUnreachable, api.TaintEffectNoExecute)
	if !ok {
		return time.Time{}, false
	}
	return t.TimeAdded.Time, true
}

// Two nodes of five die at once: the zone stays Normal (two unhealthy
// nodes never make a disruption), and its queue taints one node at once
// and the next 10 s later (0.1 nodes/s).
func TestTaintingIsRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nodes(5, "zone-a"), nodelifecycle.Options{})
		time.Sleep(time.Minute)
		synctest.Wait()
		h.kubelets["node-1"].Stop()
		h.kubelets["node-2"].Stop()
		time.Sleep(90 * time.Second)
		synctest.Wait()
		t1, ok1 := h.unreachableSince("node-1")
		t2, ok2 := h.unreachableSince("node-2")
		require.True(t, ok1 && ok2)
		first, second := earliest(t1, t2), latest(t1, t2)
		gap := second.Sub(first)
		require.True(t, gap >= 10*time.Second && gap <= 10*time.Second+nodelifecycle.NodeEvictionPeriod, "gap %v", gap)
		for _, n := range []string{"node-3", "node-4", "node-5"} {
			_, ok := h.unreachableSince(n)
			require.False(t, ok, n)
		}
	})
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// Four nodes of six in one zone die: the zone is partially disrupted,
// and being small (≤ 50 nodes) it stops tainting NoExecute altogether;
// the NoSchedule taints mirroring the conditions still come.
func TestPartialDisruptionInSmallZoneStopsTainting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nodes(6, "zone-a"), nodelifecycle.Options{})
		time.Sleep(time.Minute)
		synctest.Wait()
		for i := 1; i <= 4; i++ {
			h.kubelets[fmt.Sprintf("node-%d", i)].Stop()
		}
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		for i := 1; i <= 4; i++ {
			n := h.node(fmt.Sprintf("node-%d", i))
			require.Equal(t, api.ConditionUnknown, condition(n, api.NodeReady).Status)
			_, ok := taint(n, api.TaintNodeUnreachable, api.TaintEffectNoExecute)
			require.False(t, ok, "no NoExecute taint in a partially disrupted small zone: %s %v", n.Name, n.Spec.Taints)
			_, ok = taint(n, api.TaintNodeUnreachable, api.TaintEffectNoSchedule)
			require.True(t, ok, n.Name)
		}
	})
}

// Every node dies (the control plane lost its network, more likely than
// every node at once): nodes go Unknown and their pods not ready, but no
// node is tainted NoExecute and no pod is evicted; when the nodes come
// back, everything is ready again.
func TestFullDisruptionEvictsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, threeNodes(), nodelifecycle.Options{})
		h.replicaSet("web", 3)
		time.Sleep(time.Minute)
		synctest.Wait()
		for _, k := range h.kubelets {
			k.Stop()
		}
		time.Sleep(15 * time.Minute)
		synctest.Wait()
		pods := h.pods()
		require.Len(t, pods, 3)
		for _, p := range pods {
			require.Nil(t, p.DeletionTimestamp, "not evicted: %s", p.Name)
			require.False(t, api.IsPodReady(p), "marked not ready: %s", p.Name)
		}
		for _, name := range []string{"node-1", "node-2", "node-3"} {
			n := h.node(name)
			require.Equal(t, api.ConditionUnknown, condition(n, api.NodeReady).Status)
			_, ok := taint(n, api.TaintNodeUnreachable, api.TaintEffectNoExecute)
			require.False(t, ok, name)
		}

		for _, k := range h.kubelets {
			k.Start()
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		for _, p := range h.pods() {
			require.True(t, api.IsPodReady(p), p.Name)
		}
		for _, name := range []string{"node-1", "node-2", "node-3"} {
			n := h.node(name)
			require.Equal(t, api.ConditionTrue, condition(n, api.NodeReady).Status)
			require.Empty(t, n.Spec.Taints)
		}
	})
}

// A node that comes back within its pods' toleration is untainted and
// the pending evictions are cancelled: nothing is evicted.
func TestNodeReturnsBeforeEviction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, threeNodes(), nodelifecycle.Options{})
		h.replicaSet("web", 3)
		time.Sleep(time.Minute)
		synctest.Wait()
		victim := h.podsOn("node-1")[0]
		h.kubelets["node-1"].Stop()
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		_, tainted := h.unreachableSince("node-1")
		require.True(t, tainted)

		h.kubelets["node-1"].Start()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		n := h.node("node-1")
		require.Empty(t, n.Spec.Taints)
		p, _, err := h.c.Pods().Get(h.ctx, api.Key(victim))
		require.NoError(t, err)
		require.Nil(t, p.DeletionTimestamp, "not evicted")
		require.True(t, api.IsPodReady(p), "ready again")
		require.Len(t, h.pods(), 3)
		cancelled := false
		for _, ev := range h.rec.Events() {
			if ev.Reason == tainteviction.ReasonTaintManagerEviction && ev.Message == "Cancelling deletion of Pod "+api.Key(victim) {
				cancelled = true
			}
		}
		require.True(t, cancelled, "the eviction was cancelled")
	})
}

// spec.unschedulable is mirrored by the unschedulable:NoSchedule taint.
func TestCordonTaint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := start(t, nodes(1, ""), nodelifecycle.Options{})
		time.Sleep(10 * time.Second)
		synctest.Wait()
		n := h.node("node-1")
		n.Spec.Unschedulable = true
		_, err := h.c.Nodes().Update(h.ctx, n, "")
		require.NoError(t, err)
		synctest.Wait()
		_, ok := taint(h.node("node-1"), api.TaintNodeUnschedulable, api.TaintEffectNoSchedule)
		require.True(t, ok)
		n = h.node("node-1")
		n.Spec.Unschedulable = false
		_, err = h.c.Nodes().Update(h.ctx, n, "")
		require.NoError(t, err)
		synctest.Wait()
		require.Empty(t, h.node("node-1").Spec.Taints)
	})
}
