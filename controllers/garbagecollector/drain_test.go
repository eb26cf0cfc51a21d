package garbagecollector_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Run returns only once the attempt in flight has finished: ctx's error
// when it finishes in time, the reconcile loops' drain error
// (reconcile.ErrShutdownTimeout) when it outlasts the shutdown timeout
// and has its context cancelled. The held write deletes a pod whose
// owner does not exist.
func TestRunReturnsDrainError(t *testing.T) {
	clustertest.Drain(t, clustertest.DrainCase{
		Setup: func(t *testing.T, c *cluster.Cluster) {
			yes := true
			p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "orphan",
				OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "gone", UID: "no-such-uid", Controller: &yes}}},
				Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
			_, err := c.Pods().Create(t.Context(), p)
			require.NoError(t, err)
		},
		Holds: func(call client.Call) bool { return call.Verb == "delete" && call.Resource == "pods" },
		Start: func(c client.Client, f *informer.Factory) (func(context.Context) error, error) {
			gc, err := garbagecollector.New(c, f, garbagecollector.Options{Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				return nil, err
			}
			return gc.Run, nil
		},
		Done: func(t *testing.T, c *cluster.Cluster) {
			_, _, err := c.Pods().Get(t.Context(), "default/orphan")
			require.True(t, client.IsNotFound(err), "the attempt in flight deleted the orphan: %v", err)
		},
	})
}
