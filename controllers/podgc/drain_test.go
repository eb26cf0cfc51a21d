package podgc_test

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
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Run returns only once the pass in flight has finished: ctx's error
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
		{"pass finishes", 10 * time.Second, nil, 10 * time.Second},
		{"pass outlasts the shutdown timeout", 0, reconcile.ErrShutdownTimeout, reconcile.DefaultShutdownTimeout},
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
		time.Sleep(time.Second) // distinct creation times
	}
	_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}})
	require.NoError(t, err)

	// Pod deletes wait for the release, or for their context to end.
	entered, released := make(chan struct{}, 1), make(chan struct{})
	slow := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		if call.Verb != "delete" || call.Resource != "pods" {
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
	g, err := podgc.New(slow, f, podgc.Options{TerminatedPodThreshold: 1, Logger: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	f.Start(t.Context())
	defer f.Shutdown()
	done := make(chan error, 1)
	go func() { done <- g.Run(ctx) }()

	<-entered // the first pass, Period after the start, deletes done-1
	cancel()
	cancelled := time.Now()
	if release > 0 {
		time.AfterFunc(release, func() { close(released) })
	}
	err = <-done
	require.Equal(t, wantAt, time.Since(cancelled), "Run waits for the pass in flight")
	require.ErrorIs(t, err, context.Canceled)
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr)
		return
	}
	require.NotErrorIs(t, err, reconcile.ErrShutdownTimeout)
	_, _, err = c.Pods().Get(t.Context(), "default/done-1")
	require.True(t, client.IsNotFound(err), "the pass in flight finished its delete: %v", err)
}
