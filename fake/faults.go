package fake

import (
	"context"
	"errors"
	"time"
)

// faults are the injected faults of a Source, guarded by Source.mu.
type faults struct {
	lists, watches injection
	missNext       int
}

// injection fails the next n calls with err, after delaying every call.
type injection struct {
	n     int
	err   error
	delay time.Duration
}

var (
	errInjectedList  = errors.New("fake: injected list failure")
	errInjectedWatch = errors.New("fake: injected watch failure")
)

// injected applies an injection to one call: it waits the delay, then
// consumes one injected failure if any is left.
func (s *Source[T]) injected(ctx context.Context, inj *injection) error {
	s.mu.Lock()
	d := inj.delay
	s.mu.Unlock()
	if err := sleep(ctx, d); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if inj.n == 0 {
		return nil
	}
	inj.n--
	return inj.err
}

// FailLists makes the next n calls of List return err unchanged (a
// generic error when err is nil). It replaces any earlier FailLists.
func (s *Source[T]) FailLists(n int, err error) {
	if err == nil {
		err = errInjectedList
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.lists.n, s.faults.lists.err = max(n, 0), err
}

// FailWatches makes the next n calls of Watch return err unchanged (a
// generic error when err is nil). It replaces any earlier FailWatches.
func (s *Source[T]) FailWatches(n int, err error) {
	if err == nil {
		err = errInjectedWatch
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.watches.n, s.faults.watches.err = max(n, 0), err
}

// DelayLists makes every later List wait d (or until its context ends)
// before it is served. Zero removes the delay.
func (s *Source[T]) DelayLists(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.lists.delay = d
}

// DelayWatches makes every later Watch wait d (or until its context ends)
// before it is served. Zero removes the delay.
func (s *Source[T]) DelayWatches(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.watches.delay = d
}

// MissNextEvents makes the next n writes silent: each takes a revision
// and changes the state (Get and List see it) but no watcher, open now or
// later, ever receives its event; a watch just skips it. This is the
// fault "the client missed an event" that only a relist repairs.
func (s *Source[T]) MissNextEvents(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults.missNext = max(n, 0)
}

// CutWatches ends every open watch: with err nil its channel is closed
// cleanly; otherwise the watch first delivers one Error event carrying err
// (pass an error wrapping source.ErrExpired to force a relist). Events
// not yet received are dropped. It returns the number of watches cut.
func (s *Source[T]) CutWatches(err error) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.watchers)
	for w := range s.watchers {
		s.stopLocked(w, err)
	}
	return n
}

// Compact drops the whole history now: every resourceVersion older than
// the current one, and every continue token pinned to such a version,
// expires. Open watches that have caught up with the history (everything
// up to the revision at which they were opened) are not affected: their
// live events are queued apart. A watch still replaying history ends with
// an Error event wrapping source.ErrExpired once it needs a compacted
// event (it may hold up to 128 events it already read from the history).
func (s *Source[T]) Compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hist.reset()
	s.compacted = s.rev
}

// ListCalls returns how many times List has been called, failed and
// injected-failed calls included.
func (s *Source[T]) ListCalls() int { return int(s.listCalls.Load()) }

// WatchCalls returns how many times Watch has been called, failed and
// injected-failed calls included.
func (s *Source[T]) WatchCalls() int { return int(s.watchCalls.Load()) }

// Watchers returns the number of open watches. A watch whose context has
// ended counts until its channel is closed.
func (s *Source[T]) Watchers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watchers)
}

// TerminatedWatchers returns how many watches the source has ended
// because their reader fell behind: their buffer (Options.WatchBuffer)
// stayed full for the whole dispatch budget. kube-apiserver counts the
// same in apiserver_terminated_watchers_total.
func (s *Source[T]) TerminatedWatchers() int { return int(s.terminated.Load()) }

// LaggedWatchers returns how many times a watcher's buffer stayed full
// for the whole dispatch budget and, with Options.CatchUp, the watcher
// went on from the history instead of being ended.
func (s *Source[T]) LaggedWatchers() int { return int(s.lagged.Load()) }
