package reconcile

import "github.com/ctrlkit/ctrlkit/metrics"

// MetricsProvider creates the metrics of one controller. It is set per
// controller in Options.Metrics; there is no global provider. The
// instruments are package metrics' Counter, Gauge and Histogram, which the
// Prometheus client's types implement.
type MetricsProvider interface {
	// ControllerMetrics is called once, by New, for the controller
	// named controller.
	ControllerMetrics(controller string) Metrics
}

// Metrics are the metrics of one controller. A nil field is not recorded.
// They are called from the worker goroutines, outside any lock of the
// controller, and must be safe for concurrent use.
//
// The names are controller-runtime's, so that a Prometheus adapter maps
// each field to the same collector (labelled controller=<name>) and
// dashboards carry over:
//
//	TotalSuccess            counter    controller_runtime_reconcile_total{result="success"}
//	TotalError              counter    controller_runtime_reconcile_total{result="error"}
//	TotalRequeueAfter       counter    controller_runtime_reconcile_total{result="requeue_after"}
//	TotalTerminal           counter    controller_runtime_reconcile_total{result="terminal"}
//	TotalRequeue            counter    controller_runtime_reconcile_total{result="requeue"}
//	Errors                  counter    controller_runtime_reconcile_errors_total
//	TerminalErrors          counter    controller_runtime_terminal_reconcile_errors_total
//	Panics                  counter    controller_runtime_reconcile_panics_total
//	ReconcileTime           histogram  controller_runtime_reconcile_time_seconds
//	ActiveWorkers           gauge      controller_runtime_active_workers
//	MaxConcurrentReconciles gauge      controller_runtime_max_concurrent_reconciles
//
// Two results differ from controller-runtime. A terminal error is counted
// under result="terminal" (controller-runtime counts it under "error" and
// only in terminal_reconcile_errors_total); both Errors and
// TerminalErrors count it, as there. And since Result has no Requeue
// flag, result="requeue" counts what is closest to it: a request put back
// with backoff, without calling the Reconciler, because a Consistency
// gate found the cache behind a recorded write.
type Metrics struct {
	// TotalSuccess counts reconciles that returned no error and a zero
	// Result.
	TotalSuccess metrics.Counter
	// TotalError counts reconciles that returned a non-terminal error or
	// panicked.
	TotalError metrics.Counter
	// TotalRequeueAfter counts reconciles that returned a positive
	// Result.RequeueAfter and no error.
	TotalRequeueAfter metrics.Counter
	// TotalTerminal counts reconciles that returned a Terminal error.
	TotalTerminal metrics.Counter
	// TotalRequeue counts requests deferred by a Consistency gate.
	TotalRequeue metrics.Counter
	// Errors counts reconciles that returned an error (terminal or not)
	// or panicked.
	Errors metrics.Counter
	// TerminalErrors counts reconciles that returned a Terminal error.
	TerminalErrors metrics.Counter
	// Panics counts reconciles that panicked.
	Panics metrics.Counter
	// ReconcileTime observes the seconds each Reconcile call took.
	ReconcileTime metrics.Histogram
	// ActiveWorkers is set to the number of workers inside Reconcile.
	ActiveWorkers metrics.Gauge
	// MaxConcurrentReconciles is set to Options.Workers when Run starts
	// the workers.
	MaxConcurrentReconciles metrics.Gauge
}

// fill replaces nil fields with no-ops, so that the workers need no nil
// checks.
func (m *Metrics) fill() {
	for _, c := range []*metrics.Counter{
		&m.TotalSuccess, &m.TotalError, &m.TotalRequeueAfter, &m.TotalTerminal,
		&m.TotalRequeue, &m.Errors, &m.TerminalErrors, &m.Panics,
	} {
		*c = metrics.Or(*c)
	}
	m.ReconcileTime = metrics.Or(m.ReconcileTime)
	m.ActiveWorkers = metrics.Or(m.ActiveWorkers)
	m.MaxConcurrentReconciles = metrics.Or(m.MaxConcurrentReconciles)
}
