package replicaset

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
)

// An update of an owned pod wakes its owner only when it changes what the
// owner's sync reads of it: labels, controller reference, deletion, phase,
// the Ready condition and its transition time. Binding, container
// statuses and other conditions wake nothing.
func TestUpdatePodWakesOnlyOnSyncedFields(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	labels := map[string]string{"app": "web"}
	replicas := int32(1)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &api.LabelSelector{MatchLabels: labels},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: labels},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			},
		},
	}
	_, err = c.ReplicaSets().Create(ctx, rs)
	require.NoError(t, err)
	k, err := replicaSetKind(c)
	require.NoError(t, err)
	quiet := slog.New(slog.DiscardHandler)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	m, err := newManager(c, f, k, "replicaset-controller", Options{Logger: quiet})
	require.NoError(t, err)
	f.Start(ctx)
	defer f.Shutdown()
	require.True(t, f.WaitForCacheSync(ctx))

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := func() *api.Pod {
		return &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: "web-1", Namespace: "default", ResourceVersion: "10",
				Labels: map[string]string{"app": "web"}, OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			Status: api.PodStatus{Phase: api.PodPending, Conditions: []api.PodCondition{
				{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(t0)},
				{Type: api.PodReady, Status: api.ConditionFalse, LastTransitionTime: api.NewTime(t0)},
			}},
		}
	}
	ready := func(p *api.Pod, at time.Time) {
		c, _ := p.Status.GetCondition(api.PodReady)
		c.Status, c.LastTransitionTime = api.ConditionTrue, api.NewTime(at)
	}
	for _, tc := range []struct {
		name   string
		change func(p *api.Pod)
		wakes  bool
	}{
		{"bound to a node", func(p *api.Pod) { p.Spec.NodeName = "node-1" }, false},
		{"container status", func(p *api.Pod) {
			p.Status.ContainerStatuses = []api.ContainerStatus{{Name: "app", Image: "nginx"}}
		}, false},
		{"another condition", func(p *api.Pod) {
			p.Status.Conditions = append(p.Status.Conditions, api.PodCondition{Type: api.PodInitialized, Status: api.ConditionTrue})
		}, false},
		{"annotation", func(p *api.Pod) { p.Annotations = map[string]string{"a": "b"} }, false},
		{"phase", func(p *api.Pod) { p.Status.Phase = api.PodRunning }, true},
		{"failed", func(p *api.Pod) { p.Status.Phase = api.PodFailed }, true},
		{"ready", func(p *api.Pod) { ready(p, t0.Add(time.Second)) }, true},
		{"ready transition time", func(p *api.Pod) {
			c, _ := p.Status.GetCondition(api.PodReady)
			c.LastTransitionTime = api.NewTime(t0.Add(time.Second))
		}, true},
		{"ready condition gone", func(p *api.Pod) { p.Status.Conditions = p.Status.Conditions[:1] }, true},
		{"labels", func(p *api.Pod) { p.Labels = map[string]string{"app": "web", "x": "y"} }, true},
		{"deleted", func(p *api.Pod) { now := api.NewTime(t0); p.DeletionTimestamp = &now }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, cur := base(), base()
			tc.change(cur)
			cur.ResourceVersion = "11"
			keys := m.updatePod(old, cur)
			if tc.wakes {
				require.Equal(t, []string{"default/web"}, keys)
			} else {
				require.Empty(t, keys)
			}
			// A resync (the same version) never wakes.
			require.Empty(t, m.updatePod(cur, cur))
		})
	}
}
