package reconcile_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// obj is the object type of the tests: versioned, keyed by Name.
type obj struct {
	Name  string
	Owner string
	Val   int
	RV    string
}

func (o *obj) GetResourceVersion() string   { return o.RV }
func (o *obj) SetResourceVersion(rv string) { o.RV = rv }

func keyOf(o *obj) string { return o.Name }

func ownerOf(o *obj) []string { return []string{o.Owner} }

var quiet = slog.New(slog.DiscardHandler)

// logBuffer is a concurrency-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// metricsRec records every metric of a controller by its
// controller-runtime name.
type metricsRec struct {
	mu       sync.Mutex
	counts   map[string]int
	gauges   map[string]float64
	maxGauge map[string]float64
	observed int
}

type counterFunc func()

func (f counterFunc) Inc() { f() }

type gaugeFunc func(float64)

func (f gaugeFunc) Set(v float64) { f(v) }

type histFunc func(float64)

func (f histFunc) Observe(v float64) { f(v) }

func newMetricsRec() *metricsRec {
	return &metricsRec{counts: map[string]int{}, gauges: map[string]float64{}, maxGauge: map[string]float64{}}
}

func (r *metricsRec) ControllerMetrics(string) reconcile.Metrics {
	c := func(name string) metrics.Counter {
		return counterFunc(func() {
			r.mu.Lock()
			r.counts[name]++
			r.mu.Unlock()
		})
	}
	g := func(name string) metrics.Gauge {
		return gaugeFunc(func(v float64) {
			r.mu.Lock()
			r.gauges[name] = v
			r.maxGauge[name] = max(r.maxGauge[name], v)
			r.mu.Unlock()
		})
	}
	return reconcile.Metrics{
		TotalSuccess:      c(`reconcile_total{result="success"}`),
		TotalError:        c(`reconcile_total{result="error"}`),
		TotalRequeueAfter: c(`reconcile_total{result="requeue_after"}`),
		TotalTerminal:     c(`reconcile_total{result="terminal"}`),
		TotalRequeue:      c(`reconcile_total{result="requeue"}`),
		Errors:            c("reconcile_errors_total"),
		TerminalErrors:    c("terminal_reconcile_errors_total"),
		Panics:            c("reconcile_panics_total"),
		ReconcileTime: histFunc(func(float64) {
			r.mu.Lock()
			r.observed++
			r.mu.Unlock()
		}),
		ActiveWorkers:           g("active_workers"),
		MaxConcurrentReconciles: g("max_concurrent_reconciles"),
	}
}

func (r *metricsRec) count(name string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counts[name]
}

// running runs ctl until the returned stop is called; stop returns Run's
// error.
func running[R comparable](ctl *reconcile.Controller[R]) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- ctl.Run(ctx) }()
	return func() error {
		cancel()
		return <-errc
	}
}

// newSource returns a fake source holding objs.
func newSource(t *testing.T, objs ...*obj) *fake.Source[*obj] {
	t.Helper()
	src, err := fake.NewSource(keyOf, fake.Options[*obj]{})
	require.NoError(t, err)
	for _, o := range objs {
		_, err := src.Create(context.Background(), o)
		require.NoError(t, err)
	}
	return src
}

// newInformer returns an informer over lw (not running).
func newInformer(t *testing.T, lw source.ListWatcher[*obj], opts informer.Options[*obj]) *informer.Informer[*obj] {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	inf, err := informer.New(lw, keyOf, opts)
	require.NoError(t, err)
	return inf
}

// runInformer runs inf until the returned stop is called.
func runInformer(inf *informer.Informer[*obj]) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = inf.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
