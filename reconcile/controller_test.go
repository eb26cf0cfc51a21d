package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/workqueue"
	"github.com/stretchr/testify/require"
)

// callLog records when each call of a reconciler happened, relative to a
// start time.
type callLog struct {
	mu    sync.Mutex
	start time.Time
	calls []time.Duration
	reqs  []string
}

func (l *callLog) add(req string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, time.Since(l.start))
	l.reqs = append(l.reqs, req)
}

func (l *callLog) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.start, l.calls, l.reqs = time.Now(), nil, nil
}

func (l *callLog) times() []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Duration(nil), l.calls...)
}

func (l *callLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

func ms(ns ...int) []time.Duration {
	out := make([]time.Duration, len(ns))
	for i, n := range ns {
		out[i] = time.Duration(n) * time.Millisecond
	}
	return out
}

func TestBackoffGrowsOnErrorsAndResetsAfterSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log callLog
		var mu sync.Mutex
		failures := 4
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			mu.Lock()
			defer mu.Unlock()
			if failures > 0 {
				failures--
				return reconcile.Result{}, errors.New("boom")
			}
			return reconcile.Result{}, nil
		})
		m := newMetricsRec()
		ctl, err := reconcile.New("backoff", r, reconcile.Options[string]{
			RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second),
			Logger:      quiet,
			Metrics:     m,
		})
		require.NoError(t, err)
		stop := running(ctl)

		log.reset()
		ctl.Enqueue("a")
		time.Sleep(time.Minute)
		synctest.Wait()
		// 4 failures: waits of 10, 20, 40, 80ms, then success.
		require.Equal(t, ms(0, 10, 30, 70, 150), log.times())
		require.Zero(t, ctl.Queue().NumRequeues("a"), "success forgets the backoff")
		require.Equal(t, 4, m.count(`reconcile_total{result="error"}`))
		require.Equal(t, 4, m.count("reconcile_errors_total"))
		require.Equal(t, 1, m.count(`reconcile_total{result="success"}`))

		// The next failures back off from the base delay again.
		mu.Lock()
		failures = 2
		mu.Unlock()
		log.reset()
		ctl.Enqueue("a")
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Equal(t, ms(0, 10, 30), log.times())
		require.ErrorIs(t, stop(), context.Canceled)
	})
}

func TestRequeueAfterIsHonouredWithoutRateLimiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log callLog
		var mu sync.Mutex
		n := 0
		var requeues []int // NumRequeues seen by each call
		var ctl *reconcile.Controller[string]
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			mu.Lock()
			defer mu.Unlock()
			n++
			requeues = append(requeues, ctl.Queue().NumRequeues(req))
			switch {
			case n <= 2:
				return reconcile.Result{}, errors.New("transient")
			case n <= 5:
				return reconcile.Result{RequeueAfter: time.Minute}, nil
			}
			return reconcile.Result{}, nil
		})
		m := newMetricsRec()
		var err error
		ctl, err = reconcile.New("requeue-after", r, reconcile.Options[string]{
			RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[string](10*time.Millisecond, time.Second),
			Logger:      quiet,
			Metrics:     m,
		})
		require.NoError(t, err)
		stop := running(ctl)
		log.reset()
		ctl.Enqueue("a")
		time.Sleep(time.Hour)
		synctest.Wait()
		min := int(time.Minute / time.Millisecond)
		require.Equal(t, ms(0, 10, 30, 30+min, 30+2*min, 30+3*min), log.times(),
			"RequeueAfter is exact: the earlier failures add no backoff")
		require.Equal(t, []int{0, 1, 2, 0, 0, 0}, requeues)
		require.Equal(t, 3, m.count(`reconcile_total{result="requeue_after"}`))
		require.Equal(t, 1, m.count(`reconcile_total{result="success"}`))
		require.NoError(t, ignoreCanceled(stop()))
	})
}

func ignoreCanceled(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

var errBadSpec = errors.New("spec.replicas is negative")

func TestTerminalErrorsAreNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log callLog
		var mu sync.Mutex
		n := 0
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			mu.Lock()
			defer mu.Unlock()
			n++
			if n == 1 {
				return reconcile.Result{}, errors.New("transient")
			}
			return reconcile.Result{RequeueAfter: time.Second}, fmt.Errorf("validate %s: %w", req, reconcile.Terminal(errBadSpec))
		})
		m := newMetricsRec()
		ctl, err := reconcile.New("terminal", r, reconcile.Options[string]{Logger: quiet, Metrics: m})
		require.NoError(t, err)
		stop := running(ctl)
		log.reset()
		ctl.Enqueue("a")
		time.Sleep(24 * time.Hour)
		synctest.Wait()
		require.Len(t, log.times(), 2, "one retry of the transient error, none of the terminal one")
		require.Zero(t, ctl.Queue().NumRequeues("a"), "a terminal error forgets the backoff")
		require.Equal(t, 1, m.count(`reconcile_total{result="terminal"}`))
		require.Equal(t, 1, m.count(`reconcile_total{result="error"}`))
		require.Equal(t, 2, m.count("reconcile_errors_total"))
		require.Equal(t, 1, m.count("terminal_reconcile_errors_total"))

		// Enqueued again, it is reconciled again.
		ctl.Enqueue("a")
		synctest.Wait()
		require.Len(t, log.times(), 3)
		require.NoError(t, ignoreCanceled(stop()))
	})
}

func TestPanicsAreRecoveredAndTheWorkerSurvives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log callLog
		var mu sync.Mutex
		panicked := false
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			mu.Lock()
			first := req == "a" && !panicked
			if first {
				panicked = true
			}
			mu.Unlock()
			if first {
				panic("nil map in " + req)
			}
			return reconcile.Result{}, nil
		})
		var logs logBuffer
		m := newMetricsRec()
		ctl, err := reconcile.New("panics", r, reconcile.Options[string]{
			Workers:     1,
			RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
			Logger:      logs.logger(),
			Metrics:     m,
		})
		require.NoError(t, err)
		ctl.Enqueue("a")
		ctl.Enqueue("b")
		log.reset()
		stop := running(ctl)
		synctest.Wait()
		require.Equal(t, []string{"a", "b"}, log.requests(), "the single worker went on after the panic")
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, []string{"a", "b", "a"}, log.requests(), "the panic was retried with backoff")
		require.Equal(t, ms(0, 0, 1000), log.times())
		require.Equal(t, 1, m.count("reconcile_panics_total"))
		require.Equal(t, 1, m.count(`reconcile_total{result="error"}`))
		require.Equal(t, 2, m.count(`reconcile_total{result="success"}`))
		out := logs.String()
		require.Contains(t, out, "panic in Reconcile")
		require.Contains(t, out, "nil map in a")
		require.Contains(t, out, "goroutine ", "the stack is logged")
		require.NoError(t, ignoreCanceled(stop()))
	})
}

func TestNeverTwoReconcilesOfOneRequestAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const workers, requests, rounds = 8, 5, 20
		var mu sync.Mutex
		inFlight := map[string]int{}
		calls := map[string]int{}
		overlaps, active, maxActive := 0, 0, 0
		var ctl *reconcile.Controller[string]
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			mu.Lock()
			inFlight[req]++
			if inFlight[req] > 1 {
				overlaps++
			}
			calls[req]++
			again := calls[req] < rounds
			active++
			maxActive = max(maxActive, active)
			mu.Unlock()
			if again {
				// Enqueued while being reconciled: runs again after, not
				// concurrently.
				ctl.Enqueue(req)
				ctl.Enqueue(req)
			}
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			inFlight[req]--
			active--
			mu.Unlock()
			return reconcile.Result{}, nil
		})
		m := newMetricsRec()
		var err error
		ctl, err = reconcile.New("serial", r, reconcile.Options[string]{Workers: workers, Logger: quiet, Metrics: m})
		require.NoError(t, err)
		stop := running(ctl)
		for round := range 3 {
			for i := range requests {
				go func() { ctl.Enqueue(fmt.Sprintf("req-%d-%d", i, round%1)) }()
			}
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		mu.Lock()
		require.Zero(t, overlaps)
		require.Equal(t, requests, maxActive, "different requests ran in parallel")
		for i := range requests {
			require.Equal(t, rounds, calls[fmt.Sprintf("req-%d-0", i)])
		}
		mu.Unlock()
		m.mu.Lock()
		require.Equal(t, float64(workers), m.gauges["max_concurrent_reconciles"])
		require.Equal(t, float64(requests), m.maxGauge["active_workers"])
		require.Zero(t, m.gauges["active_workers"])
		require.Equal(t, requests*rounds, m.observed)
		m.mu.Unlock()
		require.NoError(t, ignoreCanceled(stop()))
	})
}

func TestShutdownDrainsReconcilesInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log callLog
		var mu sync.Mutex
		var finished []string
		var ctxErrs []error
		r := reconcile.Func[string](func(ctx context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			time.Sleep(10 * time.Second)
			mu.Lock()
			finished = append(finished, req)
			ctxErrs = append(ctxErrs, ctx.Err())
			mu.Unlock()
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("drain", r, reconcile.Options[string]{Workers: 2, Logger: quiet})
		require.NoError(t, err)
		for _, req := range []string{"a", "b", "c", "d"} {
			ctl.Enqueue(req)
		}
		log.reset()
		stop := running(ctl)
		time.Sleep(time.Second)
		start := time.Now()
		require.ErrorIs(t, stop(), context.Canceled)
		require.Equal(t, 9*time.Second, time.Since(start), "Run waited for the reconciles in flight")
		require.ElementsMatch(t, []string{"a", "b"}, finished)
		require.Equal(t, []error{nil, nil}, ctxErrs, "in-flight reconciles keep a live ctx")
		require.Len(t, log.requests(), 2, "no new work was taken after cancel")

		ctl.Enqueue("e") // after Run: ignored
		synctest.Wait()
		require.Zero(t, ctl.Queue().Len())
		require.ErrorContains(t, ctl.Run(context.Background()), "already called")
	})
}

func TestShutdownTimeoutCancelsReconcilesThatOutlastIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sawCancel time.Duration
		start := time.Now()
		r := reconcile.Func[string](func(ctx context.Context, _ string) (reconcile.Result, error) {
			<-ctx.Done()
			sawCancel = time.Since(start)
			return reconcile.Result{}, ctx.Err()
		})
		ctl, err := reconcile.New("stuck", r, reconcile.Options[string]{ShutdownTimeout: 5 * time.Second, Logger: quiet})
		require.NoError(t, err)
		ctl.Enqueue("a")
		stop := running(ctl)
		time.Sleep(time.Second)
		err = stop()
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, reconcile.ErrShutdownTimeout)
		require.ErrorContains(t, err, "ShutdownTimeout")
		require.Equal(t, 6*time.Second, sawCancel)
		require.Equal(t, 6*time.Second, time.Since(start))
	})
}

func TestReconcileTimeoutBoundsEachCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan time.Duration, 1)
		r := reconcile.Func[string](func(ctx context.Context, _ string) (reconcile.Result, error) {
			start := time.Now()
			<-ctx.Done()
			require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
			done <- time.Since(start)
			return reconcile.Result{}, reconcile.Terminal(ctx.Err())
		})
		ctl, err := reconcile.New("timeout", r, reconcile.Options[string]{ReconcileTimeout: 3 * time.Second, Logger: quiet})
		require.NoError(t, err)
		ctl.Enqueue("a")
		stop := running(ctl)
		require.Equal(t, 3*time.Second, <-done)
		require.NoError(t, ignoreCanceled(stop()))
	})
}

func TestNewAndOptionsValidation(t *testing.T) {
	ok := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) { return reconcile.Result{}, nil })
	_, err := reconcile.New("", ok, reconcile.Options[string]{})
	require.ErrorContains(t, err, "reconcile: New: name is empty")
	_, err = reconcile.New[string]("x", nil, reconcile.Options[string]{})
	require.ErrorContains(t, err, "reconciler is nil")
	_, err = reconcile.New("x", reconcile.Func[string](nil), reconcile.Options[string]{})
	require.ErrorContains(t, err, "reconciler is nil")

	_, err = reconcile.New("x", ok, reconcile.Options[string]{
		Workers:          -1,
		ReconcileTimeout: -1,
		CacheSyncTimeout: -1,
		ShutdownTimeout:  -1,
		Consistency:      []*reconcile.Consistency[string]{nil},
	})
	for _, want := range []string{"Workers", "ReconcileTimeout", "CacheSyncTimeout", "ShutdownTimeout", "Consistency[0]"} {
		require.ErrorContains(t, err, "reconcile: Options."+want)
	}

	ctl, err := reconcile.New("x", ok, reconcile.Options[string]{})
	require.NoError(t, err)
	require.Equal(t, "x", ctl.Name())
	require.ErrorContains(t, ctl.AddSyncCheck(nil), "hasSynced is nil")
}

// With RecoverPanic false a panic in Reconcile crashes the program, as
// it would without the controller. The test runs itself in a child
// process to watch it crash.
func TestRecoverPanicFalseCrashes(t *testing.T) {
	if os.Getenv("RECONCILE_PANIC_CHILD") == "1" {
		f := false
		r := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) {
			panic("deliberate panic in the child")
		})
		ctl, err := reconcile.New("no-recover", r, reconcile.Options[string]{RecoverPanic: &f, Logger: quiet})
		if err != nil {
			os.Exit(3)
		}
		ctl.Enqueue("a")
		_ = ctl.Run(context.Background()) // never returns: the panic kills the process
		os.Exit(4)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecoverPanicFalseCrashes$")
	cmd.Env = append(os.Environ(), "RECONCILE_PANIC_CHILD=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 2, exit.ExitCode(), "a Go panic exits with status 2: %s", out)
	require.Contains(t, string(out), "panic: deliberate panic in the child")
}

// TestQueueShutDownForcesTheDrain: once Run's ctx has ended, a ShutDown
// of the controller's queue (a second SIGTERM) cancels the reconciles in
// flight at once instead of after the ShutdownTimeout.
func TestQueueShutDownForcesTheDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var sawCancel time.Duration
		r := reconcile.Func[string](func(ctx context.Context, _ string) (reconcile.Result, error) {
			<-ctx.Done()
			sawCancel = time.Since(start)
			return reconcile.Result{}, ctx.Err()
		})
		ctl, err := reconcile.New("stuck", r, reconcile.Options[string]{ShutdownTimeout: time.Hour, Logger: quiet})
		require.NoError(t, err)
		ctl.Enqueue("a")
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { errc <- ctl.Run(ctx) }()
		time.Sleep(time.Second)
		cancel()
		time.Sleep(time.Second)
		synctest.Wait()
		select {
		case err := <-errc:
			t.Fatalf("Run returned before the drain: %v", err)
		default:
		}
		ctl.Queue().ShutDown()
		err = <-errc
		require.ErrorIs(t, err, workqueue.ErrDrainAborted)
		require.ErrorIs(t, err, context.Canceled)
		require.Equal(t, 2*time.Second, sawCancel)
		require.Equal(t, 2*time.Second, time.Since(start))
	})
}
