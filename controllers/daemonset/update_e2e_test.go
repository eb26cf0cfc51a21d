package daemonset_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
)

func threeNodes(t *testing.T) *env {
	return start(t,
		kubelet.Options{NodeName: "node-1", PodCIDR: "10.244.1.0/24"},
		kubelet.Options{NodeName: "node-2", PodCIDR: "10.244.2.0/24"},
		kubelet.Options{NodeName: "node-3", PodCIDR: "10.244.3.0/24"},
	)
}

func (e *env) setImage(image string) {
	e.t.Helper()
	ds, rv, err := e.c.DaemonSets().Get(e.ctx, "default/log")
	require.NoError(e.t, err)
	ds.Spec.Template.Spec.Containers[0].Image = image
	_, err = e.c.DaemonSets().Update(e.ctx, ds, rv)
	require.NoError(e.t, err)
}

func images(pods []*api.Pod) map[string]string {
	out := map[string]string{}
	for _, p := range pods {
		if p.DeletionTimestamp == nil {
			out[nodeOf(p)] = p.Spec.Containers[0].Image
		}
	}
	return out
}

// maxSurge 1, maxUnavailable 0: the new pod starts beside the old one,
// which goes once the new one is available, so every node always has a
// ready pod, and at most one node runs two.
func TestRollingUpdateWithSurgeEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := threeNodes(t)
		e.settle(time.Second)
		ds := logDaemon(nil)
		one, zero := api.FromInt32(1), api.FromInt32(0)
		ds.Spec.UpdateStrategy.RollingUpdate = &api.RollingUpdateDaemonSet{MaxSurge: &one, MaxUnavailable: &zero}
		_, err := e.c.CreateObject(e.ctx, ds)
		require.NoError(t, err)
		e.settle(30 * time.Second)
		require.Equal(t, map[string]int{"node-1": 1, "node-2": 1, "node-3": 1}, e.podsPerNode())

		e.setImage("log:2")
		surged := 0
		for range 120 {
			e.settle(time.Second)
			ready := readyPerNode(e.pods())
			require.Len(t, ready, 3, "every node keeps a ready pod")
			live := map[string]int{}
			for _, p := range e.pods() {
				if p.DeletionTimestamp == nil {
					live[p.Spec.NodeName]++
				}
			}
			twice := 0
			for _, n := range live {
				if n == 2 {
					twice++
				}
			}
			require.LessOrEqual(t, twice, 1, "at most maxSurge nodes with two pods")
			surged += twice
		}
		require.Positive(t, surged, "old and new ran side by side")
		require.Equal(t, map[string]string{"node-1": "log:2", "node-2": "log:2", "node-3": "log:2"}, images(e.pods()))
	})
}

// OnDelete: a template change replaces nothing until a pod is deleted;
// its replacement runs the new template.
func TestOnDeleteEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := threeNodes(t)
		e.settle(time.Second)
		ds := logDaemon(nil)
		ds.Spec.UpdateStrategy.Type = "OnDelete"
		_, err := e.c.CreateObject(e.ctx, ds)
		require.NoError(t, err)
		e.settle(30 * time.Second)

		e.setImage("log:2")
		e.settle(time.Minute)
		require.Equal(t, map[string]string{"node-1": "log:1", "node-2": "log:1", "node-3": "log:1"}, images(e.pods()))
		cur, _, err := e.c.DaemonSets().Get(e.ctx, "default/log")
		require.NoError(t, err)
		require.EqualValues(t, 0, cur.Status.UpdatedNumberScheduled)

		for _, p := range e.pods() {
			if p.Spec.NodeName == "node-2" {
				_, err := e.c.Pods().Delete(e.ctx, api.Key(p), "")
				require.NoError(t, err)
			}
		}
		e.settle(time.Minute)
		require.Equal(t, map[string]string{"node-1": "log:1", "node-2": "log:2", "node-3": "log:1"}, images(e.pods()))
		require.Equal(t, map[string]int{"node-1": 1, "node-2": 1, "node-3": 1}, e.podsPerNode())
		cur, _, err = e.c.DaemonSets().Get(e.ctx, "default/log")
		require.NoError(t, err)
		require.EqualValues(t, 1, cur.Status.UpdatedNumberScheduled)
	})
}

// nodeOf is the node a daemon pod is bound, or pinned, to.
func nodeOf(p *api.Pod) string {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName
	}
	return p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
}
