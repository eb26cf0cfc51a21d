package podgc_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Run returns only once the pass in flight has finished: ctx's error
// when it finishes in time, the reconcile loop's drain error
// (reconcile.ErrShutdownTimeout) when it outlasts the shutdown timeout
// and has its context cancelled. The pass, Period after the start,
// deletes done-1.
func TestRunReturnsDrainError(t *testing.T) {
	clustertest.Drain(t, clustertest.DrainCase{
		Setup: func(t *testing.T, c *cluster.Cluster) {
			ctx := t.Context()
			for _, name := range []string{"done-1", "done-2"} {
				p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
					Spec: api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
				_, err := c.Pods().Create(ctx, p)
				require.NoError(t, err)
				p, _, err = c.Pods().Get(ctx, "default/"+name)
				require.NoError(t, err)
				p.Status.Phase = api.PodSucceeded
				_, err = c.Pods().UpdateStatus(ctx, p)
				require.NoError(t, err)
				time.Sleep(time.Second) // distinct creation times (virtual: Drain runs Setup in a synctest bubble)
			}
			_, err := c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}})
			require.NoError(t, err)
		},
		Holds: func(call client.Call) bool { return call.Verb == "delete" && call.Resource == "pods" },
		Start: func(c client.Client, f *informer.Factory) (func(context.Context) error, error) {
			g, err := podgc.New(c, f, podgc.Options{TerminatedPodThreshold: 1, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				return nil, err
			}
			return g.Run, nil
		},
		Done: func(t *testing.T, c *cluster.Cluster) {
			_, _, err := c.Pods().Get(t.Context(), "default/done-1")
			require.True(t, client.IsNotFound(err), "the pass in flight finished its delete: %v", err)
		},
	})
}
