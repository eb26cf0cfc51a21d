package prometheus

import (
	"errors"
	"fmt"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Label names.
const (
	// LabelName is the label of workqueue_*, reflector_*,
	// ctrlkit_reflector_* and ctrlkit_expectations_* metrics: the object's
	// name, as client-go labels them.
	LabelName = "name"
	// LabelController is the label of controller_runtime_* metrics and,
	// as in controller-runtime, of workqueue_* metrics (set to the
	// queue's name there).
	LabelController = "controller"
	// LabelPriority is the third label of workqueue_depth, always ""
	// here: controller-runtime labels the depth of its priority queue by
	// priority and that of other queues with "".
	LabelPriority = "priority"
	// LabelResult is the label of controller_runtime_reconcile_total
	// with the outcome of a reconcile (see the Result constants).
	LabelResult = "result"
	// LabelInformer names the informer of ctrlkit_informer_* metrics.
	LabelInformer = "informer"
	// LabelHandler names the handler registration of
	// ctrlkit_informer_handler_* metrics.
	LabelHandler = "handler"
	// LabelComponent is the label of ctrlkit_events_* metrics: the
	// Broadcaster's Options.Component.
	LabelComponent = "component"
)

// Values of the result label of controller_runtime_reconcile_total.
const (
	// ResultSuccess counts reconcile.Metrics.TotalSuccess: no error, a
	// zero Result.
	ResultSuccess = "success"
	// ResultError counts reconcile.Metrics.TotalError: a non-terminal
	// error or a panic.
	ResultError = "error"
	// ResultRequeueAfter counts reconcile.Metrics.TotalRequeueAfter: no
	// error, a positive RequeueAfter.
	ResultRequeueAfter = "requeue_after"
	// ResultRequeue counts reconcile.Metrics.TotalRequeue: a request put
	// back by a Consistency gate without calling the Reconciler.
	ResultRequeue = "requeue"
	// ResultTerminal counts reconcile.Metrics.TotalTerminal: a Terminal
	// error (ctrlkit's; controller-runtime counts those under "error").
	ResultTerminal = "terminal"
)

// DefaultQueueBuckets are the buckets of
// workqueue_queue_duration_seconds and workqueue_work_duration_seconds:
// client-go's and controller-runtime's, 10ns to 1000s by powers of ten.
func DefaultQueueBuckets() []float64 { return prom.ExponentialBuckets(10e-9, 10, 12) }

// DefaultReconcileBuckets are the buckets of
// controller_runtime_reconcile_time_seconds: controller-runtime's, 5ms
// to 60s.
func DefaultReconcileBuckets() []float64 {
	return []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
		1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}
}

// Options configure a Provider. The zero value gives controller-runtime's
// histogram buckets.
type Options struct {
	// QueueBuckets are the buckets of workqueue_queue_duration_seconds
	// and workqueue_work_duration_seconds. Default (nil):
	// DefaultQueueBuckets().
	QueueBuckets []float64
	// ReconcileBuckets are the buckets of
	// controller_runtime_reconcile_time_seconds. Default (nil):
	// DefaultReconcileBuckets().
	ReconcileBuckets []float64
}

// Provider implements the MetricsProvider interfaces of workqueue,
// reflector, informer, expectations, reconcile and events with the
// Prometheus client: each of its methods returns the children, labelled
// with the object's name, of collector vectors created and registered
// once by New. Objects of the same name share their series. It is safe
// for concurrent use. Make one with New; the zero value is not usable.
type Provider struct {
	// workqueue
	depth               *prom.GaugeVec
	adds, retries       *prom.CounterVec
	queueDur, workDur   *prom.HistogramVec
	unfinished, longest *pullGauge

	// reconcile
	reconcileTotal, reconcileErrors, terminalErrors, panics *prom.CounterVec
	reconcileTime                                           *prom.HistogramVec
	activeWorkers, maxConcurrent                            *prom.GaugeVec

	// reflector, in the order of reflectorFields
	reflector []*prom.CounterVec

	// informer, in the order of informerFields
	informer       []*prom.CounterVec
	handlerPanics  *prom.CounterVec
	synced, lastRV *pullGauge
	pending        *pullGauge

	// expectations and events
	expired, written, dropped *prom.CounterVec
}

// Compile-time checks that Provider implements every MetricsProvider.
var (
	_ workqueue.MetricsProvider    = (*Provider)(nil)
	_ reflector.MetricsProvider    = (*Provider)(nil)
	_ informer.MetricsProvider     = (*Provider)(nil)
	_ expectations.MetricsProvider = (*Provider)(nil)
	_ reconcile.MetricsProvider    = (*Provider)(nil)
	_ events.MetricsProvider       = (*Provider)(nil)
)

// reflectorFields are the reflector.Metrics counters, by field, with
// their metric names and help.
var reflectorFields = []struct {
	field func(*reflector.Metrics) *metrics.Counter
	name  string
	help  string
}{
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Lists }, "reflector_lists_total", "Total number of List calls (one per page) by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Watches }, "reflector_watches_total", "Total number of Watch calls (watch-list syncs included) by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.ShortWatches }, "reflector_short_watches_total", "Total number of watches that ended at once without an event, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Events }, "ctrlkit_reflector_events_total", "Total number of watch events (bookmarks included) applied to the store, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Replaces }, "ctrlkit_reflector_replaces_total", "Total number of completed syncs (Store.Replace calls) by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Resyncs }, "ctrlkit_reflector_resyncs_total", "Total number of Store.Resync calls by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Expired }, "ctrlkit_reflector_expired_total", "Total number of expired resource versions reported by the source, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.Backoffs }, "ctrlkit_reflector_backoffs_total", "Total number of backoff waits after errors, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.BadSource }, "ctrlkit_reflector_bad_source_total", "Total number of breaches of the ListWatcher contract, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.StoreErrors }, "ctrlkit_reflector_store_errors_total", "Total number of errors returned by the store, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.WatchListFallbacks }, "ctrlkit_reflector_watch_list_fallbacks_total", "Total number of switches from watch-list to List+Watch, by reflector"},
	{func(m *reflector.Metrics) *metrics.Counter { return &m.TransientErrors }, "ctrlkit_reflector_transient_errors_total", "Total number of transient watch failures, by reflector"},
}

// informerFields are the informer.Metrics counters.
var informerFields = []struct {
	field func(*informer.Metrics) *metrics.Counter
	name  string
	help  string
}{
	{func(m *informer.Metrics) *metrics.Counter { return &m.CacheErrors }, "ctrlkit_informer_cache_errors_total", "Total number of deltas the cache rejected, by informer"},
	{func(m *informer.Metrics) *metrics.Counter { return &m.StaleDeltas }, "ctrlkit_informer_stale_deltas_total", "Total number of deltas dropped as older than the cached object, by informer"},
	{func(m *informer.Metrics) *metrics.Counter { return &m.Mutations }, "ctrlkit_informer_mutations_total", "Total number of cached objects found mutated, by informer"},
	{func(m *informer.Metrics) *metrics.Counter { return &m.Quarantined }, "ctrlkit_informer_quarantined_total", "Total number of objects left out of the cache as bad, by informer"},
	{func(m *informer.Metrics) *metrics.Counter { return &m.CallbackPanics }, "ctrlkit_informer_callback_panics_total", "Total number of panics recovered from informer callbacks, by informer"},
}

// New creates the collectors and registers them on reg, which is
// required: there is no default registry. A collector that reg already
// holds with the same description (from another Provider on reg) is
// reused, so that two Providers on one registry share series; the
// buckets are then the first one's. Any other registration error (a
// metric of the same name with other labels or help) is returned, and
// nothing stays registered.
func New(reg prom.Registerer, opts Options) (*Provider, error) {
	if reg == nil {
		return nil, errors.New("prometheus: New: Registerer is nil")
	}
	if opts.QueueBuckets == nil {
		opts.QueueBuckets = DefaultQueueBuckets()
	}
	if opts.ReconcileBuckets == nil {
		opts.ReconcileBuckets = DefaultReconcileBuckets()
	}
	r := &registrar{reg: reg}
	p := &Provider{}
	queue := []string{LabelName, LabelController}
	ctrl := []string{LabelController}

	p.depth = register(r, prom.NewGaugeVec(prom.GaugeOpts{
		Name: "workqueue_depth", Help: "Current depth of workqueue by workqueue and priority",
	}, []string{LabelName, LabelController, LabelPriority}))
	p.adds = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "workqueue_adds_total", Help: "Total number of adds handled by workqueue",
	}, queue))
	p.queueDur = register(r, prom.NewHistogramVec(histogramOpts("workqueue_queue_duration_seconds",
		"How long in seconds an item stays in workqueue before being requested", opts.QueueBuckets), queue))
	p.workDur = register(r, prom.NewHistogramVec(histogramOpts("workqueue_work_duration_seconds",
		"How long in seconds processing an item from workqueue takes.", opts.QueueBuckets), queue))
	p.retries = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "workqueue_retries_total", Help: "Total number of retries handled by workqueue",
	}, queue))
	p.unfinished = register(r, newPullGauge("workqueue_unfinished_work_seconds",
		"How many seconds of work has been done that is in progress and hasn't been observed by work_duration. "+
			"Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
		queue, sum))
	p.longest = register(r, newPullGauge("workqueue_longest_running_processor_seconds",
		"How many seconds has the longest running processor for workqueue been running.", queue, maximum))

	p.reconcileTotal = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "controller_runtime_reconcile_total", Help: "Total number of reconciliations per controller",
	}, []string{LabelController, LabelResult}))
	p.reconcileErrors = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "controller_runtime_reconcile_errors_total", Help: "Total number of reconciliation errors per controller",
	}, ctrl))
	p.terminalErrors = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "controller_runtime_terminal_reconcile_errors_total", Help: "Total number of terminal reconciliation errors per controller",
	}, ctrl))
	p.panics = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "controller_runtime_reconcile_panics_total", Help: "Total number of reconciliation panics per controller",
	}, ctrl))
	p.reconcileTime = register(r, prom.NewHistogramVec(histogramOpts("controller_runtime_reconcile_time_seconds",
		"Length of time per reconciliation per controller", opts.ReconcileBuckets), ctrl))
	p.maxConcurrent = register(r, prom.NewGaugeVec(prom.GaugeOpts{
		Name: "controller_runtime_max_concurrent_reconciles", Help: "Maximum number of concurrent reconciles per controller",
	}, ctrl))
	p.activeWorkers = register(r, prom.NewGaugeVec(prom.GaugeOpts{
		Name: "controller_runtime_active_workers", Help: "Number of currently used workers per controller",
	}, ctrl))

	for _, f := range reflectorFields {
		p.reflector = append(p.reflector, register(r, prom.NewCounterVec(prom.CounterOpts{Name: f.name, Help: f.help}, []string{LabelName})))
	}
	for _, f := range informerFields {
		p.informer = append(p.informer, register(r, prom.NewCounterVec(prom.CounterOpts{Name: f.name, Help: f.help}, []string{LabelInformer})))
	}
	p.handlerPanics = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "ctrlkit_informer_handler_panics_total", Help: "Total number of handler calls that panicked, by informer and handler",
	}, []string{LabelInformer, LabelHandler}))
	p.synced = register(r, newPullGauge("ctrlkit_informer_synced",
		"1 if the informer has applied its first list, else 0", []string{LabelInformer}, minimum))
	p.lastRV = register(r, newPullGauge("reflector_last_resource_version",
		"Last resource version seen for the reflectors", []string{LabelName}, maximum))
	p.pending = register(r, newPullGauge("ctrlkit_informer_handler_pending",
		"Number of notifications queued for a handler and not yet delivered, by informer and handler", []string{LabelInformer, LabelHandler}, sum))

	p.expired = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "ctrlkit_expectations_expired_total", Help: "Total number of expectations whose TTL ran out unsatisfied",
	}, []string{LabelName}))
	p.written = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "ctrlkit_events_written_total", Help: "Total number of events created or updated in the sink, by component",
	}, []string{LabelComponent}))
	p.dropped = register(r, prom.NewCounterVec(prom.CounterOpts{
		Name: "ctrlkit_events_dropped_total", Help: "Total number of events dropped (queue full, rate limited or refused by the sink), by component",
	}, []string{LabelComponent}))

	if err := r.err(); err != nil {
		return nil, err
	}
	return p, nil
}

// histogramOpts are controller-runtime's histogram options: classic
// buckets plus a native histogram for scrapers that ask for one.
func histogramOpts(name, help string, buckets []float64) prom.HistogramOpts {
	return prom.HistogramOpts{
		Name: name, Help: help, Buckets: buckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}
}

// registrar registers collectors, reusing those already registered and
// remembering the first error.
type registrar struct {
	reg   prom.Registerer
	added []prom.Collector
	errs  []error
}

// register registers c on r, or returns the identical collector already
// registered.
func register[C prom.Collector](r *registrar, c C) C {
	err := r.reg.Register(c)
	if err == nil {
		r.added = append(r.added, c)
		return c
	}
	var are prom.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing
		}
	}
	r.errs = append(r.errs, fmt.Errorf("prometheus: New: %w", err))
	return c
}

// err returns the errors of register, having unregistered what it
// registered if there were any.
func (r *registrar) err() error {
	if len(r.errs) == 0 {
		return nil
	}
	for _, c := range r.added {
		r.reg.Unregister(c)
	}
	return errors.Join(r.errs...)
}
