package disruption_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/disruption"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
)

// env is a cluster with the disruption controller running on it.
type env struct {
	ctx context.Context
	c   *cluster.Cluster
	rec *events.Memory
}

func start(t *testing.T) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
	rec := events.NewMemory()
	d, err := disruption.New(c, f, disruption.Options{Recorder: rec, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		f.Shutdown()
	})
	return &env{ctx: ctx, c: c, rec: rec}
}

func (e *env) pod(t *testing.T, name string, ready bool, owner *api.OwnerReference) *api.Pod {
	t.Helper()
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	if owner != nil {
		p.OwnerReferences = []api.OwnerReference{*owner}
	}
	_, err := e.c.Pods().Create(e.ctx, p)
	require.NoError(t, err)
	if ready {
		p.Status.Phase = api.PodRunning
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		_, err = e.c.Pods().UpdateStatus(e.ctx, p)
		require.NoError(t, err)
	}
	return p
}

func (e *env) pdb(t *testing.T, name string) *api.PodDisruptionBudget {
	t.Helper()
	b, _, err := storeOf(e.c).Get(e.ctx, "default/"+name)
	require.NoError(t, err)
	return b
}

func storeOf(c *cluster.Cluster) *cluster.Store[*api.PodDisruptionBudget] {
	r, err := c.ResourceFor(api.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"})
	if err != nil {
		panic(err)
	}
	return r.(*cluster.Store[*api.PodDisruptionBudget])
}

// settle lets virtual time pass (the controller's first sync waits for
// its caches on a timer) until every goroutine is blocked.
func settle() {
	time.Sleep(time.Second)
	synctest.Wait()
}

func controllerRef(apiVersion, kind, name string, uid api.UID) *api.OwnerReference {
	yes := true
	return &api.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes}
}

// A Deployment of 3 through its ReplicaSet, maxUnavailable 1: expected
// pods from the Deployment's scale; an unready pod takes the allowance;
// a budget that selects no pod records NoPods; a pod whose controller is
// a Job (no scale) fails the sync safe, with the events kcm records.
func TestController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		three := int32(3)
		dep := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: api.DeploymentSpec{Replicas: &three, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				Template: api.PodTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
					Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}}}
		_, err := e.c.Deployments().Create(e.ctx, dep)
		require.NoError(t, err)
		rs := &api.ReplicaSet{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-1",
			OwnerReferences: []api.OwnerReference{*controllerRef("apps/v1", "Deployment", "web", dep.UID)}},
			Spec: api.ReplicaSetSpec{Replicas: &three, Selector: dep.Spec.Selector, Template: dep.Spec.Template}}
		_, err = e.c.ReplicaSets().Create(e.ctx, rs)
		require.NoError(t, err)
		byRS := controllerRef("apps/v1", "ReplicaSet", "web-1", rs.UID)
		e.pod(t, "web-a", true, byRS)
		e.pod(t, "web-b", true, byRS)
		c := e.pod(t, "web-c", false, byRS)

		one := api.FromInt32(1)
		_, err = storeOf(e.c).Create(e.ctx, &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: api.PodDisruptionBudgetSpec{MaxUnavailable: &one, Selector: dep.Spec.Selector}})
		require.NoError(t, err)
		settle()
		b := e.pdb(t, "web")
		require.Equal(t, api.PodDisruptionBudgetStatus{ObservedGeneration: 1, ExpectedPods: 3, DesiredHealthy: 2, CurrentHealthy: 2,
			DisruptionsAllowed: 0, Conditions: []api.Condition{{Type: "DisruptionAllowed", Status: api.ConditionFalse, ObservedGeneration: 1,
				Reason: "InsufficientPods", LastTransitionTime: b.Status.Conditions[0].LastTransitionTime}}}, b.Status)

		// The third pod gets ready: one disruption allowed.
		c.Status.Phase = api.PodRunning
		c.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
		_, err = e.c.Pods().UpdateStatus(e.ctx, c)
		require.NoError(t, err)
		settle()
		b = e.pdb(t, "web")
		require.Equal(t, int32(1), b.Status.DisruptionsAllowed)
		require.Equal(t, int32(3), b.Status.CurrentHealthy)
		require.Equal(t, "SufficientPods", b.Status.Conditions[0].Reason)

		// A disruptedPods entry (as the eviction API writes) takes the pod
		// out of the healthy count for DeletionTimeout, then expires.
		b.Status.DisruptedPods = map[string]api.Time{"web-a": api.NewTime(time.Now())}
		b.Status.DisruptionsAllowed = 0
		_, err = storeOf(e.c).UpdateStatus(e.ctx, b)
		require.NoError(t, err)
		settle()
		b = e.pdb(t, "web")
		require.Equal(t, int32(2), b.Status.CurrentHealthy)
		require.Equal(t, int32(0), b.Status.DisruptionsAllowed)
		require.Contains(t, b.Status.DisruptedPods, "web-a")
		time.Sleep(disruption.DeletionTimeout + time.Second)
		settle()
		b = e.pdb(t, "web")
		require.Equal(t, int32(3), b.Status.CurrentHealthy, "the entry expired: the pod was not deleted")
		require.Empty(t, b.Status.DisruptedPods)
		require.Contains(t, e.rec.Strings(), "Warning NotDeleted Pod was expected by PDB default/web to be deleted but it wasn't")

		// A budget over nothing, and one over a pod of a Job (no scale).
		half := api.FromString("50%")
		_, err = storeOf(e.c).Create(e.ctx, &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "none"},
			Spec: api.PodDisruptionBudgetSpec{MinAvailable: &half, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "none"}}}})
		require.NoError(t, err)
		job := e.pod(t, "job-x", true, controllerRef("batch/v1", "Job", "x", "uid-x"))
		job.Labels = map[string]string{"app": "job"}
		_, err = e.c.Pods().Update(e.ctx, job, "")
		require.NoError(t, err)
		_, err = storeOf(e.c).Create(e.ctx, &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "job"},
			Spec: api.PodDisruptionBudgetSpec{MinAvailable: &half, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "job"}}}})
		require.NoError(t, err)
		settle()
		require.Contains(t, e.rec.Strings(), "Normal NoPods No matching pods found")
		b = e.pdb(t, "job")
		require.Equal(t, int32(0), b.Status.DisruptionsAllowed)
		require.Len(t, b.Status.Conditions, 1)
		require.Equal(t, "SyncFailed", b.Status.Conditions[0].Reason)
		var failed bool
		for _, s := range e.rec.Strings() {
			failed = failed || strings.HasPrefix(s, "Warning CalculateExpectedPodCountFailed Failed to calculate the number of expected pods: ")
		}
		require.True(t, failed, e.rec.Strings())
	})
}
