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
)

// The scheduler over the cluster store: binds through the binding
// subresource, and an unschedulable pod gets its condition by
// UpdateStatus.
func TestSchedulesThroughTheClusterStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		_, err = c.Nodes().Create(ctx, node("n1", "2", "8Gi"))
		require.NoError(t, err)
		w := scheduler.ClusterWriter{Cluster: c}
		s, err := scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w,
			Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()

		fits, big := pod("fits", "1"), pod("big", "4")
		fits.UID, big.UID = "", ""
		fits.Spec.Containers[0].Image, big.Spec.Containers[0].Image = "nginx", "nginx"
		_, err = c.Pods().Create(ctx, fits)
		require.NoError(t, err)
		_, err = c.Pods().Create(ctx, big)
		require.NoError(t, err)
		time.Sleep(5 * time.Second)
		synctest.Wait()

		got, _, err := c.Pods().Get(ctx, "default/fits")
		require.NoError(t, err)
		require.Equal(t, "n1", got.Spec.NodeName)
		got, _, err = c.Pods().Get(ctx, "default/big")
		require.NoError(t, err)
		require.Empty(t, got.Spec.NodeName)
		cond, ok := got.Status.GetCondition(api.PodScheduled)
		require.True(t, ok)
		require.Equal(t, api.ConditionFalse, cond.Status)
		require.Equal(t, scheduler.ReasonUnschedulable, cond.Reason)
		require.Equal(t, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.", cond.Message)

		// A pod bound by someone else meanwhile is not bound twice. The
		// binding subresource clears status.nominatedNodeName.
		got.Status.NominatedNodeName = "n1"
		_, err = c.Pods().UpdateStatus(ctx, got)
		require.NoError(t, err)
		got, _, err = c.Pods().Get(ctx, "default/big")
		require.NoError(t, err)
		require.Equal(t, "n1", got.Status.NominatedNodeName)
		err = w.Bind(ctx, got, "n1")
		require.NoError(t, err)
		bound, _, err := c.Pods().Get(ctx, "default/big")
		require.NoError(t, err)
		require.Equal(t, "n1", bound.Spec.NodeName)
		require.Empty(t, bound.Status.NominatedNodeName)
		err = w.Bind(ctx, got, "n1")
		require.ErrorIs(t, err, scheduler.ErrAlreadyBound)

		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}
