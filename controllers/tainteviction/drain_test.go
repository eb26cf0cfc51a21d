package tainteviction_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Run returns only once the eviction in flight has finished: ctx's error
// when it finishes in time, the reconcile loop's drain error
// (reconcile.ErrShutdownTimeout) when it outlasts the shutdown timeout
// and has its context cancelled. The eviction's DisruptionTarget status
// write is the one held.
func TestRunReturnsDrainError(t *testing.T) {
	clustertest.Drain(t, clustertest.DrainCase{
		Setup: func(t *testing.T, c *cluster.Cluster) {
			_, err := c.Nodes().Create(t.Context(), &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"},
				Spec: api.NodeSpec{Taints: []api.Taint{maintenance}}})
			require.NoError(t, err)
		},
		Holds: func(call client.Call) bool { return call.Resource == "pods" && call.Subresource == "status" },
		Start: func(c client.Client, f *informer.Factory) (func(context.Context) error, error) {
			tc, err := tainteviction.New(c, f, tainteviction.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				return nil, err
			}
			return tc.Run, nil
		},
		Trigger: func(t *testing.T, c *cluster.Cluster) {
			// The pod does not tolerate the taint: evicted at once.
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
				Spec: api.PodSpec{NodeName: "node1", Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
			_, err := c.Pods().Create(t.Context(), p)
			require.NoError(t, err)
		},
		Done: func(t *testing.T, c *cluster.Cluster) {
			p, _, err := c.Pods().Get(t.Context(), "default/web")
			require.NoError(t, err)
			require.NotNil(t, p.DeletionTimestamp, "the eviction in flight finished")
		},
	})
}
