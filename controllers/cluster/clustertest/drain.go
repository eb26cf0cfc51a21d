package clustertest

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// DrainCase is a controller under Drain's shutdown test: what it acts
// on, the write of its to hold, and how to see that write done.
type DrainCase struct {
	// Setup writes what the controller acts on, before it starts.
	Setup func(t *testing.T, c *cluster.Cluster)
	// Holds reports whether a call is the write to hold until after the
	// cancel.
	Holds func(call client.Call) bool
	// Start builds the controller over c (which holds the writes Holds
	// picks) and f, and returns its Run.
	Start func(c client.Client, f *informer.Factory) (run func(context.Context) error, err error)
	// Trigger, if not nil, runs once Run has started, to make the
	// controller write.
	Trigger func(t *testing.T, c *cluster.Cluster)
	// Done checks, after a drain in time, that the held write was made.
	Done func(t *testing.T, c *cluster.Cluster)
}

// Drain checks that a controller's Run returns only once the work in
// flight at the cancel has finished, in two synctest bubbles: the held
// write released 10 s after the cancel (Run returns then, with ctx's
// error and not reconcile.ErrShutdownTimeout, and the write is done),
// and never released (Run returns after
// reconcile.DefaultShutdownTimeout with an error wrapping both
// reconcile.ErrShutdownTimeout and context.Canceled).
func Drain(t *testing.T, dc DrainCase) {
	for _, tt := range []struct {
		name    string
		release time.Duration // after the cancel; 0: never
		wantErr error
		wantAt  time.Duration // when Run returns, after the cancel
	}{
		{"work finishes", 10 * time.Second, nil, 10 * time.Second},
		{"work outlasts the shutdown timeout", 0, reconcile.ErrShutdownTimeout, reconcile.DefaultShutdownTimeout},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { drain(t, dc, tt.release, tt.wantErr, tt.wantAt) })
		})
	}
}

func drain(t *testing.T, dc DrainCase, release time.Duration, wantErr error, wantAt time.Duration) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	dc.Setup(t, c)

	entered, released := make(chan struct{}, 1), make(chan struct{})
	slow := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		if !dc.Holds(call) {
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
	f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
	run, err := dc.Start(slow, f)
	require.NoError(t, err)
	f.Start(t.Context())
	defer f.Shutdown()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	if dc.Trigger != nil {
		dc.Trigger(t, c)
	}

	<-entered
	cancel()
	cancelled := time.Now()
	if release > 0 {
		time.AfterFunc(release, func() { close(released) })
	}
	err = <-done
	require.Equal(t, wantAt, time.Since(cancelled), "Run waits for the work in flight")
	require.ErrorIs(t, err, context.Canceled)
	if wantErr != nil {
		require.ErrorIs(t, err, wantErr)
		return
	}
	require.NotErrorIs(t, err, reconcile.ErrShutdownTimeout)
	dc.Done(t, c)
}
