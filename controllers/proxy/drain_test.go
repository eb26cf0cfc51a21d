package proxy_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/proxy"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// hangingHandler is a slog.Handler whose "synced rules" record, once
// armed, waits for release: a sync that does not end.
type hangingHandler struct {
	armed   *atomic.Bool
	hung    *atomic.Bool
	release chan struct{}
}

func (h hangingHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h hangingHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h hangingHandler) WithGroup(string) slog.Handler            { return h }
func (h hangingHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message == "synced rules" && h.armed.Load() {
		h.hung.Store(true)
		<-h.release
	}
	return nil
}

// Run drains as a reconcile.Controller does: when ctx ends during a
// sync, Run waits for it, and once the sync has outlasted
// reconcile.DefaultShutdownTimeout Run reports that with its error
// rather than a bare context.Canceled.
func TestRunReturnsTheDrainError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := cluster.New(t.Context(), cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		manualService(t, t.Context(), c, "web", nil, ap("10.0.0.1:8080"))
		h := hangingHandler{armed: new(atomic.Bool), hung: new(atomic.Bool), release: make(chan struct{})}
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		p, err := proxy.New(c, f, proxy.Options{Logger: slog.New(h)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		f.Start(ctx)
		defer f.Shutdown()
		done := make(chan error, 1)
		go func() { done <- p.Run(ctx) }()
		for p.Generation() == 0 { // the caches sync (polled), then the first sync
			time.Sleep(10 * time.Millisecond)
			synctest.Wait()
		}

		h.armed.Store(true)
		setBackends(t, t.Context(), c, "web", ap("10.0.0.2:8080"))
		time.Sleep(proxy.DefaultMinSyncPeriod)
		synctest.Wait()
		if !h.hung.Load() {
			t.Fatal("no sync after the change")
		}

		cancel()
		start := time.Now()
		time.Sleep(reconcile.DefaultShutdownTimeout)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v with a sync in flight", err)
		default:
		}
		close(h.release)
		err = <-done
		if !errors.Is(err, reconcile.ErrShutdownTimeout) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want the drain error (reconcile.ErrShutdownTimeout and context.Canceled)", err)
		}
		if waited := time.Since(start); waited != reconcile.DefaultShutdownTimeout {
			t.Errorf("Run returned %v after ctx ended, want %v", waited, reconcile.DefaultShutdownTimeout)
		}
	})
}
