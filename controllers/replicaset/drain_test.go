package replicaset_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// TestRunReturnsTheDrainError: a pod create that holds its reconcile
// past the shutdown timeout makes Run report the cancelled drain
// (reconcile.ErrShutdownTimeout), not a bare context.Canceled.
func TestRunReturnsTheDrainError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancelCluster := context.WithCancel(context.Background())
		defer cancelCluster()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		creating := make(chan struct{}, 1)
		stuck := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
			if call.Verb == "create" && call.Resource == "pods" {
				select {
				case creating <- struct{}{}:
				default:
				}
				<-ctx.Done() // until the drain gives up on the reconcile
				return ctx.Err()
			}
			return next(ctx)
		})
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		defer f.Shutdown()
		ctl, err := replicaset.New(stuck, f, replicaset.Options{Logger: quiet})
		require.NoError(t, err)
		f.Start(ctx)
		runCtx, stop := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- ctl.Run(runCtx) }()
		_, err = c.ReplicaSets().Create(ctx, replicaSet("web", 1))
		require.NoError(t, err)
		<-creating
		stop()
		err = <-errc
		require.ErrorIs(t, err, reconcile.ErrShutdownTimeout)
		require.ErrorIs(t, err, context.Canceled)
	})
}
