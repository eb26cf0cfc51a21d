package informer

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// batchSize is how many keys a listener takes from its buffer per lock.
// The batch slice is sized to what was queued when it was filled, growing
// (doubling at least) up to batchSize, so that a registration that only
// ever sees a few keys at a time holds a small one.
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
	// caller is the id of the goroutine delivering notifications (see
	// goid); 0 before run starts.
	caller atomic.Uint64

	// Owned by the goroutine running run (one at a time, see run): the
	// batch being delivered, the index bi of its slot being delivered and
	// bj of that slot's next notification, and whether the handler call
	// that just ended called runtime.Goexit.
	batch    []poppedSlot[T]
	bi       int
	bj       uint8
	goexited bool

	halted atomic.Bool   // set with stopped; read between handler calls
	wake   chan struct{} // capacity 1: "the buffer is not empty"
	stop   chan struct{} // closed when stopped is set
	done   chan struct{} // closed once the handler will never run again
	panics atomic.Int64
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

// pending is the number of keys with notifications not yet handled: the
// keys in the buffer plus the unfinished slots of the batch in flight.
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
// ctx ends, then closes done. A handler that calls runtime.Goexit (as
// t.FailNow does) ends the goroutine run is on; run cannot stop that, so
// it hands the rest of the work, from the notification after the one that
// exited, to a new goroutine started with spawn (the informer's
// WaitGroup.Go; the exiting goroutine is still counted, so the group
// never reaches zero in between), and that one closes done in the end.
func (l *listener[T]) run(ctx context.Context, spawn func(func())) {
	defer func() {
		if l.goexited {
			l.goexited = false
			spawn(func() { l.run(ctx, spawn) })
			return
		}
		close(l.done)
	}()
	l.caller.Store(goid())
	l.deliver(ctx)
}

// deliver is run's loop; the batch and its cursor live in l so that a run
// continuing after a Goexit resumes where the last one stopped.
func (l *listener[T]) deliver(ctx context.Context) {
	for {
		if l.bi == len(l.batch) && !l.refill() {
			select {
			case <-l.wake:
				continue
			case <-l.stop:
				return
			case <-ctx.Done():
				return
			}
		}
		p := &l.batch[l.bi]
		for l.bj < p.s.n {
			if l.halted.Load() {
				return
			}
			n := p.s.at(l.bj)
			l.bj++ // before the call: a Goexit in it must not repeat it
			l.call(n)
		}
		if p.initial {
			l.mu.Lock()
			l.inFlightInitial--
			l.mu.Unlock()
		}
		l.inBatch.Add(-1)
		*p = poppedSlot[T]{} // drop references to delivered objects
		l.bi, l.bj = l.bi+1, 0
	}
}

// refill takes the next batch of up to batchSize keys from the buffer;
// false if the buffer was empty.
func (l *listener[T]) refill() bool {
	l.batch, l.bi, l.bj = l.batch[:0], 0, 0
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := min(batchSize, l.buf.len()); n > cap(l.batch) {
		l.batch = make([]poppedSlot[T], 0, min(batchSize, max(n, 2*cap(l.batch))))
	}
	for len(l.batch) < cap(l.batch) {
		_, s, ok := l.buf.pop()
		if !ok {
			break
		}
		p := poppedSlot[T]{s: s, initial: s.initial()}
		if p.initial {
			l.inFlightInitial++
		}
		l.batch = append(l.batch, p)
	}
	l.inBatch.Store(int64(len(l.batch)))
	return len(l.batch) > 0
}

// call delivers one notification, recovering a panic and noticing a
// runtime.Goexit (which cannot be stopped; see run). Both are logged and
// counted as panics.
func (l *listener[T]) call(n *notification[T]) {
	returned := false
	defer func() {
		if returned {
			return
		}
		r := recover()
		l.panics.Add(1)
		l.metrics.Panics.Inc()
		if r != nil {
			l.logger.Error("informer: handler panicked; it keeps receiving later notifications",
				"handler", l.name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			return
		}
		l.goexited = true
		l.logger.Error("informer: handler called runtime.Goexit (t.FailNow?); it keeps receiving later notifications",
			"handler", l.name, "stack", string(debug.Stack()))
	}()
	switch n.kind {
	case kindAdd:
		l.handler.OnAdd(n.obj, n.flag)
	case kindUpdate:
		l.handler.OnUpdate(n.old, n.obj)
	case kindDelete:
		l.handler.OnDelete(n.obj, n.flag)
	}
	returned = true
}

// goid returns the id of the calling goroutine, parsed from the first
// line of its stack trace ("goroutine 123 [running]:"). Go offers no
// other way to tell the goroutine that runs a handler from any other;
// RemoveEventHandler needs it, and only then, to refuse to wait for
// itself.
func goid() uint64 {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if id, err := strconv.ParseUint(string(b[:i]), 10, 64); err == nil {
			return id
		}
	}
	return 0
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
// not finished handling: the keys waiting in its buffer plus those of the
// batch being delivered that are not done yet (the call in progress
// included). Coalescing bounds the first part by the number of distinct
// keys with pending changes; the batch adds at most 64, and a key of the
// batch can be pending in the buffer again, so the bound is that number
// of keys plus 64.
func (r *Registration) Pending() int {
	if r == nil || r.l == nil {
		return 0
	}
	return r.l.pending()
}

// Panics returns how many handler calls of this registration panicked or
// called runtime.Goexit (both are recovered from: the handler keeps
// receiving later notifications).
func (r *Registration) Panics() int64 {
	if r == nil || r.l == nil {
		return 0
	}
	return r.l.panicCount()
}
