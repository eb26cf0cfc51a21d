package nodelifecycle_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Run returns only once the iteration in flight has finished: ctx's
// error when it finishes in time, the reconcile loop's drain error
// (reconcile.ErrShutdownTimeout) when it outlasts the shutdown timeout
// and has its context cancelled.
func TestRunReturnsDrainError(t *testing.T) {
	for _, tt := range []struct {
		name    string
		release time.Duration // after the cancel; 0: never
		wantErr error
		wantAt  time.Duration // when Run returns, after the cancel
	}{
		{"iteration finishes", 10 * time.Second, nil, 10 * time.Second},
		{"iteration outlasts the shutdown timeout", 0, reconcile.ErrShutdownTimeout, reconcile.DefaultShutdownTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				testDrain(t, tt.release, tt.wantErr, tt.wantAt)
			})
		})
	}
}

func testDrain(t *testing.T, release time.Duration, wantErr error, wantAt time.Duration) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	// A cordoned node: the first iteration's NoSchedule pass taints it.
	_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}, Spec: api.NodeSpec{Unschedulable: true}})
	require.NoError(t, err)

	// Node spec writes wait for the release, or for their context to end.
	entered, released := make(chan struct{}, 1), make(chan struct{})
	slow := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		if call.Resource != "nodes" || call.Verb != "update" || call.Subresource != "" {
			return next(ctx)
		}
		select {
		case entered <- struct{}{}:
		default:
		}
		select {
		case <-released:
			return next(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	f := informer.NewFactory(informer.FactoryOptions{Logger: discard})
	nc, err := nodelifecycle.New(slow, f, nodelifecycle.Options{Logger: discard})
	require.NoError(t, err)
	f.Start(t.Context())
	defer f.Shutdown()
	done := make(chan error, 1)
	go func() { done <- nc.Run(ctx) }()

	<-entered
	cancel()
	cancelled := time.Now()
	if release > 0 {
		time.AfterFunc(release, func() { close(released) })
	}
	err = <-done
	require.Equal(t, wantAt, time.Since(cancelled), "Run waits for the iteration in flight")
	require.ErrorIs(t, err, context.Canceled)
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr)
		return
	}
	require.NotErrorIs(t, err, reconcile.ErrShutdownTimeout)
	n, _, err := c.Nodes().Get(t.Context(), "n1")
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(n.Spec.Taints, func(t api.Taint) bool { return t.Key == api.TaintNodeUnschedulable }),
		"the iteration in flight finished its write: %v", n.Spec.Taints)
}
