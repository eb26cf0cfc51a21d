package scheduler

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Run drains as a reconcile.Controller does: when ctx ends during an
// attempt, Run waits for it (here a claim lookup that does not return),
// and once the attempt has outlasted reconcile.DefaultShutdownTimeout
// Run reports that with its error rather than a bare context.Canceled.
func TestRunReturnsTheDrainError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var looking atomic.Bool
		c := newCluster(t, Options{Claims: func(string, string) (*api.PersistentVolumeClaim, bool) {
			looking.Store(true)
			<-release // a lookup that hangs: it must not, but Run must survive it
			return nil, false
		}})
		c.addNode(mkNode("n1", "4", "8Gi", 110))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- c.s.Run(ctx) }()
		p := mkPod("p", "100m", "100Mi")
		p.Spec.Volumes = []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}
		c.addPod(p)
		c.settle(time.Second)
		if !looking.Load() {
			t.Fatal("the attempt did not reach the claim lookup")
		}

		cancel()
		start := time.Now()
		c.settle(reconcile.DefaultShutdownTimeout)
		select {
		case err := <-done:
			t.Fatalf("Run returned %v with an attempt in flight", err)
		default:
		}
		close(release)
		err := <-done
		if !errors.Is(err, reconcile.ErrShutdownTimeout) || !errors.Is(err, context.Canceled) {
			t.Fatalf("Run = %v, want the drain error (reconcile.ErrShutdownTimeout and context.Canceled)", err)
		}
		if waited := time.Since(start); waited != reconcile.DefaultShutdownTimeout {
			t.Errorf("Run returned %v after ctx ended, want %v", waited, reconcile.DefaultShutdownTimeout)
		}
	})
}
