package workqueue

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// LowPriority is the priority the reconcile loop gives to events that
// come from an initial list or a resync, so that live changes overtake
// them. The default priority is 0.
const LowPriority = -100

// yieldDepth is the number of ready items above which Add yields the
// processor after adding.
const yieldDepth = 256

// DefaultAgingInterval is Options.AgingInterval's default.
const DefaultAgingInterval = time.Second

// Options configure a Queue. The zero value is a working configuration.
type Options[T comparable] struct {
	// Name identifies the queue in logs and metrics. Default "".
	Name string
	// RateLimiter computes the delays of AddRateLimited and holds the
	// failure counts behind Forget and NumRequeues. Default (nil, or a
	// nil pointer): DefaultControllerRateLimiter[T]().
	RateLimiter RateLimiter[T]
	// AgingInterval is the waiting time worth one priority point: a ready
	// item's effective priority is its priority plus the time it has
	// waited divided by AgingInterval (see the package doc). Default
	// DefaultAgingInterval (1s); negative disables aging, making
	// priorities strict.
	AgingInterval time.Duration
	// Metrics, when set, is asked once for the queue's metrics. Default
	// (nil, or a nil pointer): nothing is recorded and the clock is not
	// read for metrics.
	Metrics MetricsProvider
	// Logger receives the queue's few log lines (shutdown, drain, Done of
	// an item not being processed, at debug level). Default
	// slog.Default().
	Logger *slog.Logger
}

// defaults fills in the defaults. New cannot fail, so a nil pointer in
// an interface field (a typed nil) counts as unset, like nil, instead of
// panicking at its first use.
func (o *Options[T]) defaults() {
	if isNil(o.RateLimiter) {
		o.RateLimiter = DefaultControllerRateLimiter[T]()
	}
	if isNil(o.Metrics) {
		o.Metrics = nil
	}
	if o.AgingInterval == 0 {
		o.AgingInterval = DefaultAgingInterval
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// AddOptions qualify one AddWithOptions call.
type AddOptions struct {
	// Priority orders ready items: higher first, subject to aging. An
	// item pending with several priorities keeps the highest.
	Priority int
	// After delays the item; <= 0 means ready now. An item pending with
	// several ready times keeps the earliest.
	After time.Duration
	// RateLimited delays the item by the rate limiter's When as well; the
	// delay is then the larger of After and When.
	RateLimited bool
}

// Queue is a work queue of items of type T with dedup, delays, rate
// limiting and priorities; see the package doc for its contract. All
// methods are safe for concurrent use. Create one with New.
type Queue[T comparable] struct {
	mu      sync.Mutex
	c       core[T]       // guarded by mu
	waiters []*waiter[T]  // parked Gets; non-empty only while nothing is ready; guarded by mu
	drained chan struct{} // made by ShutDown, closed once nothing is queued or processing; guarded by mu
	// release is closed by ShutDown to end the ShutDownWithDrain calls
	// waiting at that moment; made by the first of them, nil while none
	// waits. Guarded by mu.
	release chan struct{}
	timer   *time.Timer // fires at armedAt; guarded by mu
	armed   bool        // a fire is due at or before armedAt; guarded by mu
	armedAt int64       // guarded by mu

	shutdown atomic.Bool // set once, under mu

	limiter RateLimiter[T]
	epoch   time.Time
	name    string
	log     *slog.Logger
	retries metrics.Counter // nil unless metered
	pool    sync.Pool
}

type waiter[T comparable] struct {
	ch chan handoff[T]
}

type handoff[T comparable] struct {
	item     T
	prio     int
	shutdown bool
}

// New returns an empty queue. It starts no goroutine: a timer goroutine
// runs only briefly when a delayed item comes due.
func New[T comparable](opts Options[T]) *Queue[T] {
	opts.defaults()
	q := &Queue[T]{
		limiter: opts.RateLimiter,
		epoch:   time.Now(),
		name:    opts.Name,
		log:     opts.Logger,
	}
	q.pool.New = func() any { return &waiter[T]{ch: make(chan handoff[T], 1)} }
	aging := int64(opts.AgingInterval)
	if aging < 0 {
		aging = 0
	}
	var m *QueueMetrics
	if opts.Metrics != nil {
		qm := opts.Metrics.QueueMetrics(opts.Name, q.inFlight)
		qm.fill()
		m = &qm
		q.retries = qm.Retries
	}
	// Under the lock: the metrics provider may already call q.inFlight
	// (a scrape of a pull gauge) from another goroutine.
	q.mu.Lock()
	q.c.init(aging, m, q.nanotime)
	q.mu.Unlock()
	return q
}

// nanotime is the queue's monotonic clock.
func (q *Queue[T]) nanotime() int64 { return int64(time.Since(q.epoch)) }

// clockIfNeeded reads the clock before taking the lock if queued items
// carry timestamps, to keep the lock's hold time short. If the core starts
// needing the time meanwhile, it reads the clock itself.
func (q *Queue[T]) clockIfNeeded() int64 {
	if q.c.clockedHint.Load() {
		return q.nanotime()
	}
	return unknownTime
}

func (q *Queue[T]) inFlight() InFlight {
	now := q.nanotime()
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.c.inFlight(now)
}

// Add makes item ready with priority 0. If item is already queued it
// stays where it is; if it is being processed it is queued again once
// Done is called. Add after ShutDown does nothing.
func (q *Queue[T]) Add(item T) {
	q.addNow(item, 0)
}

// addNow adds item as ready with priority prio. When that grew a deep
// backlog it then yields the processor: producing faster than the workers
// consume only grows the backlog, and a backlog that no longer fits in
// the CPU caches makes every operation slower. An Add that changed
// nothing (the item was queued already) does not yield: it added no work.
func (q *Queue[T]) addNow(item T, prio int) {
	now := q.clockIfNeeded()
	q.mu.Lock()
	deep := false
	if !q.shutdown.Load() {
		before := q.c.ready
		q.c.add(item, prio, now)
		q.dispatchLocked()
		deep = q.c.ready > before && q.c.ready > yieldDepth
	}
	q.mu.Unlock()
	if deep {
		runtime.Gosched()
	}
}

// AddAfter adds item once d has passed; d <= 0 is Add. An item already
// waiting keeps the earlier of its ready times; an item already queued
// stays queued. Items still waiting at ShutDown are dropped.
func (q *Queue[T]) AddAfter(item T, d time.Duration) {
	q.addWith(item, 0, d)
}

// AddRateLimited adds item after the delay the rate limiter's When
// returns for it (which records a failure of item).
func (q *Queue[T]) AddRateLimited(item T) {
	if q.shutdown.Load() {
		return
	}
	now := q.nanotime()
	d := whenAt(q.limiter, item, q.epoch.Add(time.Duration(now)))
	if q.retries != nil {
		q.retries.Inc()
	}
	q.addAt(item, 0, d, now)
}

// AddWithOptions adds item with a priority, a delay, or a rate-limited
// delay; see AddOptions. AddWithOptions(item, AddOptions{}) is Add.
func (q *Queue[T]) AddWithOptions(item T, o AddOptions) {
	if !o.RateLimited {
		q.addWith(item, o.Priority, o.After)
		return
	}
	if q.shutdown.Load() {
		return
	}
	now := q.nanotime()
	d := max(o.After, whenAt(q.limiter, item, q.epoch.Add(time.Duration(now))))
	if q.retries != nil {
		q.retries.Inc()
	}
	q.addAt(item, o.Priority, d, now)
}

func (q *Queue[T]) addWith(item T, prio int, d time.Duration) {
	if d <= 0 {
		q.addNow(item, prio)
		return
	}
	q.addAt(item, prio, d, q.nanotime())
}

func (q *Queue[T]) addAt(item T, prio int, d time.Duration, now int64) {
	q.mu.Lock()
	if !q.shutdown.Load() {
		if d <= 0 {
			q.c.add(item, prio, now)
			q.dispatchLocked()
		} else {
			q.c.addAfter(item, prio, satAdd(now, int64(d)), now)
			q.armLocked(now)
		}
	}
	q.mu.Unlock()
}

// Get blocks until an item is ready and returns it, marking it as being
// processed: the caller must call Done(item) when finished. After
// ShutDown, Get keeps returning the items still queued, then returns
// shutdown == true (with the zero item) without blocking.
func (q *Queue[T]) Get() (item T, shutdown bool) {
	item, _, shutdown = q.GetWithPriority()
	return item, shutdown
}

// GetWithPriority is Get that also returns the priority the item was
// queued with.
func (q *Queue[T]) GetWithPriority() (item T, priority int, shutdown bool) {
	q.mu.Lock()
	if q.c.ready > 0 {
		e := q.c.pop(unknownTime)
		item, priority = e.item, e.prio
		q.mu.Unlock()
		return item, priority, false
	}
	if q.shutdown.Load() {
		q.mu.Unlock()
		return item, 0, true
	}
	w := q.pool.Get().(*waiter[T])
	q.waiters = append(q.waiters, w)
	q.mu.Unlock()
	h := <-w.ch
	q.pool.Put(w)
	return h.item, h.prio, h.shutdown
}

// dispatchLocked hands ready items to parked Gets, one item per waiter, each
// woken through its own channel (no broadcast, no thundering herd).
// Called with mu held.
func (q *Queue[T]) dispatchLocked() {
	for len(q.waiters) > 0 && q.c.ready > 0 {
		n := len(q.waiters) - 1
		w := q.waiters[n]
		q.waiters[n] = nil
		q.waiters = q.waiters[:n]
		e := q.c.pop(unknownTime)
		w.ch <- handoff[T]{item: e.item, prio: e.prio}
	}
}

// Done marks item as processed. If it was added again meanwhile, it is
// queued again now. Done of an item that is not being processed does
// nothing.
func (q *Queue[T]) Done(item T) {
	q.mu.Lock()
	if q.c.done(item, unknownTime) {
		q.dispatchLocked()
		q.checkDrainedLocked()
		q.mu.Unlock()
		return
	}
	q.mu.Unlock()
	q.log.Debug("workqueue: Done of an item that is not being processed", "queue", q.name, "item", item)
}

// Forget clears item's failure history in the rate limiter. It does not
// remove item from the queue.
func (q *Queue[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues returns the failures the rate limiter has recorded for item.
func (q *Queue[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }

// Len returns the number of ready items (queued, not processing, not
// waiting for a delay).
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.c.ready
}

// ShuttingDown reports whether ShutDown has been called.
func (q *Queue[T]) ShuttingDown() bool { return q.shutdown.Load() }

// ShutDown makes the queue ignore further adds, drops items still waiting
// for a delay, and stops the delay timer. Items already queued are still
// handed out by Get; once none is left Get returns shutdown == true.
//
// ShutDown also ends every ShutDownWithDrain and ShutDownWithDrainContext
// waiting at that moment, without waiting for the drain, as client-go's
// does: a second ShutDown (a second SIGTERM) forces a shutdown that a
// worker stuck before its Done would otherwise hold hostage. A drain
// started after it waits again.
//
// ShutDown does not wait; it is idempotent and safe to call concurrently.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
	if q.release != nil {
		close(q.release)
		q.release = nil
		q.log.Debug("workqueue: drain ended by ShutDown", "queue", q.name, "queued", q.c.ready, "processing", q.c.busy)
	}
}

func (q *Queue[T]) shutDownLocked() {
	if q.shutdown.Load() {
		return
	}
	q.shutdown.Store(true)
	q.drained = make(chan struct{})
	if q.timer != nil {
		q.timer.Stop()
		q.armed = false
	}
	q.c.dropWaiting()
	for i, w := range q.waiters {
		w.ch <- handoff[T]{shutdown: true}
		q.waiters[i] = nil
	}
	q.waiters = q.waiters[:0]
	q.log.Debug("workqueue: shutting down", "queue", q.name, "queued", q.c.ready, "processing", q.c.busy)
	q.checkDrainedLocked()
}

// checkDrainedLocked closes drained once the queue is shut down and nothing is
// queued or processing. Called with mu held.
func (q *Queue[T]) checkDrainedLocked() {
	if q.drained == nil || q.c.ready > 0 || q.c.busy > 0 {
		return
	}
	select {
	case <-q.drained:
	default:
		close(q.drained)
		q.log.Debug("workqueue: drained", "queue", q.name)
	}
}

// ErrDrainAborted is returned by ShutDownWithDrainContext when a
// ShutDown ended the wait before the queue had drained.
var ErrDrainAborted = errors.New("workqueue: drain ended by ShutDown before the queue drained")

// ShutDownWithDrain shuts the queue down (see ShutDown) and waits until
// every item that was queued or being processed has been handed out and
// marked Done — including items added again while being processed.
// Workers must keep calling Get and Done for it to return: a worker that
// never calls Done holds it hostage, until a ShutDown ends the wait
// (ShutDownWithDrainContext bounds it by a context instead). Idempotent
// and safe to call from several goroutines: all of them wait, and one
// ShutDown ends all of them.
func (q *Queue[T]) ShutDownWithDrain() {
	drained, release := q.startDrain()
	select {
	case <-drained:
	case <-release:
	}
}

// ShutDownWithDrainContext is ShutDownWithDrain bounded by ctx: it returns
// nil once drained, ctx.Err() if ctx ends first, or ErrDrainAborted if a
// ShutDown ends the wait first (the queue stays shut down and keeps
// draining in the last two cases). A nil ctx is an error; the queue is
// then not shut down.
func (q *Queue[T]) ShutDownWithDrainContext(ctx context.Context) error {
	if ctx == nil {
		return errors.New("workqueue: ShutDownWithDrainContext: context is nil")
	}
	drained, release := q.startDrain()
	select {
	case <-drained:
		return nil
	case <-release:
		select {
		case <-drained: // both: report the drain
			return nil
		default:
		}
		return ErrDrainAborted
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startDrain shuts the queue down and returns the channel closed once it
// has drained and the one closed by the next ShutDown.
func (q *Queue[T]) startDrain() (drained, release <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutDownLocked()
	if q.release == nil {
		q.release = make(chan struct{})
	}
	return q.drained, q.release
}

// armLocked sets the timer for the earliest waiting item, unless it is already
// set for that time or earlier. Called with mu held.
func (q *Queue[T]) armLocked(now int64) {
	at, ok := q.c.nextDeadline()
	if !ok || (q.armed && q.armedAt <= at) {
		return
	}
	d := time.Duration(at - now)
	if q.timer == nil {
		q.timer = time.AfterFunc(d, q.fire)
	} else {
		q.timer.Reset(d)
	}
	q.armed = true
	q.armedAt = at
}

// fire runs on the timer's goroutine: it moves every due item to the
// ready queue at once and re-arms the timer for the next one.
func (q *Queue[T]) fire() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.armed = false
	if q.shutdown.Load() {
		return
	}
	now := q.nanotime()
	q.c.advance(now)
	q.dispatchLocked()
	q.armLocked(now)
}
