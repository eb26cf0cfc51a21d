package scheduler_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/informer"
)

// A pod whose claim is unbound (or missing) stays Pending with
// kube-scheduler's message; once the claim is bound by hand it is
// scheduled at its next retry (within the 10 s maximum backoff), on a
// node its volume's node affinity admits. The claims and volumes are
// looked up through shared informers, as the control plane wires them.
func TestUnboundClaimHoldsPod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		for i, zone := range []string{"a", "b", "b"} {
			n := node([]string{"n1", "n2", "n3"}[i], "4", "8Gi")
			n.Labels = map[string]string{api.LabelTopologyZone: zone}
			_, err = c.Nodes().Create(ctx, n)
			require.NoError(t, err)
		}
		f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
		defer f.Shutdown()
		pvcs, err := informer.Shared(f, c.PersistentVolumeClaims().Resource(), c.PersistentVolumeClaims(),
			api.Key[*api.PersistentVolumeClaim], informer.Options[*api.PersistentVolumeClaim]{})
		require.NoError(t, err)
		pvs, err := informer.Shared(f, c.PersistentVolumes().Resource(), c.PersistentVolumes(),
			api.Key[*api.PersistentVolume], informer.Options[*api.PersistentVolume]{})
		require.NoError(t, err)
		w := scheduler.ClusterWriter{Cluster: c}
		s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w,
			Claims: scheduler.ClaimsFrom(pvcs.Lister()), Volumes: scheduler.VolumesFrom(pvs.Lister()),
			Synced: []func() bool{pvcs.HasSynced, pvs.HasSynced},
			Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		f.Start(ctx) // after the scheduler, as the control plane's manager starts the factory

		_, err = c.PersistentVolumes().Create(ctx, &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pv-0"},
			Spec: api.PersistentVolumeSpec{NodeAffinity: &api.VolumeNodeAffinity{Required: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
					{Key: api.LabelTopologyZone, Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}}}}}}})
		require.NoError(t, err)
		_, err = c.PersistentVolumeClaims().Create(ctx, &api.PersistentVolumeClaim{
			ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "data-web-0"}})
		require.NoError(t, err)
		withClaim := func(p *api.Pod, claim string) *api.Pod {
			p.UID = ""
			p.Spec.Containers[0].Image = "nginx"
			p.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{
				PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
			return p
		}
		_, err = c.Pods().Create(ctx, withClaim(pod("web-0", "1"), "data-web-0"))
		require.NoError(t, err)
		_, err = c.Pods().Create(ctx, withClaim(pod("web-1", "1"), "data-web-1"))
		require.NoError(t, err)

		time.Sleep(30 * time.Second)
		synctest.Wait()
		condOf := func(name string) (string, api.PodCondition) {
			t.Helper()
			p, _, err := c.Pods().Get(ctx, "default/"+name)
			require.NoError(t, err)
			cond, _ := p.Status.GetCondition(api.PodScheduled)
			if cond == nil {
				return p.Spec.NodeName, api.PodCondition{}
			}
			return p.Spec.NodeName, *cond
		}
		for name, want := range map[string]string{
			"web-0": "0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims." +
				" preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
			"web-1": `0/3 nodes are available: persistentvolumeclaim "data-web-1" not found.` +
				" preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		} {
			on, cond := condOf(name)
			require.Empty(t, on, name)
			require.Equal(t, api.ConditionFalse, cond.Status, name)
			require.Equal(t, scheduler.ReasonUnschedulable, cond.Reason, name)
			require.Equal(t, want, cond.Message, name)
		}
		require.Equal(t, []string{"default/web-0", "default/web-1"}, s.Unschedulable())
		e, ok := s.Explain("default/web-0")
		require.True(t, ok)
		require.Len(t, e.Verdicts, 3)
		for _, v := range e.Verdicts {
			require.Equal(t, scheduler.FilterVolumeBinding, v.Filter)
			require.Equal(t, []string{scheduler.ReasonUnboundImmediateClaims}, v.Reasons)
		}

		// Bind the claim by hand: spec.volumeName, then status Bound.
		pvc, rv, err := c.PersistentVolumeClaims().Get(ctx, "default/data-web-0")
		require.NoError(t, err)
		pvc.Spec.VolumeName = "pv-0"
		_, err = c.PersistentVolumeClaims().Update(ctx, pvc, rv)
		require.NoError(t, err)
		pvc.Status.Phase = "Bound"
		_, err = c.PersistentVolumeClaims().UpdateStatus(ctx, pvc)
		require.NoError(t, err)
		time.Sleep(10*time.Second + time.Millisecond)
		synctest.Wait()
		on, _ := condOf("web-0")
		require.Equal(t, "n1", on, "web-0 goes where pv-0's node affinity admits")
		on, _ = condOf("web-1")
		require.Empty(t, on)
		require.Equal(t, []string{"default/web-1"}, s.Unschedulable())

		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}
