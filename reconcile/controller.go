package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// ErrCacheSyncTimeout is wrapped by the error Run returns when the caches
// it waits for have not synced within Options.CacheSyncTimeout.
var ErrCacheSyncTimeout = errors.New("reconcile: timed out waiting for caches to sync")

// ErrShutdownTimeout is wrapped by the error Run returns when reconciles
// in flight outlasted Options.ShutdownTimeout and had their ctx
// cancelled. With workqueue.ErrDrainAborted (a forced shutdown) it is
// what a drain that did not end cleanly reports: a controller's Run
// passes such an error on rather than reducing it to ctx.Err().
var ErrShutdownTimeout = errors.New("reconcile: reconciles outlasted the shutdown timeout")

// Controller feeds the requests of its work queue to a Reconciler, from
// Options.Workers goroutines, with backoff on errors, panic recovery and
// graceful shutdown. See the package documentation for the contract.
//
// A Controller is created by New, wired by Watch (or Enqueue and
// AddSyncCheck), and driven by Run, once. Its methods are safe for
// concurrent use.
type Controller[R comparable] struct {
	name  string
	r     Reconciler[R]
	queue *workqueue.Queue[R]
	log   *slog.Logger
	m     Metrics
	// metered: Options.Metrics was set (ActiveWorkers needs activeMu).
	metered bool
	gates   []*Consistency[R]                // Options.Consistency, then those Writer made; appended only before Run
	gateFor map[OrderedCache]*Consistency[R] // guarded by mu; the gates Writer made

	workers          int
	recoverPanic     bool
	reconcileTimeout time.Duration
	syncTimeout      time.Duration
	shutdownTimeout  time.Duration

	mu      sync.Mutex
	synced  []func() bool // guarded by mu; what Run waits for
	started bool          // guarded by mu; Run was called
	allOn   []allOn[R]    // guarded by mu; ReconcileAllOn registrations

	activeMu sync.Mutex
	active   int // guarded by activeMu; workers inside Reconcile
}

// New returns a Controller named name (used in logs and metrics, and as
// its queue's name) that reconciles with r. It starts nothing: wire it
// with Watch, then call Run. It returns an error if name is empty, r is
// nil (or a nil pointer or Func in the interface) or opts is invalid.
func New[R comparable](name string, r Reconciler[R], opts Options[R]) (*Controller[R], error) {
	if name == "" {
		return nil, errors.New("reconcile: New: name is empty")
	}
	if isNil(r) {
		return nil, fmt.Errorf("reconcile: New %q: reconciler is nil", name)
	}
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	c := &Controller[R]{
		name:             name,
		r:                r,
		log:              opts.Logger.With("controller", name),
		gates:            slices.Clone(opts.Consistency),
		workers:          opts.Workers,
		recoverPanic:     *opts.RecoverPanic,
		reconcileTimeout: opts.ReconcileTimeout,
		syncTimeout:      opts.CacheSyncTimeout,
		shutdownTimeout:  opts.ShutdownTimeout,
	}
	c.queue = opts.Queue
	if c.queue == nil {
		c.queue = workqueue.New(workqueue.Options[R]{
			Name:        name,
			RateLimiter: opts.RateLimiter,
			Metrics:     opts.QueueMetrics,
			Logger:      opts.Logger,
		})
	}
	if opts.Metrics != nil {
		c.m = opts.Metrics.ControllerMetrics(name)
		c.metered = true
	}
	c.m.fill()
	return c, nil
}

// Name returns the controller's name.
func (c *Controller[R]) Name() string { return c.name }

// Enqueue adds req to the queue with the default priority: it is
// reconciled once a worker is free (after Run has synced), and only once
// if it is enqueued several times before that. A request enqueued while
// being reconciled is reconciled again afterwards. Enqueue never blocks;
// after Run has returned it does nothing.
func (c *Controller[R]) Enqueue(req R) { c.queue.Add(req) }

// Queue returns the controller's work queue, for custom event sources
// that need delays or priorities (AddAfter, AddWithOptions) and for
// inspection (Len, NumRequeues). Only the controller's workers may call
// Get, GetWithPriority and Done, and only Run may shut it down — with one
// exception: a ShutDown while Run drains (after its ctx ended) forces the
// shutdown, as a second SIGTERM does in client-go: the reconciles in
// flight are cancelled at once instead of after Options.ShutdownTimeout.
func (c *Controller[R]) Queue() *workqueue.Queue[R] { return c.queue }

// AddSyncCheck adds hasSynced to what Run waits for before it starts the
// workers, for handlers registered without Watch (Watch adds its
// registration's HasSynced itself). Checks added after Run has started
// are not waited for. It returns an error if hasSynced is nil.
func (c *Controller[R]) AddSyncCheck(hasSynced func() bool) error {
	if hasSynced == nil {
		return fmt.Errorf("reconcile: controller %q: AddSyncCheck: hasSynced is nil", c.name)
	}
	c.mu.Lock()
	c.synced = append(c.synced, hasSynced)
	c.mu.Unlock()
	return nil
}

// Run waits until every watched registration has synced, then reconciles
// requests from Options.Workers goroutines until ctx ends.
//
// If the caches have not synced within Options.CacheSyncTimeout, Run
// returns an error wrapping ErrCacheSyncTimeout without reconciling
// anything. When ctx ends, the workers stop taking requests (the queued
// ones are dropped), the reconciles in flight run to completion (their
// ctx is cancelled only if they outlast Options.ShutdownTimeout), and Run
// returns ctx.Err() once every worker has exited — wrapped in an error
// saying so if the ShutdownTimeout ran out (the error then also wraps
// ErrShutdownTimeout) or if a ShutDown of the queue (see Queue) forced
// the shutdown (the error then also wraps workqueue.ErrDrainAborted). Afterwards the queue is shut
// down and Enqueue does nothing. Run may be called only once. A nil ctx
// is an error: Run then returns at once and does not count as called.
func (c *Controller[R]) Run(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("reconcile: controller %q: Run: context is nil", c.name)
	}
	c.mu.Lock()
	if c.started {
		c.mu.Unlock()
		return fmt.Errorf("reconcile: controller %q: Run was already called", c.name)
	}
	c.started = true
	synced := slices.Clone(c.synced)
	c.mu.Unlock()

	if err := c.waitForSync(ctx, synced); err != nil {
		c.queue.ShutDown()
		return err
	}

	// In-flight reconciles outlive ctx: they are cancelled only when the
	// shutdown timeout runs out. The values of ctx are kept.
	workCtx, cancelWork := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWork()
	c.m.MaxConcurrentReconciles.Set(float64(c.workers))
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() { c.worker(ctx, workCtx) })
	}
	c.mu.Lock()
	for _, a := range c.allOn {
		wg.Go(func() { c.reconcileAllOn(ctx, a) })
	}
	c.mu.Unlock()
	c.log.Info("reconcile: workers started", "workers", c.workers)

	<-ctx.Done()
	c.log.Info("reconcile: shutting down, waiting for reconciles in flight")
	drainCtx, cancelDrain := context.WithTimeout(context.Background(), c.shutdownTimeout)
	drainErr := c.queue.ShutDownWithDrainContext(drainCtx)
	cancelDrain()
	forced := errors.Is(drainErr, workqueue.ErrDrainAborted)
	switch {
	case forced:
		c.log.Warn("reconcile: queue shut down during the drain; cancelling the reconciles in flight")
		cancelWork()
	case drainErr != nil:
		c.log.Warn("reconcile: reconciles still running after the shutdown timeout; cancelling them",
			"shutdownTimeout", c.shutdownTimeout)
		cancelWork()
	}
	wg.Wait()
	c.log.Info("reconcile: all workers exited")
	switch {
	case forced:
		return fmt.Errorf("reconcile: controller %q: shutdown forced by a ShutDown of its queue; reconciles in flight were cancelled: %w",
			c.name, errors.Join(drainErr, ctx.Err()))
	case drainErr != nil:
		return fmt.Errorf("reconcile: controller %q: reconciles outlasted ShutdownTimeout %v and were cancelled: %w",
			c.name, c.shutdownTimeout, errors.Join(ErrShutdownTimeout, ctx.Err()))
	}
	return ctx.Err()
}

// waitForSync waits for every check in synced, bounded by the cache sync
// timeout.
func (c *Controller[R]) waitForSync(ctx context.Context, synced []func() bool) error {
	if len(synced) == 0 {
		return ctx.Err()
	}
	c.log.Info("reconcile: waiting for caches to sync", "caches", len(synced))
	syncCtx, cancel := context.WithTimeout(ctx, c.syncTimeout)
	defer cancel()
	if informer.WaitForCacheSync(syncCtx, synced...) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pending := 0
	for _, f := range synced {
		if !f() {
			pending++
		}
	}
	return fmt.Errorf("%w: controller %q: %d of %d caches not synced after %v",
		ErrCacheSyncTimeout, c.name, pending, len(synced), c.syncTimeout)
}

// worker reconciles requests until the queue is shut down and drained.
// Once runCtx has ended it drops the requests it gets.
func (c *Controller[R]) worker(runCtx, workCtx context.Context) {
	for {
		req, prio, shutdown := c.queue.GetWithPriority()
		if shutdown {
			return
		}
		if runCtx.Err() == nil {
			c.process(workCtx, req, prio)
		}
		c.queue.Done(req)
	}
}

// process runs one request through the consistency gates and the
// Reconciler and requeues it as the outcome says. Requeues keep the
// priority the request was queued with.
func (c *Controller[R]) process(ctx context.Context, req R, prio int) {
	for _, g := range c.gates {
		ok, err := g.caughtUp(req)
		if err != nil {
			c.log.Warn("reconcile: consistency check failed; reconciling without it", "request", req, "err", err)
		}
		if !ok {
			c.queue.AddWithOptions(req, workqueue.AddOptions{Priority: prio, RateLimited: true})
			c.m.TotalRequeue.Inc()
			c.log.Debug("reconcile: cache behind a recorded write; requeued", "request", req)
			return
		}
	}
	if c.reconcileTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.reconcileTimeout)
		defer cancel()
	}
	ctx = withRequest(ctx, req)
	c.addActive(1)
	start := time.Now()
	res, err := c.call(ctx, req)
	c.m.ReconcileTime.Observe(time.Since(start).Seconds())
	c.addActive(-1)
	if res.Priority != nil {
		prio = *res.Priority
	}

	switch {
	case err != nil && errors.Is(err, ErrTerminal):
		c.queue.Forget(req)
		c.m.TotalTerminal.Inc()
		c.m.Errors.Inc()
		c.m.TerminalErrors.Inc()
		c.log.Error("reconcile: terminal error; not retrying", "request", req, "err", err)
	case err != nil:
		c.queue.AddWithOptions(req, workqueue.AddOptions{Priority: prio, RateLimited: true})
		c.m.TotalError.Inc()
		c.m.Errors.Inc()
		c.log.Error("reconcile: error; retrying with backoff", "request", req, "err", err,
			"failures", c.queue.NumRequeues(req))
		if !res.IsZero() {
			c.log.Debug("reconcile: Result ignored because of the error", "request", req)
		}
	case res.RequeueAfter > 0:
		c.queue.Forget(req)
		c.queue.AddWithOptions(req, workqueue.AddOptions{Priority: prio, After: res.RequeueAfter})
		c.m.TotalRequeueAfter.Inc()
	default:
		c.queue.Forget(req)
		c.m.TotalSuccess.Inc()
	}
}

// call calls Reconcile, turning a panic into an error when RecoverPanic
// is set. Either way the panic is counted.
func (c *Controller[R]) call(ctx context.Context, req R) (res Result, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		c.m.Panics.Inc()
		if !c.recoverPanic {
			panic(r)
		}
		c.log.Error("reconcile: panic in Reconcile (recovered)", "request", req, "panic", r,
			"stack", string(debug.Stack()))
		res, err = Result{}, fmt.Errorf("reconcile: controller %q: panic in Reconcile: %v [recovered]", c.name, r)
	}()
	return c.r.Reconcile(ctx, req)
}

// addActive changes the number of workers inside Reconcile and reports it
// to the ActiveWorkers gauge. The mutex keeps the reported values in
// order.
func (c *Controller[R]) addActive(d int) {
	if !c.metered {
		return
	}
	c.activeMu.Lock()
	c.active += d
	c.m.ActiveWorkers.Set(float64(c.active))
	c.activeMu.Unlock()
}

// allOn is one ReconcileAllOn registration.
type allOn[R comparable] struct {
	signal <-chan struct{}
	all    func() []R
}

// ReconcileAllOn makes Run enqueue every request all returns, at low
// priority, each time signal delivers a value — kube-rs's
// reconcile_all_on: a changed configuration, a rotated credential, a
// node added to a pool. A closed signal stops it. Call it before Run; it
// returns an error after.
func (c *Controller[R]) ReconcileAllOn(signal <-chan struct{}, all func() []R) error {
	if signal == nil || all == nil {
		return fmt.Errorf("reconcile: controller %q: ReconcileAllOn: signal or all is nil", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return fmt.Errorf("reconcile: controller %q: ReconcileAllOn after Run", c.name)
	}
	c.allOn = append(c.allOn, allOn[R]{signal: signal, all: all})
	return nil
}

func (c *Controller[R]) reconcileAllOn(ctx context.Context, a allOn[R]) {
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-a.signal:
			if !ok {
				return
			}
			for _, req := range a.all() {
				c.queue.AddWithOptions(req, workqueue.AddOptions{Priority: workqueue.LowPriority})
			}
		}
	}
}
