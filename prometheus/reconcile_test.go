package prometheus_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/reconcile"
)

// A controller's controller_runtime_* series after reconciles of every
// outcome, and its queue's workqueue_* series labelled with its name.
func TestReconcileMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, reg := newProvider(t)
		var mu sync.Mutex
		calls := map[string]int{}
		r := reconcile.Func[string](func(ctx context.Context, key string) (reconcile.Result, error) {
			mu.Lock()
			calls[key]++
			n := calls[key]
			mu.Unlock()
			switch key {
			case "fail": // fails once, then succeeds on retry
				if n == 1 {
					return reconcile.Result{}, errors.New("transient")
				}
			case "boom": // panics once, then succeeds on retry
				if n == 1 {
					panic("boom")
				}
			case "terminal":
				return reconcile.Result{}, reconcile.Terminal(errors.New("bad spec"))
			case "after":
				return reconcile.Result{RequeueAfter: time.Hour}, nil
			case "slow":
				time.Sleep(10 * time.Second)
			}
			return reconcile.Result{}, nil
		})
		c, err := reconcile.New("deploy", r, reconcile.Options[string]{
			Workers:      2,
			Metrics:      p,
			QueueMetrics: p,
			Logger:       slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctl := []string{"controller", "deploy"}
		s := scrape(t, reg) // every result exists at 0 before the first reconcile
		for _, res := range []string{"success", "error", "requeue_after", "requeue", "terminal"} {
			s.expect(t, 0, "controller_runtime_reconcile_total", "controller", "deploy", "result", res)
		}

		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		c.Enqueue("slow") // first, so that it holds a worker from t=0
		synctest.Wait()
		for _, k := range []string{"ok", "fail", "boom", "terminal", "after"} {
			c.Enqueue(k)
		}
		time.Sleep(5 * time.Second) // backoffs (ms) done; slow is halfway
		synctest.Wait()

		s = scrape(t, reg)
		s.expect(t, 2, "controller_runtime_max_concurrent_reconciles", ctl...)
		s.expect(t, 1, "controller_runtime_active_workers", ctl...)
		s.expect(t, 5, "workqueue_longest_running_processor_seconds", "name", "deploy", "controller", "deploy")
		s.expect(t, 3, "controller_runtime_reconcile_total", "controller", "deploy", "result", "success") // ok, fail, boom
		s.expect(t, 2, "controller_runtime_reconcile_total", "controller", "deploy", "result", "error")   // fail, boom
		s.expect(t, 1, "controller_runtime_reconcile_total", "controller", "deploy", "result", "terminal")
		s.expect(t, 1, "controller_runtime_reconcile_total", "controller", "deploy", "result", "requeue_after")
		s.expect(t, 0, "controller_runtime_reconcile_total", "controller", "deploy", "result", "requeue")
		s.expect(t, 3, "controller_runtime_reconcile_errors_total", ctl...) // fail, boom, terminal
		s.expect(t, 1, "controller_runtime_terminal_reconcile_errors_total", ctl...)
		s.expect(t, 1, "controller_runtime_reconcile_panics_total", ctl...)
		s.expect(t, 7, "controller_runtime_reconcile_time_seconds", ctl...)
		s.expect(t, 2, "workqueue_retries_total", "name", "deploy", "controller", "deploy") // fail, boom

		time.Sleep(5 * time.Second)
		synctest.Wait()
		s = scrape(t, reg)
		s.expect(t, 0, "controller_runtime_active_workers", ctl...)
		s.expect(t, 4, "controller_runtime_reconcile_total", "controller", "deploy", "result", "success")
		s.expect(t, 8, "controller_runtime_reconcile_time_seconds", ctl...)
		if got := s.sum(t, "controller_runtime_reconcile_time_seconds", ctl...); got != 10 {
			t.Errorf("reconcile time sum = %v, want 10 (slow's)", got)
		}
		s.expect(t, 8, "workqueue_work_duration_seconds", "name", "deploy", "controller", "deploy")

		cancel()
		if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	})
}

// Two controllers of one name (a test building its controller twice)
// share their series and do not panic; their set gauges add up.
func TestControllersShareName(t *testing.T) {
	p, reg := newProvider(t)
	m1 := p.ControllerMetrics("c")
	m2 := p.ControllerMetrics("c")
	m1.MaxConcurrentReconciles.Set(2)
	m2.MaxConcurrentReconciles.Set(3)
	m1.ActiveWorkers.Set(1)
	m1.ActiveWorkers.Set(2)
	m2.ActiveWorkers.Set(1)
	m1.TotalSuccess.Inc()
	m2.TotalSuccess.Inc()
	s := scrape(t, reg)
	s.expect(t, 5, "controller_runtime_max_concurrent_reconciles", "controller", "c")
	s.expect(t, 3, "controller_runtime_active_workers", "controller", "c")
	s.expect(t, 2, "controller_runtime_reconcile_total", "controller", "c", "result", "success")
	m1.ActiveWorkers.Set(0)
	scrape(t, reg).expect(t, 1, "controller_runtime_active_workers", "controller", "c")
}
