package controlplane_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// A Deployment whose pods repel each other per hostname runs one pod per
// node: with 3 nodes and 4 replicas, 3 run and the fourth stays Pending
// with kube-scheduler's FailedScheduling message.
func TestDeploymentRequiredAntiAffinity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster

		d := webDeployment(4)
		d.Spec.Template.Spec.Affinity = &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{
				TopologyKey:   api.LabelHostname,
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			}}}}
		require.NoError(t, cp.Apply(ctx, d))
		require.NoError(t, cp.Settle(ctx, 0))
		time.Sleep(5 * time.Second)
		synctest.Wait()

		l, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 4)
		perNode := map[string]int{}
		var pending *api.Pod
		for _, p := range l.Items {
			if p.Spec.NodeName == "" {
				require.Nil(t, pending, "one pod pending")
				pending = p
				continue
			}
			require.Equal(t, api.PodRunning, p.Status.Phase)
			perNode[p.Spec.NodeName]++
		}
		require.Equal(t, map[string]int{"node-1": 1, "node-2": 1, "node-3": 1}, perNode)
		require.NotNil(t, pending)
		require.Equal(t, api.PodPending, pending.Status.Phase)
		const want = "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules. " +
			"preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
		var cond *api.PodCondition
		for i := range pending.Status.Conditions {
			if pending.Status.Conditions[i].Type == api.PodScheduled {
				cond = &pending.Status.Conditions[i]
			}
		}
		require.NotNil(t, cond)
		require.Equal(t, "Unschedulable", cond.Reason)
		require.Equal(t, want, cond.Message)
		evs, err := c.Events().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		found := false
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == pending.Name && e.Reason == "FailedScheduling" {
				require.Equal(t, want, e.Message)
				found = true
			}
		}
		require.True(t, found, "a FailedScheduling event for %s", pending.Name)

		// Scaling down to 3 leaves one pod per node, none pending.
		d, _, err = c.Deployments().Get(ctx, "default/web")
		require.NoError(t, err)
		three := int32(3)
		d.Spec.Replicas = &three
		_, err = c.Deployments().Update(ctx, d, "")
		require.NoError(t, err)
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		l, err = c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		nodes := map[string]bool{}
		for _, p := range l.Items {
			if p.DeletionTimestamp == nil {
				require.NotEmpty(t, p.Spec.NodeName, "%s bound", p.Name)
				require.False(t, nodes[p.Spec.NodeName], "two pods on %s", p.Spec.NodeName)
				nodes[p.Spec.NodeName] = true
			}
		}
	})
}

// A Deployment spread over zones with maxSkew 1 (DoNotSchedule) is even:
// 6 replicas over 3 zones of 2 nodes each give 2 per zone, even though
// zone-a's nodes have the most room.
func TestDeploymentTopologySpreadOverZones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 6, Zones: 3})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster

		d := webDeployment(6)
		d.Spec.Template.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: api.LabelTopologyZone, WhenUnsatisfiable: "DoNotSchedule",
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		}}
		require.NoError(t, cp.Apply(ctx, d))
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()

		zoneOf := map[string]string{}
		nl, err := c.Nodes().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		for _, n := range nl.Items {
			zoneOf[n.Name] = n.Labels[api.LabelTopologyZone]
		}
		l, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 6)
		perZone := map[string]int{}
		for _, p := range l.Items {
			require.NotEmpty(t, p.Spec.NodeName, "%s bound", p.Name)
			require.True(t, api.IsPodReady(p), "%s ready", p.Name)
			perZone[zoneOf[p.Spec.NodeName]]++
		}
		require.Equal(t, map[string]int{"zone-a": 2, "zone-b": 2, "zone-c": 2}, perZone)

		// Cordon zone-c: it stays a domain (nodeTaintsPolicy Ignore), with
		// none of a new Deployment's pods, so the global minimum stays 0
		// and only one pod fits in each of zone-a and zone-b; the other
		// four wait with kube-scheduler's message.
		for _, n := range nl.Items {
			if zoneOf[n.Name] == "zone-c" {
				n = n.DeepCopy() // listed objects are shared: never modify them
				n.Spec.Unschedulable = true
				_, err := c.Nodes().Update(ctx, n, "")
				require.NoError(t, err)
			}
		}
		api2 := webDeployment(6)
		api2.Name = "api"
		api2.Spec.Selector.MatchLabels = map[string]string{"app": "api"}
		api2.Spec.Template.Labels = map[string]string{"app": "api"}
		api2.Spec.Template.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: api.LabelTopologyZone, WhenUnsatisfiable: "DoNotSchedule",
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
		}}
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		require.NoError(t, cp.Apply(ctx, api2))
		require.NoError(t, cp.Settle(ctx, 0))
		time.Sleep(5 * time.Second)
		synctest.Wait()
		l, err = c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		var apiPods []*api.Pod
		for _, p := range l.Items {
			if p.Labels["app"] == "api" {
				apiPods = append(apiPods, p)
			}
		}
		require.Len(t, apiPods, 6)
		perZone = map[string]int{}
		const want = "0/6 nodes are available: 2 node(s) were unschedulable, " +
			"4 node(s) didn't match pod topology spread constraints. preemption: 0/6 nodes are available: " +
			"2 Preemption is not helpful for scheduling, 4 No preemption victims found for incoming pod."
		for _, p := range apiPods {
			if p.Spec.NodeName == "" {
				perZone[""]++
				for _, cond := range p.Status.Conditions {
					if cond.Type == api.PodScheduled {
						require.Equal(t, want, cond.Message)
					}
				}
				continue
			}
			perZone[zoneOf[p.Spec.NodeName]]++
		}
		require.Equal(t, map[string]int{"zone-a": 1, "zone-b": 1, "": 4}, perZone)
	})
}
