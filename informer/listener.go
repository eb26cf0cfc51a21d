package informer

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// batchSize is how many keys a listener takes from its buffer per lock.
const batchSize = 64

// listener is one handler registration: a coalescing buffer filled by the
// informer and drained by the listener's own goroutine, so a slow or
// panicking handler delays nobody else.
type listener[T any] struct {
	owner   any // the *Informer[T] that created it
	name    string
	handler Handler[T]
	logger  *slog.Logger
	metrics HandlerMetrics
	synced  func() bool // the informer's HasSynced

	// resync is the effective resync period (0: none) and nextResync when
	// it is next due; both guarded by the informer's mu.
	resync     time.Duration
	nextResync time.Time

	mu sync.Mutex
	// buf holds the pending notifications; guarded by mu.
	buf *pendingBuffer[T]
	// inFlightInitial counts popped initial-list adds whose handler call
	// has not returned yet; guarded by mu.
	inFlightInitial int
	// started is set when the goroutine was started, stopped when the
	// listener was removed or the informer stopped; both guarded by mu.
	started, stopped bool

	// inBatch counts the slots run has taken from buf and not finished.
	inBatch atomic.Int64
	halted  atomic.Bool   // set with stopped; read between handler calls
	wake    chan struct{} // capacity 1: "the buffer is not empty"
	stop    chan struct{} // closed when stopped is set
	done    chan struct{} // closed once the handler will never run again
	panics  atomic.Int64
}

func newListener[T any](owner any, name string, h Handler[T], logger *slog.Logger, m HandlerMetrics, synced func() bool) *listener[T] {
	return &listener[T]{
		owner:   owner,
		name:    name,
		handler: h,
		logger:  logger,
		metrics: m,
		synced:  synced,
		buf:     newPendingBuffer[T](),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
}

// push queues x for key. It never blocks on the handler.
func (l *listener[T]) push(key string, x notification[T]) {
	l.mu.Lock()
	if l.stopped {
		l.mu.Unlock()
		return
	}
	l.buf.push(key, x)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// hasSynced: the informer has synced and every initial-list add this
// handler was given has been handled.
func (l *listener[T]) hasSynced() bool {
	if !l.synced() {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return !l.stopped && l.buf.initial == 0 && l.inFlightInitial == 0
}

// pending is the number of keys with notifications not yet handled,
// including those of a call in progress.
func (l *listener[T]) pending() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.len() + int(l.inBatch.Load())
}

// markStarted records that run is about to be started; false if the
// listener was already stopped.
func (l *listener[T]) markStarted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	l.started = true
	return true
}

// halt stops the listener: no handler call begins after halt returns, and
// the pending notifications are dropped. It reports whether the goroutine
// was started (and so whether done will be closed by it).
func (l *listener[T]) halt() (started bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.stopped = true
		l.halted.Store(true)
		l.buf.reset()
		close(l.stop)
		if !l.started {
			close(l.done)
		}
	}
	return l.started
}

type poppedSlot[T any] struct {
	s       slot[T]
	initial bool
}

// run delivers the buffer's notifications until the listener is halted or
// ctx ends.
func (l *listener[T]) run(ctx context.Context) {
	defer close(l.done)
	batch := make([]poppedSlot[T], 0, batchSize)
	for {
		batch = batch[:0]
		l.mu.Lock()
		for len(batch) < batchSize {
			_, s, ok := l.buf.pop()
			if !ok {
				break
			}
			if s.n == 0 {
				continue
			}
			p := poppedSlot[T]{s: s, initial: s.initial()}
			if p.initial {
				l.inFlightInitial++
			}
			batch = append(batch, p)
		}
		l.inBatch.Store(int64(len(batch)))
		l.mu.Unlock()
		if len(batch) == 0 {
			select {
			case <-l.wake:
				continue
			case <-l.stop:
				return
			case <-ctx.Done():
				return
			}
		}
		for i := range batch {
			p := &batch[i]
			for j := range p.s.n {
				if l.halted.Load() {
					return
				}
				l.call(p.s.at(j))
			}
			if p.initial {
				l.mu.Lock()
				l.inFlightInitial--
				l.mu.Unlock()
			}
			l.inBatch.Add(-1)
			*p = poppedSlot[T]{} // drop references to delivered objects
		}
	}
}

// call delivers one notification, recovering a panic.
func (l *listener[T]) call(n *notification[T]) {
	defer func() {
		if r := recover(); r != nil {
			l.panics.Add(1)
			l.metrics.Panics.Inc()
			l.logger.Error("informer: handler panicked; it keeps receiving later notifications",
				"handler", l.name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		}
	}()
	switch n.kind {
	case kindAdd:
		l.handler.OnAdd(n.obj, n.flag)
	case kindUpdate:
		l.handler.OnUpdate(n.old, n.obj)
	case kindDelete:
		l.handler.OnDelete(n.obj, n.flag)
	}
}

// Registration is the handle of one AddEventHandler call.
type Registration struct {
	owner any
	l     registrant
}

// registrant is the part of a listener that does not depend on T.
type registrant interface {
	hasSynced() bool
	pending() int
	panicCount() int64
	listenerName() string
}

func (l *listener[T]) panicCount() int64    { return l.panics.Load() }
func (l *listener[T]) listenerName() string { return l.name }

// HasSynced reports whether the informer has synced and this handler has
// handled every notification of its initial batch: the informer's first
// list, or for a handler added later, the cache content it was given. It
// is false once the registration is removed or the informer has stopped. A
// nil Registration has not synced.
func (r *Registration) HasSynced() bool {
	if r == nil || r.l == nil {
		return false
	}
	return r.l.hasSynced()
}

// Name returns the registration's name (HandlerOptions.Name or its
// default).
func (r *Registration) Name() string {
	if r == nil || r.l == nil {
		return ""
	}
	return r.l.listenerName()
}

// Pending returns the number of keys with notifications this handler has
// not been given yet. Coalescing bounds it by the number of keys.
func (r *Registration) Pending() int {
	if r == nil || r.l == nil {
		return 0
	}
	return r.l.pending()
}

// Panics returns how many handler calls of this registration panicked.
func (r *Registration) Panics() int64 {
	if r == nil || r.l == nil {
		return 0
	}
	return r.l.panicCount()
}
