package fake

import (
	"context"
	"fmt"
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
// source.ErrExpired if the reader falls more than Options.WatchBuffer
// events behind or history it still needs is compacted, or as CutWatches
// says; otherwise it ends when ctx ends. The channel is always closed at
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
		stop:   make(chan struct{}),
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

// watcher is one open watch. Writers never block on it: they append the
// events it owes to its queue, bounded by Options.WatchBuffer, and poke
// notify; its own goroutine replays the shared history up to the revision
// at which the watch opened, then drains the queue.
type watcher[T any] struct {
	src *Source[T]
	ch  chan source.Event[T]
	// notify has a token when there may be new records to send.
	notify chan struct{}
	// stop is closed (under src.mu, after stopErr is set) to end the watch.
	stop chan struct{}
	// live is the revision at which the watch opened: older events come
	// from the history, newer ones through queue.
	live int64

	// stopErr is the error the stopped watch ends with. Guarded by src.mu.
	stopErr error
	// queue holds the live events not yet taken by the goroutine.
	// Guarded by src.mu.
	queue []record[T]
	// pending counts live events queued or taken but not yet received.
	pending atomic.Int64
}

// notifyLocked hands a visible write to every watcher, and evicts those
// whose reader is too far behind.
func (s *Source[T]) notifyLocked(rec *record[T]) {
	limit := int64(s.opts.WatchBuffer)
	for w := range s.watchers {
		if w.pending.Add(1) > limit {
			s.opts.Logger.Info("fake: evicting a watcher that fell behind", "buffer", limit, "revision", s.rev)
			s.stopLocked(w, fmt.Errorf("fake: watcher fell more than %d events behind: %w", limit, source.ErrExpired))
			continue
		}
		w.queue = append(w.queue, *rec)
		select {
		case w.notify <- struct{}{}:
		default:
		}
	}
}

// stopLocked ends w: it will send an Error event with err (unless nil)
// and close its channel.
func (s *Source[T]) stopLocked(w *watcher[T], err error) {
	if _, ok := s.watchers[w]; !ok {
		return
	}
	delete(s.watchers, w)
	w.stopErr = err
	w.queue = nil
	close(w.stop)
}

// fetch returns, in buf, the next records w must send: while replaying
// (cursor < w.live) up to maxBatch visible records of the history after
// cursor, then the queued live records. It returns the new cursor: the
// revision up to which every visible write has been returned.
func (w *watcher[T]) fetch(cursor int64, buf []record[T]) ([]record[T], int64, error) {
	s := w.src
	s.mu.Lock()
	defer s.mu.Unlock()
	if cursor < w.live {
		if cursor < s.compacted {
			return buf, cursor, fmt.Errorf("fake: watch: the events after revision %d were compacted (history starts after %d): %w", cursor, s.compacted, source.ErrExpired)
		}
		for cursor < w.live && len(buf) < maxBatch {
			cursor++
			if rec := s.hist.at(int(cursor - s.compacted - 1)); !rec.hidden {
				buf = append(buf, *rec)
			}
		}
		return buf, cursor, nil
	}
	buf, w.queue = w.queue, buf
	if len(buf) > 0 {
		return buf, buf[len(buf)-1].rev, nil
	}
	return buf, s.rev, nil
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
		buf []record[T]
		err error
		due bool // a bookmark is due once the stream is idle
	)
	for {
		if buf, cursor, err = w.fetch(cursor, buf[:0]); err != nil {
			w.send(ctx, source.Event[T]{Type: source.Error, Err: err})
			return
		}
		for i := range buf {
			if !w.send(ctx, buf[i].event()) {
				return
			}
			if buf[i].rev > w.live {
				w.pending.Add(-1)
			}
		}
		if len(buf) > 0 || cursor < w.live {
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
	close(w.ch)
}
