package fake

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// maxBatch bounds how many history records a watcher copies per lock.
const maxBatch = 128

// Watch implements source.ListWatcher. It streams the writes strictly
// after opts.ResourceVersion, in revision order, each exactly once ("" is
// the current revision); then the live writes.
//
// Errors are returned, not sent: a malformed version; a version older
// than the history (source.ErrExpired); a version newer than the last
// write (source.ErrFutureVersion); an injected failure. Once the
// channel is returned, the stream ends with an Error event wrapping
// source.ErrExpired if the reader leaves Options.WatchBuffer events
// unread for longer than the dispatch budget (see the package
// documentation) or history it still needs is compacted, or as
// CutWatches says; otherwise it ends when ctx ends. The channel is always closed at
// the end, by a goroutine that exits when it is closed: cancel ctx to
// release a watch you stop reading.
//
// With opts.SendInitialEvents the stream first carries every current
// object as an Added event with the current revision, then a Bookmark with
// InitialEventsEnd at that revision, then the writes after it; a given
// opts.ResourceVersion is then only checked as for List. With
// opts.AllowBookmarks and Options.BookmarkInterval > 0, an idle stream
// receives a Bookmark with the revision it has caught up to every
// interval. Deleted events carry the object's last state.
func (s *Source[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	s.watchCalls.Add(1)
	if err := ctxErr(ctx); err != nil {
		return nil, err
	}
	if err := s.injected(ctx, &s.faults.watches); err != nil {
		return nil, err
	}
	from := int64(-1)
	if opts.ResourceVersion != "" {
		var err error
		if from, err = source.ParseRevision(opts.ResourceVersion); err != nil {
			return nil, fmt.Errorf("fake: watch: %w", err)
		}
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if from < 0 {
		from = s.rev
	} else if err := s.checkRevLocked("watch", from); err != nil {
		return nil, err
	}
	w := &watcher[T]{
		src:    s,
		ch:     make(chan source.Event[T]),
		notify: make(chan struct{}, 1),
		room:   make(chan struct{}, 1),
		stop:   make(chan struct{}),
		done:   make(chan struct{}),
		live:   s.rev,
	}
	var initial []T
	if opts.SendInitialEvents {
		initial = make([]T, 0, s.items.Len())
		s.items.Ascend(func(it item[T]) bool {
			initial = append(initial, it.obj)
			return true
		})
		from = s.rev
	}
	var bookmarks time.Duration
	if opts.AllowBookmarks {
		bookmarks = s.opts.BookmarkInterval
	}
	s.watchers[w] = struct{}{}
	go w.run(ctx, from, initial, opts.SendInitialEvents, bookmarks)
	return w.ch, nil
}

// watcher is one open watch. Writers hand it the live events it owes
// through its queue, at most Options.WatchBuffer not yet received, and
// poke notify; its own goroutine replays the shared history up to the
// revision at which the watch opened, then drains the queue.
type watcher[T any] struct {
	src *Source[T]
	ch  chan source.Event[T]
	// notify has a token when there may be new records to send.
	notify chan struct{}
	// room has a token when the reader took an event off a full buffer.
	room chan struct{}
	// stop is closed (under src.mu, after stopErr is set) to end the watch.
	stop chan struct{}
	// done is closed when the goroutine has exited.
	done chan struct{}
	// live is the revision at which the watch opened: older events come
	// from the history, newer ones through queue.
	live int64

	// stopErr is the error the stopped watch ends with. Guarded by src.mu.
	stopErr error
	// behind is set when the watcher fell behind (Options.CatchUp): the
	// writes get no more queued for it, and it replays them from the
	// history until it has caught up. Written holding src.mu.
	behind atomic.Bool

	mu sync.Mutex
	// queue holds the live events not yet taken by the goroutine.
	// Guarded by mu.
	queue []record[T]
	// gone is set when the watch has ended: events are dropped. Guarded
	// by mu.
	gone bool
	// pending counts live events queued or taken but not yet received;
	// only the writer holding src.dispatchMu adds to it.
	pending atomic.Int64
}

// dispatch hands the write commitLocked left (if any) to the watchers
// that were open then, as kube-apiserver's cacher dispatches an event
// (cacher.go, dispatchEvent; cache_watcher.go, add): first to every
// watcher with room in its buffer, then, waiting for the others at most
// the budget available, to each blocked watcher as its reader takes an
// event; a watcher still full when the budget has run out is ended with
// an error wrapping source.ErrExpired. Called holding dispatchMu, not mu.
func (s *Source[T]) dispatch() {
	if !s.outOK {
		return
	}
	rec := &s.out
	limit := int64(s.opts.WatchBuffer)
	s.blocked = s.blocked[:0]
	for _, w := range s.outTo {
		if !w.tryAdd(rec, limit) {
			s.blocked = append(s.blocked, w)
		}
	}
	if len(s.blocked) > 0 {
		s.waitBlocked(rec, limit)
	}
	clear(s.outTo)
	s.outTo = s.outTo[:0]
	clear(s.blocked)
	s.blocked = s.blocked[:0]
	s.out, s.outOK = record[T]{}, false
	s.undispatched.Store(0)
}

// waitBlocked delivers rec to the blocked watchers, waiting for their
// readers at most the budget available, and ends those it could not.
func (s *Source[T]) waitBlocked(rec *record[T], limit int64) {
	start := time.Now()
	timeout := s.budget.take(start)
	if s.timer == nil {
		s.timer = time.NewTimer(timeout)
	} else {
		s.timer.Reset(timeout)
	}
	fired := false
	for _, w := range s.blocked {
		if !fired && s.await(w, rec, limit) {
			continue
		}
		fired = true
		if w.tryAdd(rec, limit) {
			continue
		}
		s.mu.Lock()
		if _, open := s.watchers[w]; open && s.opts.CatchUp {
			// rec is in the history: the watcher replays it and what
			// follows once its reader has taken what is queued.
			w.behind.Store(true)
			s.lagged.Add(1)
		} else {
			if open {
				s.opts.Logger.Info("fake: ending a watcher that fell behind", "buffer", limit, "revision", rec.rev)
				s.terminated.Add(1)
			}
			s.stopLocked(w, fmt.Errorf("fake: watcher fell %d events behind and did not read within the dispatch budget: %w", limit, source.ErrExpired))
		}
		s.mu.Unlock()
	}
	if !fired {
		s.timer.Stop()
	}
	s.budget.giveBack(timeout - time.Since(start))
}

// await waits until rec is queued for w or w has ended, and reports
// false if s.timer fired first.
func (s *Source[T]) await(w *watcher[T], rec *record[T], limit int64) bool {
	for !w.tryAdd(rec, limit) {
		select {
		case <-w.room:
		case <-w.done:
			return true
		case <-w.stop:
			return true
		case <-s.timer.C:
			return false
		}
	}
	return true
}

// tryAdd queues rec for w if its buffer has room (or drops it if w has
// ended), and reports whether it did.
func (w *watcher[T]) tryAdd(rec *record[T], limit int64) bool {
	if w.pending.Load() >= limit {
		w.mu.Lock()
		gone := w.gone
		w.mu.Unlock()
		return gone
	}
	w.mu.Lock()
	if w.gone {
		w.mu.Unlock()
		return true
	}
	w.pending.Add(1)
	w.queue = append(w.queue, *rec)
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
	return true
}

// stopLocked ends w: it will send an Error event with err (unless nil)
// and close its channel.
func (s *Source[T]) stopLocked(w *watcher[T], err error) {
	if _, ok := s.watchers[w]; !ok {
		return
	}
	delete(s.watchers, w)
	w.stopErr = err
	w.mu.Lock()
	w.gone = true
	w.queue = nil
	w.mu.Unlock()
	close(w.stop)
}

// fetch returns, in buf, the next records w must send: while replaying
// (cursor < w.live) up to maxBatch visible records of the history after
// cursor, then the queued live records, and when the watcher is behind
// (Options.CatchUp) and has none queued, up to maxBatch records of the
// history again, rejoining the live stream when they reach the last
// write. It returns the new cursor — the revision up to which every
// visible write has been returned — and whether buf came from the queue.
func (w *watcher[T]) fetch(cursor int64, buf []record[T]) (_ []record[T], _ int64, queued bool, _ error) {
	s := w.src
	s.mu.Lock()
	defer s.mu.Unlock()
	if cursor < w.live {
		buf, cursor, err := w.replayLocked(cursor, w.live, buf)
		return buf, cursor, false, err
	}
	// Read before the queue: a write committed but not yet dispatched
	// is not in the queue, nor is it before the cursor.
	undispatched := s.undispatched.Load()
	w.mu.Lock()
	buf, w.queue = w.queue, buf
	w.mu.Unlock()
	if len(buf) > 0 {
		return buf, buf[len(buf)-1].rev, true, nil
	}
	if w.behind.Load() {
		buf, cursor, err := w.replayLocked(cursor, s.rev, buf)
		if err == nil && cursor == s.rev {
			w.behind.Store(false)
		}
		return buf, cursor, false, err
	}
	if undispatched != 0 {
		return buf, max(cursor, undispatched-1), false, nil
	}
	return buf, s.rev, false, nil
}

// replayLocked appends to buf up to maxBatch visible records of the
// history after cursor and up to to, and returns the new cursor; an
// error wrapping source.ErrExpired if the history no longer holds them.
// Called holding src.mu.
func (w *watcher[T]) replayLocked(cursor, to int64, buf []record[T]) ([]record[T], int64, error) {
	s := w.src
	if cursor < s.compacted {
		return buf, cursor, fmt.Errorf("fake: watch: the events after revision %d were compacted (history starts after %d): %w", cursor, s.compacted, source.ErrExpired)
	}
	for cursor < to && len(buf) < maxBatch {
		cursor++
		if rec := s.hist.at(int(cursor - s.compacted - 1)); !rec.hidden {
			buf = append(buf, *rec)
		}
	}
	return buf, cursor, nil
}

// run is the watcher's goroutine: initial events, then history and live
// events from cursor on, until ctx ends or the watch is stopped.
func (w *watcher[T]) run(ctx context.Context, cursor int64, initial []T, sendInitial bool, bookmarks time.Duration) {
	defer w.finish()
	if sendInitial {
		rv := source.FormatRevision(cursor)
		for i, obj := range initial {
			if !w.send(ctx, source.Event[T]{Type: source.Added, Object: obj, ResourceVersion: rv}) {
				return
			}
			var zero T
			initial[i] = zero
		}
		if !w.send(ctx, source.Event[T]{Type: source.Bookmark, ResourceVersion: rv, InitialEventsEnd: true}) {
			return
		}
	}
	var timer *time.Timer
	if bookmarks > 0 {
		timer = time.NewTimer(bookmarks)
		defer timer.Stop()
	}
	w.loop(ctx, cursor, timer, bookmarks)
}

// loop sends records after cursor as they are written. With a timer it
// sends a Bookmark whenever the timer fires while the stream is idle.
func (w *watcher[T]) loop(ctx context.Context, cursor int64, timer *time.Timer, interval time.Duration) {
	var tick <-chan time.Time
	if timer != nil {
		tick = timer.C
	}
	var (
		buf    []record[T]
		err    error
		queued bool
		due    bool // a bookmark is due once the stream is idle
		limit  = int64(w.src.opts.WatchBuffer)
	)
	for {
		if buf, cursor, queued, err = w.fetch(cursor, buf[:0]); err != nil {
			w.send(ctx, source.Event[T]{Type: source.Error, Err: err})
			return
		}
		for i := range buf {
			if !w.send(ctx, buf[i].event()) {
				return
			}
			if queued && w.pending.Add(-1) == limit-1 {
				select {
				case w.room <- struct{}{}:
				default:
				}
			}
		}
		if len(buf) > 0 || cursor < w.live || w.behind.Load() {
			clear(buf)
			continue
		}
		if due {
			// cursor is fresh: every visible write up to it was sent.
			if !w.send(ctx, source.Event[T]{Type: source.Bookmark, ResourceVersion: source.FormatRevision(cursor)}) {
				return
			}
			due = false
			timer.Reset(interval)
		}
		select {
		case <-ctx.Done():
			return
		case <-w.stop:
			w.stopped(ctx)
			return
		case <-w.notify:
		case <-tick:
			due = true
		}
	}
}

// send delivers ev unless ctx ends or the watch is stopped first; it
// reports whether the watch goes on.
func (w *watcher[T]) send(ctx context.Context, ev source.Event[T]) bool {
	select {
	case <-w.stop:
		w.stopped(ctx)
		return false
	default:
	}
	select {
	case w.ch <- ev:
		return true
	case <-ctx.Done():
		return false
	case <-w.stop:
		w.stopped(ctx)
		return false
	}
}

// stopped delivers the Error event of a stopped watch, if it has one.
func (w *watcher[T]) stopped(ctx context.Context) {
	w.src.mu.Lock()
	err := w.stopErr
	w.src.mu.Unlock()
	if err == nil {
		return
	}
	select {
	case w.ch <- source.Event[T]{Type: source.Error, Err: err}:
	case <-ctx.Done():
	}
}

// finish unregisters the watcher and closes its channel.
func (w *watcher[T]) finish() {
	w.src.mu.Lock()
	delete(w.src.watchers, w)
	w.src.mu.Unlock()
	w.mu.Lock()
	w.gone = true
	w.queue = nil
	w.mu.Unlock()
	close(w.done)
	close(w.ch)
}
