package controlplane_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

func webDeployment(replicas int32) *api.Deployment {
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	d.Spec.Replicas = &replicas
	d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	d.Spec.Template.Labels = map[string]string{"app": "web"}
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx:1.27",
		Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse("500m")}}}}
	return d
}

// The pieces together: a Deployment becomes a ReplicaSet, its pods are
// scheduled across the nodes, run and become ready, the Deployment is
// Available; a rollout replaces them; deleting the Deployment cascades
// through the garbage collector and the kubelets' graceful deletion.
func TestDeploymentEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster

		require.NoError(t, cp.Apply(ctx, webDeployment(4)))
		time.Sleep(2 * time.Minute)
		synctest.Wait()

		pods := func() []*api.Pod {
			l, err := c.Pods().List(ctx, source.ListOptions{})
			require.NoError(t, err)
			return l.Items
		}
		perNode := map[string]int{}
		for _, p := range pods() {
			require.True(t, api.IsPodReady(p), "%s is ready", p.Name)
			require.Equal(t, api.PodRunning, p.Status.Phase)
			perNode[p.Spec.NodeName]++
		}
		require.Equal(t, map[string]int{"node-1": 2, "node-2": 2}, perNode, "spread over the nodes")
		d, _, err := c.Deployments().Get(ctx, "default/web")
		require.NoError(t, err)
		require.EqualValues(t, 4, d.Status.AvailableReplicas)

		// A rollout to a new image replaces every pod.
		d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
		_, err = c.Deployments().Update(ctx, d, "")
		require.NoError(t, err)
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		ps := pods()
		require.Len(t, ps, 4)
		for _, p := range ps {
			require.Equal(t, "nginx:1.28", p.Spec.Containers[0].Image)
			require.True(t, api.IsPodReady(p))
		}
		rss, err := c.ReplicaSets().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, rss.Items, 2, "the old ReplicaSet stays, scaled to 0, for rollbacks")

		// Delete the Deployment: the collector takes the ReplicaSets and
		// pods with it.
		_, err = c.Deployments().DeleteWith(ctx, "default/web", cluster.DeleteOptions{})
		require.NoError(t, err)
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		require.Empty(t, pods())
		rss, err = c.ReplicaSets().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, rss.Items)
	})
}

func TestStartBadInput(t *testing.T) {
	var nilCtx context.Context
	_, err := controlplane.Start(nilCtx, controlplane.Options{})
	require.ErrorContains(t, err, "context is nil")
	_, err = controlplane.Start(t.Context(), controlplane.Options{Nodes: -1})
	require.ErrorContains(t, err, "Nodes is negative")
}
