package tainteviction_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Run returns only once the eviction in flight has finished: ctx's error
// when it finishes in time, the reconcile loop's drain error
// (reconcile.ErrShutdownTimeout) when it outlasts the shutdown timeout
// and has its context cancelled.
func TestRunReturnsDrainError(t *testing.T) {
	for _, tt := range []struct {
		name    string
		release time.Duration // after the cancel; 0: never
		wantErr error
		wantAt  time.Duration // when Run returns, after the cancel
	}{
		{"eviction finishes", 10 * time.Second, nil, 10 * time.Second},
		{"eviction outlasts the shutdown timeout", 0, reconcile.ErrShutdownTimeout, reconcile.DefaultShutdownTimeout},
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
	_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node1"},
		Spec: api.NodeSpec{Taints: []api.Taint{maintenance}}})
	require.NoError(t, err)

	// The DisruptionTarget status write of an eviction waits for the
	// release, or for its context to end.
	entered, released := make(chan struct{}, 1), make(chan struct{})
	slow := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		if call.Resource != "pods" || call.Subresource != "status" {
			return next(ctx)
		}
		entered <- struct{}{}
		select {
		case <-released:
			return next(ctx)
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
	tc, err := tainteviction.New(slow, f, tainteviction.Options{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	f.Start(t.Context())
	defer f.Shutdown()
	done := make(chan error, 1)
	go func() { done <- tc.Run(ctx) }()

	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.PodSpec{NodeName: "node1", Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
	_, err = c.Pods().Create(ctx, p)
	require.NoError(t, err)
	<-entered // the pod does not tolerate the taint: evicted at once
	cancel()
	cancelled := time.Now()
	if release > 0 {
		time.AfterFunc(release, func() { close(released) })
	}
	err = <-done
	require.Equal(t, wantAt, time.Since(cancelled), "Run waits for the eviction in flight")
	require.ErrorIs(t, err, context.Canceled)
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr)
		return
	}
	require.NotErrorIs(t, err, reconcile.ErrShutdownTimeout)
	p, _, err = c.Pods().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.NotNil(t, p.DeletionTimestamp, "the eviction in flight finished")
}
