package kubelet_test

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Run drains as a reconcile.Controller does: when ctx ends during a
// tick, the tick's writes go on with a live ctx for up to
// reconcile.DefaultShutdownTimeout; a write that outlasts it (here a pod
// status write that hangs until its ctx ends) is cancelled, and Run
// reports that with its error rather than a bare context.Canceled.
func TestRunReturnsTheDrainError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, err := cluster.New(t.Context(), cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var hang, hung atomic.Bool
		ic := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
			if hang.Load() && call.Resource == "pods" && call.Subresource == "status" {
				hung.Store(true)
				<-ctx.Done()
				return ctx.Err()
			}
			return next(ctx)
		})
		k, err := kubelet.New(ic, kubelet.Options{NodeName: "n1", Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- k.Run(ctx) }()
		synctest.Wait()

		hang.Store(true)
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "p"},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
		if _, err := c.Pods().Create(t.Context(), p); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Bind(t.Context(), "default", "p", "n1"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !hung.Load() {
			t.Fatal("the kubelet did not write the pod's status")
		}

		cancel()
		start := time.Now()
		time.Sleep(reconcile.DefaultShutdownTimeout - time.Nanosecond)
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v with a write in flight", err)
		default:
		}
		err = <-done
		if !errors.Is(err, reconcile.ErrShutdownTimeout) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want the drain error (reconcile.ErrShutdownTimeout and context.Canceled)", err)
		}
		if waited := time.Since(start); waited != reconcile.DefaultShutdownTimeout {
			t.Errorf("Run returned %v after ctx ended, want %v", waited, reconcile.DefaultShutdownTimeout)
		}
	})
}
