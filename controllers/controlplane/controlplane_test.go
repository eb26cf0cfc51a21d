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
	"github.com/ctrlkit/ctrlkit/controllers/manager"
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
		var broken []controlplane.Violation
		fail := func(v controlplane.Violation) { broken = append(broken, v); t.Error(v) }
		surge, fit := controlplane.DeploymentSurge(), controlplane.NodeNotOvercommitted()
		surge.OnViolation, fit.OnViolation = fail, fail
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2, Invariants: []controlplane.Invariant{surge, fit}})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster

		require.NoError(t, cp.Apply(ctx, webDeployment(4)))
		start := time.Now()
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		t.Logf("settled after %v of virtual time", time.Since(start))

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
		require.NoError(t, cp.Settle(ctx, 0))
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
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		require.Empty(t, pods())
		rss, err = c.ReplicaSets().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, rss.Items)
		require.Empty(t, broken)
	})
}

// The invariants fail at the write that breaks them: a ReplicaSet scaled
// up behind its Deployment's back, and a pod bound over a node's
// allocatable.
func TestInvariantsCatchTheWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1,
			Invariants: []controlplane.Invariant{controlplane.DeploymentSurge(), controlplane.NodeNotOvercommitted()}})
		require.NoError(t, err)
		c := cp.Cluster
		d := webDeployment(2)
		zero, one := api.FromInt32(0), api.FromInt32(1)
		d.Spec.Strategy.RollingUpdate = &api.RollingUpdateDeployment{MaxSurge: &zero, MaxUnavailable: &one}
		require.NoError(t, cp.Apply(ctx, d))
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		require.Empty(t, cp.Violations(), "the controllers keep both")

		// The Deployment's ReplicaSet scaled up behind its back.
		rss, err := c.ReplicaSets().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, rss.Items, 1)
		rs := rss.Items[0].DeepCopy() // List's objects are shared, read-only
		rs.Spec.Replicas = new(int32(3))
		_, err = c.ReplicaSets().Update(ctx, rs, "")
		require.NoError(t, err, "an invariant observes; the write happens")
		v := cp.Violations()
		require.Len(t, v, 1)
		require.Equal(t, "DeploymentSurge", v[0].Invariant)
		require.Equal(t, api.Key(rs), v[0].Key)
		require.ErrorContains(t, v[0], "would have 3 replicas across its ReplicaSets, replicas 2 + maxSurge 0")

		// A pod bound by hand to a node it does not fit.
		huge := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "huge"}}
		huge.Spec.Containers = []api.Container{{Name: "c", Image: "busybox",
			Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.MustParse("1000")}}}}
		huge.Spec.SchedulerName = "nobody"
		_, err = c.Pods().Create(ctx, huge)
		require.NoError(t, err)
		_, err = c.Bind(ctx, "default", "huge", "node-1")
		require.NoError(t, err)
		v = cp.Violations()
		require.Len(t, v, 2)
		require.Equal(t, "NodeNotOvercommitted", v[1].Invariant)
		require.ErrorContains(t, cp.Stop(), "invariant NodeNotOvercommitted broken by UPDATE pods default/huge")
	})
}

func TestStartBadInput(t *testing.T) {
	var nilCtx context.Context
	_, err := controlplane.Start(nilCtx, controlplane.Options{})
	require.ErrorContains(t, err, "context is nil")
	_, err = controlplane.Start(t.Context(), controlplane.Options{Nodes: -1})
	require.ErrorContains(t, err, "Nodes is negative")
}

// ManagerOnly runs the controller manager alone: a standby replica.
func TestManagerOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3, ManagerOnly: true})
		require.NoError(t, err)
		require.Empty(t, cp.Kubelets)
		require.Nil(t, cp.Scheduler)
		require.Nil(t, cp.Proxy)
		require.Nil(t, cp.DNS)
		require.NotNil(t, cp.Manager)
		require.NoError(t, cp.Apply(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}}))
		require.NoError(t, cp.Settle(ctx, 5*time.Second))
		_, _, err = cp.Cluster.ServiceAccounts().Get(ctx, "team/default")
		require.NoError(t, err, "the manager's controllers run")
		nodes, err := cp.Cluster.Nodes().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, nodes.Items)
		require.NoError(t, cp.Stop())
	})
}

func TestPodCIDRs(t *testing.T) {
	for i, want := range map[int]string{1: "10.244.1.0/24", 255: "10.244.255.0/24", 256: "100.65.0.0/24", 5000: "100.83.136.0/24"} {
		require.Equal(t, want, controlplane.PodCIDR(i))
	}
}

// A control plane whose manager runs no controller (--controllers with
// nothing selected) still settles: the manager leads, with nothing to
// run, until it is stopped, as kube-controller-manager does.
func TestSettleWithNoController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1, Manager: manager.Options{Controllers: []string{}}})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		defer cancel()
		require.NoError(t, cp.Settle(sctx, time.Minute))
	})
}
