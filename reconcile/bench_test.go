package reconcile_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/ctrlkit/ctrlkit/reconcile"
)

// BenchmarkReconcileLoop measures the controller's overhead per request:
// enqueue, hand-off to a worker, a no-op Reconcile, Forget and Done.
func BenchmarkReconcileLoop(b *testing.B) {
	for _, workers := range []int{1, 4} {
		for _, metered := range []bool{false, true} {
			b.Run(fmt.Sprintf("workers=%d/metrics=%v", workers, metered), func(b *testing.B) {
				var n atomic.Int64
				done := make(chan struct{})
				target := int64(b.N)
				r := reconcile.Func[int](func(context.Context, int) (reconcile.Result, error) {
					if n.Add(1) == target {
						close(done)
					}
					return reconcile.Result{}, nil
				})
				opts := reconcile.Options[int]{Workers: workers, Logger: quiet}
				if metered {
					opts.Metrics = newMetricsRec()
				}
				ctl, err := reconcile.New("bench", r, opts)
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				go func() { errc <- ctl.Run(ctx) }()
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					ctl.Enqueue(i)
				}
				<-done
				b.StopTimer()
				cancel()
				<-errc
			})
		}
	}
}
