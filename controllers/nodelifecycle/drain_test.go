package nodelifecycle_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Run returns only once the iteration in flight has finished: ctx's
// error when it finishes in time, the reconcile loop's drain error
// (reconcile.ErrShutdownTimeout) when it outlasts the shutdown timeout
// and has its context cancelled. The held write is the first
// iteration's NoSchedule taint of a cordoned node.
func TestRunReturnsDrainError(t *testing.T) {
	clustertest.Drain(t, clustertest.DrainCase{
		Setup: func(t *testing.T, c *cluster.Cluster) {
			_, err := c.Nodes().Create(t.Context(), &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}, Spec: api.NodeSpec{Unschedulable: true}})
			require.NoError(t, err)
		},
		Holds: func(call client.Call) bool {
			return call.Resource == "nodes" && call.Verb == "update" && call.Subresource == ""
		},
		Start: func(c client.Client, f *informer.Factory) (func(context.Context) error, error) {
			nc, err := nodelifecycle.New(c, f, nodelifecycle.Options{Logger: discard})
			if err != nil {
				return nil, err
			}
			return nc.Run, nil
		},
		Done: func(t *testing.T, c *cluster.Cluster) {
			n, _, err := c.Nodes().Get(t.Context(), "n1")
			require.NoError(t, err)
			require.True(t, slices.ContainsFunc(n.Spec.Taints, func(t api.Taint) bool { return t.Key == api.TaintNodeUnschedulable }),
				"the iteration in flight finished its write: %v", n.Spec.Taints)
		},
	})
}
