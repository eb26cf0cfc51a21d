package podgc_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/informer"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func pod(name, node string, phase api.PodPhase, age time.Duration) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID(name),
		CreationTimestamp: api.NewTime(t0.Add(-age))}}
	p.Spec.NodeName = node
	p.Status.Phase = phase
	return p
}

func names(ds []podgc.Deletion) (out []string) {
	for _, d := range ds {
		out = append(out, d.Pod.Name+":"+string(d.Reason))
	}
	return out
}

func TestDecide(t *testing.T) {
	exists := func(n string) bool { return n == "n1" }
	terminating := pod("doomed", "", api.PodPending, time.Minute)
	now := api.NewTime(t0)
	terminating.DeletionTimestamp = &now
	pods := []*api.Pod{
		pod("old", "n1", api.PodSucceeded, 3*time.Hour),
		pod("older", "n1", api.PodFailed, 4*time.Hour),
		pod("new", "n1", api.PodSucceeded, time.Hour),
		pod("running", "n1", api.PodRunning, 5*time.Hour),
		pod("stray", "ghost", api.PodRunning, time.Hour),
		pod("stray2", "ghost", api.PodRunning, time.Hour),
		terminating,
	}
	// Threshold 1: the two oldest terminated pods go, never a running one.
	d := podgc.Decide(pods, exists, nil, 1, 40*time.Second, t0)
	require.Equal(t, []string{"older:Terminated", "old:Terminated", "doomed:UnscheduledTerminating"}, names(d.Delete))
	require.Equal(t, []string{"ghost"}, d.Quarantine, "a missing node is quarantined first")
	require.Empty(t, d.Confirm)

	// Threshold 0 (disabled) keeps every terminated pod.
	d = podgc.Decide(pods, exists, nil, 0, 40*time.Second, t0)
	require.Equal(t, []string{"doomed:UnscheduledTerminating"}, names(d.Delete))

	// In quarantine: nothing until the quarantine is over, then confirm.
	q := map[string]time.Time{"ghost": t0}
	require.Empty(t, podgc.Decide(pods, exists, q, 10, 40*time.Second, t0.Add(39*time.Second)).Confirm)
	require.Equal(t, []string{"ghost"}, podgc.Decide(pods, exists, q, 10, 40*time.Second, t0.Add(40*time.Second)).Confirm)
	require.Len(t, podgc.OnNode(pods, "ghost"), 2)
}

// Orphans go after the quarantine and a live read; terminated pods
// beyond the threshold go oldest first.
func TestCollector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}})
		require.NoError(t, err)
		mk := func(name, node string, phase api.PodPhase, finalizers ...string) {
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Finalizers: finalizers},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
			_, err := c.Pods().Create(ctx, p)
			require.NoError(t, err)
			_, err = c.Bind(ctx, "default", name, node)
			require.NoError(t, err)
			if phase != "" {
				p, _, err = c.Pods().Get(ctx, "default/"+name)
				require.NoError(t, err)
				p.Status.Phase = phase
				_, err = c.Pods().UpdateStatus(ctx, p)
				require.NoError(t, err)
			}
			time.Sleep(time.Second) // distinct creation times
		}
		mk("done-1", "n1", api.PodSucceeded)
		mk("done-2", "n1", api.PodFailed)
		mk("done-3", "n1", api.PodSucceeded)
		mk("live", "n1", api.PodRunning)
		mk("stray", "ghost", api.PodRunning, "example.com/keep") // its finalizer keeps it visible

		f := informer.NewFactory(informer.FactoryOptions{})
		g, err := podgc.New(c, f, podgc.Options{TerminatedPodThreshold: 1, Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- g.Run(ctx) }()

		exists := func(name string) bool { _, _, err := c.Pods().Get(ctx, "default/"+name); return err == nil }
		time.Sleep(25 * time.Second) // one pass
		require.False(t, exists("done-1"), "the oldest terminated pods go")
		require.False(t, exists("done-2"))
		require.True(t, exists("done-3"))
		require.True(t, exists("live"))
		stray, _, err := c.Pods().Get(ctx, "default/stray")
		require.NoError(t, err)
		require.Nil(t, stray.DeletionTimestamp, "its node is only quarantined yet")

		time.Sleep(45 * time.Second) // past the quarantine
		stray, _, err = c.Pods().Get(ctx, "default/stray")
		require.NoError(t, err)
		require.NotNil(t, stray.DeletionTimestamp, "deleted once the live read confirms the node is gone")
		require.Equal(t, api.PodFailed, stray.Status.Phase)
		var reason string
		for _, cond := range stray.Status.Conditions {
			if cond.Type == "DisruptionTarget" {
				reason = cond.Reason
			}
		}
		require.Equal(t, podgc.ReasonDeletionByPodGC, reason)

		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		f.Shutdown()
	})
}
