package tainteviction_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
)

var maintenance = api.Taint{Key: "example.com/maintenance", Effect: api.TaintEffectNoExecute}

func tolerating(seconds int64) []api.Toleration {
	t := api.Toleration{Key: maintenance.Key, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute}
	if seconds >= 0 {
		t.TolerationSeconds = &seconds
	}
	return []api.Toleration{t}
}

type env struct {
	t   *testing.T
	ctx context.Context
	c   *cluster.Cluster
	rec *events.Memory
}

func startEnv(t *testing.T) *env {
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
	rec := events.NewMemory()
	tc, err := tainteviction.New(c, f, tainteviction.Options{Recorder: rec, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := tc.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
	t.Cleanup(func() { cancel(); wg.Wait(); f.Shutdown() })
	_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"}})
	require.NoError(t, err)
	time.Sleep(time.Second) // the caches sync
	synctest.Wait()
	return &env{t: t, ctx: ctx, c: c, rec: rec}
}

func (e *env) pod(name string, tolerations []api.Toleration, owner ...api.OwnerReference) {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, OwnerReferences: owner}}
	p.Spec.NodeName, p.Spec.Tolerations = "node1", tolerations
	p.Spec.Containers = []api.Container{{Name: "c", Image: "busybox"}}
	_, err := e.c.Pods().Create(e.ctx, p)
	require.NoError(e.t, err)
}

func (e *env) setTaints(ts ...api.Taint) {
	n, _, err := e.c.Nodes().Get(e.ctx, "node1")
	require.NoError(e.t, err)
	n.Spec.Taints = ts
	_, err = e.c.Nodes().Update(e.ctx, n, "")
	require.NoError(e.t, err)
}

// evicted reports whether the pod has been deleted (it stays, Terminating,
// as no kubelet confirms).
func (e *env) evicted(name string) bool {
	p, _, err := e.c.Pods().Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return p.DeletionTimestamp != nil
}

// Pods that do not tolerate a NoExecute taint go at once, those that do
// for a while go when their tolerationSeconds run out, those that do
// forever stay, and so do DaemonSet pods.
func TestEvictions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.pod("intolerant", nil)
		e.pod("thirty", tolerating(30))
		e.pod("forever", tolerating(-1))
		e.pod("daemon", nil, api.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds", UID: "ds-uid", Controller: ptr(true)})
		synctest.Wait()
		e.setTaints(maintenance)
		synctest.Wait()
		require.True(t, e.evicted("intolerant"))
		p, _, err := e.c.Pods().Get(e.ctx, "default/intolerant")
		require.NoError(t, err)
		c, ok := p.Status.GetCondition(tainteviction.ConditionDisruptionTarget)
		require.True(t, ok)
		require.Equal(t, tainteviction.MessageDeletionByTaintManager, c.Message)
		require.False(t, e.evicted("thirty"))

		time.Sleep(29 * time.Second)
		synctest.Wait()
		require.False(t, e.evicted("thirty"))
		time.Sleep(time.Second)
		synctest.Wait()
		require.True(t, e.evicted("thirty"), "after its 30 s")

		time.Sleep(time.Hour)
		synctest.Wait()
		require.False(t, e.evicted("forever"))
		require.False(t, e.evicted("daemon"), "DaemonSet pods are skipped")
	})
}

// Removing the taint cancels the pending evictions.
func TestRemovingTaintCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.pod("web", tolerating(60))
		synctest.Wait()
		e.setTaints(maintenance)
		time.Sleep(30 * time.Second)
		synctest.Wait()
		e.setTaints()
		time.Sleep(time.Hour)
		synctest.Wait()
		require.False(t, e.evicted("web"))
		var msgs []string
		for _, ev := range e.rec.Events() {
			if ev.Reason == tainteviction.ReasonTaintManagerEviction {
				msgs = append(msgs, ev.Message)
			}
		}
		require.Equal(t, []string{"Cancelling deletion of Pod default/web"}, msgs)

		// Tainted again: the clock starts anew.
		e.setTaints(maintenance)
		time.Sleep(59 * time.Second)
		synctest.Wait()
		require.False(t, e.evicted("web"))
		time.Sleep(time.Second)
		synctest.Wait()
		require.True(t, e.evicted("web"))
	})
}

// A pod bound to a node that is already tainted is decided on arrival.
func TestPodArrivesOnTaintedNode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startEnv(t)
		e.setTaints(maintenance)
		synctest.Wait()
		e.pod("late", nil)
		synctest.Wait()
		require.True(t, e.evicted("late"))
	})
}
