package cluster_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

type evictEnv struct {
	ctx  context.Context
	c    *cluster.Cluster
	pdbs client.Resource[*api.PodDisruptionBudget]
}

func newEvictEnv(t *testing.T) *evictEnv {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	pdbs, err := client.For[*api.PodDisruptionBudget](c)
	require.NoError(t, err)
	return &evictEnv{ctx: t.Context(), c: c, pdbs: pdbs}
}

// pod creates a pod labelled app=web in phase, Ready or not.
func (e *evictEnv) pod(t *testing.T, name string, phase api.PodPhase, ready bool) *api.Pod {
	t.Helper()
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
	_, err := e.c.Pods().Create(e.ctx, p)
	require.NoError(t, err)
	p.Status.Phase = phase
	if ready {
		p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	}
	_, err = e.c.Pods().UpdateStatus(e.ctx, p)
	require.NoError(t, err)
	return p
}

// pdb creates a budget over app=web with the status the disruption
// controller would have written.
func (e *evictEnv) pdb(t *testing.T, name string, allowed, current, desired int32, edit func(*api.PodDisruptionBudget)) *api.PodDisruptionBudget {
	t.Helper()
	one := api.FromInt32(1)
	b := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	if edit != nil {
		edit(b)
	}
	_, err := e.pdbs.Create(e.ctx, b)
	require.NoError(t, err)
	b.Status = api.PodDisruptionBudgetStatus{ObservedGeneration: b.Generation, DisruptionsAllowed: allowed,
		CurrentHealthy: current, DesiredHealthy: desired, ExpectedPods: current}
	_, err = e.pdbs.UpdateStatus(e.ctx, b)
	require.NoError(t, err)
	return b
}

func (e *evictEnv) gone(t *testing.T, name string) bool {
	t.Helper()
	p, _, err := e.c.Pods().Get(e.ctx, "default/"+name)
	if client.IsNotFound(err) {
		return true
	}
	require.NoError(t, err)
	return p.DeletionTimestamp != nil
}

// The cases of kube's pkg/registry/core/pod/storage/eviction_test.go
// (TestEviction, TestEvictionIgnorePDB, TestEvictionPDBStatus), on the
// in-process cluster.
func TestEvict(t *testing.T) {
	alwaysAllow := api.AlwaysAllow
	cases := []struct {
		name    string
		phase   api.PodPhase
		ready   bool
		budgets []func(*evictEnv, *testing.T)
		wantErr func(error) bool
		evicted bool
		// wantAllowed/wantDisrupted: the budget "a" afterwards.
		wantAllowed   int32
		wantDisrupted bool
	}{
		{name: "no budget", phase: api.PodRunning, ready: true, evicted: true},
		{name: "matching budget, disruptions allowed", phase: api.PodRunning, ready: true,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 1, 2, 1, nil) }},
			evicted: true, wantAllowed: 0, wantDisrupted: true},
		{name: "matching budget, no disruptions allowed", phase: api.PodRunning, ready: true,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 0, 1, 1, nil) }},
			wantErr: client.IsTooManyRequests},
		{name: "non-matching budget", phase: api.PodRunning, ready: true,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) {
				e.pdb(t, "a", 0, 1, 1, func(b *api.PodDisruptionBudget) { b.Spec.Selector.MatchLabels = map[string]string{"app": "db"} })
			}},
			evicted: true},
		{name: "two matching budgets", phase: api.PodRunning, ready: true,
			budgets: []func(*evictEnv, *testing.T){
				func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 1, 2, 1, nil) },
				func(e *evictEnv, t *testing.T) { e.pdb(t, "b", 1, 2, 1, nil) }},
			wantErr: func(err error) bool { return err == cluster.ErrMultipleBudgets }, wantAllowed: 1},
		// TestEvictionIgnorePDB: pods not running are deleted whatever the budget.
		{name: "pending pod ignores budget", phase: api.PodPending, ready: false,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 0, 1, 1, nil) }},
			evicted: true},
		{name: "succeeded pod ignores budget", phase: api.PodSucceeded, ready: false,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 0, 1, 1, nil) }},
			evicted: true},
		{name: "failed pod ignores budget", phase: api.PodFailed, ready: false,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 0, 1, 1, nil) }},
			evicted: true},
		{name: "unready pod, healthy budget: evicted without using the allowance", phase: api.PodRunning, ready: false,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 0, 2, 2, nil) }},
			evicted: true},
		{name: "unready pod, unhealthy budget: refused", phase: api.PodRunning, ready: false,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", 0, 1, 2, nil) }},
			wantErr: client.IsTooManyRequests},
		{name: "unready pod, unhealthy budget, AlwaysAllow: evicted", phase: api.PodRunning, ready: false,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) {
				e.pdb(t, "a", 0, 1, 2, func(b *api.PodDisruptionBudget) { b.Spec.UnhealthyPodEvictionPolicy = &alwaysAllow })
			}},
			evicted: true},
		{name: "negative allowance: forbidden", phase: api.PodRunning, ready: true,
			budgets: []func(*evictEnv, *testing.T){func(e *evictEnv, t *testing.T) { e.pdb(t, "a", -1, 1, 1, nil) }},
			wantErr: client.IsForbidden, wantAllowed: -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newEvictEnv(t)
				e.pod(t, "web-0", c.phase, c.ready)
				for _, b := range c.budgets {
					b(e, t)
				}
				ev, err := client.EvictorFor(e.c)
				require.NoError(t, err)
				err = ev.Evict(e.ctx, "default", "web-0", client.DeleteOptions{})
				if c.wantErr != nil {
					require.True(t, c.wantErr(err), "err = %v", err)
				} else {
					require.NoError(t, err)
				}
				require.Equal(t, c.evicted, e.gone(t, "web-0"))
				if len(c.budgets) == 0 {
					return
				}
				b, _, err := e.pdbs.Get(e.ctx, "default/a")
				require.NoError(t, err)
				if c.wantDisrupted {
					require.Equal(t, c.wantAllowed, b.Status.DisruptionsAllowed)
					require.Contains(t, b.Status.DisruptedPods, "web-0")
					require.Equal(t, "InsufficientPods", b.Status.Conditions[0].Reason)
				} else {
					require.Empty(t, b.Status.DisruptedPods)
				}
			})
		})
	}
}

// A refused eviction says why as kube-apiserver does; an allowed one
// marks the pod DisruptionTarget before deleting it with the eviction's
// options (its grace period); a budget not yet observed is "still being
// processed"; preconditions are honoured.
func TestEvictDetails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newEvictEnv(t)
		_, err := e.c.Nodes().Create(e.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}})
		require.NoError(t, err)
		e.pod(t, "web-0", api.PodRunning, true)
		_, err = e.c.Bind(e.ctx, "default", "web-0", "n1")
		require.NoError(t, err)
		b := e.pdb(t, "web", 0, 2, 2, nil)

		err = e.c.Evict(e.ctx, "default", "web-0", client.DeleteOptions{})
		var be *cluster.BudgetError
		require.ErrorAs(t, err, &be)
		require.Equal(t, "web", be.Budget)
		require.Equal(t, "The disruption budget web needs 2 healthy pods and has 2 currently", be.Cause)
		require.Zero(t, be.RetryAfter)

		// A new generation not yet observed by the controller.
		b, _, err = e.pdbs.Get(e.ctx, "default/web")
		require.NoError(t, err)
		two := api.FromInt32(2)
		b.Spec.MinAvailable = &two
		_, err = e.pdbs.Update(e.ctx, b, "")
		require.NoError(t, err)
		err = e.c.Evict(e.ctx, "default", "web-0", client.DeleteOptions{})
		require.ErrorAs(t, err, &be)
		require.Equal(t, "The disruption budget web is still being processed by the server.", be.Cause)
		require.Equal(t, 10*time.Second, be.RetryAfter)

		b, _, err = e.pdbs.Get(e.ctx, "default/web")
		require.NoError(t, err)
		b.Status.ObservedGeneration, b.Status.DisruptionsAllowed = b.Generation, 1
		_, err = e.pdbs.UpdateStatus(e.ctx, b)
		require.NoError(t, err)

		// A UID precondition that fails is a conflict and the pod is not
		// touched; as in kube-apiserver the budget was charged first (the
		// disruptedPods entry expires in the disruption controller).
		err = e.c.Evict(e.ctx, "default", "web-0", client.DeleteOptions{Preconditions: client.Preconditions{UID: "other"}})
		require.ErrorIs(t, err, source.ErrConflict)
		p, _, err := e.c.Pods().Get(e.ctx, "default/web-0")
		require.NoError(t, err)
		_, marked := p.Status.GetCondition("DisruptionTarget")
		require.False(t, marked)
		require.Nil(t, p.DeletionTimestamp)
		b, _, err = e.pdbs.Get(e.ctx, "default/web")
		require.NoError(t, err)
		require.Equal(t, int32(0), b.Status.DisruptionsAllowed)
		b.Status.DisruptionsAllowed, b.Status.DisruptedPods = 1, nil // the controller's next sync
		_, err = e.pdbs.UpdateStatus(e.ctx, b)
		require.NoError(t, err)

		grace := int64(5)
		require.NoError(t, e.c.Evict(e.ctx, "default", "web-0", client.DeleteOptions{GracePeriodSeconds: &grace}))
		p, _, err = e.c.Pods().Get(e.ctx, "default/web-0")
		require.NoError(t, err, "a bound pod deleted with a grace period stays, terminating")
		require.NotNil(t, p.DeletionTimestamp)
		require.Equal(t, int64(5), *p.DeletionGracePeriodSeconds)
		cond, ok := p.Status.GetCondition("DisruptionTarget")
		require.True(t, ok)
		require.Equal(t, api.ConditionTrue, cond.Status)
		require.Equal(t, cluster.ReasonEvictionByEvictionAPI, cond.Reason)
		require.Equal(t, "Eviction API: evicting", cond.Message)
		b, _, err = e.pdbs.Get(e.ctx, "default/web")
		require.NoError(t, err)
		require.Equal(t, int32(0), b.Status.DisruptionsAllowed)
		require.Equal(t, api.NewTime(time.Now()), b.Status.DisruptedPods["web-0"])

		// Evicting it again: it is being deleted, so no budget is asked.
		require.NoError(t, e.c.Evict(e.ctx, "default", "web-0", client.DeleteOptions{}))
		require.True(t, client.IsNotFound(e.c.Evict(e.ctx, "default", "missing", client.DeleteOptions{})))
	})
}
