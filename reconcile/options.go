package reconcile

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Defaults of Options.
const (
	// DefaultCacheSyncTimeout is Options.CacheSyncTimeout's default.
	DefaultCacheSyncTimeout = 2 * time.Minute
	// DefaultShutdownTimeout is Options.ShutdownTimeout's default.
	DefaultShutdownTimeout = 30 * time.Second
)

// Options configure a Controller. The zero value is valid: every field
// has a default, stated in its doc comment. An interface field holding a
// nil pointer (a typed nil) is an error, not the default.
type Options[R comparable] struct {
	// Workers is the number of requests reconciled concurrently
	// (controller-runtime's MaxConcurrentReconciles). Default 1; negative
	// is an error.
	Workers int

	// RateLimiter computes the backoff of failed requests. Default
	// workqueue.DefaultControllerRateLimiter[R]() (per request 5ms
	// doubling to 1000s, overall 10 retries/s with a burst of 100).
	RateLimiter workqueue.RateLimiter[R]

	// Logger receives the controller's logs, with a "controller"
	// attribute set to its name. Default slog.Default().
	Logger *slog.Logger

	// Metrics, if set, is asked once (by New) for the controller's
	// metrics. Default: none.
	Metrics MetricsProvider

	// QueueMetrics, if set, meters the controller's work queue, which is
	// named after the controller. Default: none.
	QueueMetrics workqueue.MetricsProvider

	// RecoverPanic says whether a panic in Reconcile is recovered into an
	// error (logged with its stack, counted, retried with backoff) rather
	// than crashing the program. Default (nil) true.
	RecoverPanic *bool

	// ReconcileTimeout, if positive, bounds each Reconcile call: its ctx
	// ends after this long. Default 0: no bound. Negative is an error.
	ReconcileTimeout time.Duration

	// CacheSyncTimeout bounds how long Run waits for the watched
	// registrations (and the checks added by AddSyncCheck) to sync before
	// it gives up with ErrCacheSyncTimeout. Default
	// DefaultCacheSyncTimeout (2 minutes); negative is an error.
	CacheSyncTimeout time.Duration

	// ShutdownTimeout bounds how long, once Run's ctx ends, the
	// reconciles in flight may run on before their ctx is cancelled. Run
	// still returns only after they have returned. Default
	// DefaultShutdownTimeout (30 seconds); negative is an error.
	ShutdownTimeout time.Duration

	// Consistency lists the read-your-writes gates the controller checks
	// before each Reconcile (see Consistency). Default: none.
	Consistency []*Consistency[R]

	// Queue, if set, is the work queue the controller takes its requests
	// from instead of one of its own: for a queue configured otherwise
	// than New's (kube-scheduler's scheduling queue orders by strict
	// priority, without aging). The controller owns it: Run shuts it
	// down, and only its workers may Get from it. Its rate limiter and
	// metrics are the queue's own, so RateLimiter and QueueMetrics must
	// then be unset. Default: a new queue named after the controller.
	Queue *workqueue.Queue[R]
}

// validate returns a copy of o with defaults filled in, or an error.
func (o Options[R]) validate() (Options[R], error) {
	var errs []error
	if o.Workers < 0 {
		errs = append(errs, fmt.Errorf("reconcile: Options.Workers is negative (%d)", o.Workers))
	}
	if o.ReconcileTimeout < 0 {
		errs = append(errs, fmt.Errorf("reconcile: Options.ReconcileTimeout is negative (%v)", o.ReconcileTimeout))
	}
	if o.CacheSyncTimeout < 0 {
		errs = append(errs, fmt.Errorf("reconcile: Options.CacheSyncTimeout is negative (%v)", o.CacheSyncTimeout))
	}
	if o.ShutdownTimeout < 0 {
		errs = append(errs, fmt.Errorf("reconcile: Options.ShutdownTimeout is negative (%v)", o.ShutdownTimeout))
	}
	// A nil pointer in an interface field is a mistake, not "unset": it
	// would panic at the first use.
	if o.RateLimiter != nil && isNil(o.RateLimiter) {
		errs = append(errs, errors.New("reconcile: Options.RateLimiter holds a nil pointer"))
	}
	if o.Metrics != nil && isNil(o.Metrics) {
		errs = append(errs, errors.New("reconcile: Options.Metrics holds a nil pointer"))
	}
	if o.QueueMetrics != nil && isNil(o.QueueMetrics) {
		errs = append(errs, errors.New("reconcile: Options.QueueMetrics holds a nil pointer"))
	}
	if o.Queue != nil && (o.RateLimiter != nil || o.QueueMetrics != nil) {
		errs = append(errs, errors.New("reconcile: Options.RateLimiter and QueueMetrics are the Queue's own when Options.Queue is set"))
	}
	for i, g := range o.Consistency {
		if g == nil {
			errs = append(errs, fmt.Errorf("reconcile: Options.Consistency[%d] is nil", i))
		}
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.RateLimiter == nil {
		o.RateLimiter = workqueue.DefaultControllerRateLimiter[R]()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.RecoverPanic == nil {
		t := true
		o.RecoverPanic = &t
	}
	if o.CacheSyncTimeout == 0 {
		o.CacheSyncTimeout = DefaultCacheSyncTimeout
	}
	if o.ShutdownTimeout == 0 {
		o.ShutdownTimeout = DefaultShutdownTimeout
	}
	return o, errors.Join(errs...)
}
