package reflector

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// watch watches from the last synced version until the stream ends, its
// lifetime runs out (nil: resume without relist) or an error ends it.
func (l *loop[T]) watch(ctx context.Context) error {
	r := l.r
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.m.Watches.Inc()
	started := time.Now()
	ch, err := r.callWatch(wctx, source.WatchOptions{ResourceVersion: l.rv, AllowBookmarks: true})
	if err != nil {
		return fmt.Errorf("reflector: watch from %q: %w", l.rv, err)
	}
	if ch == nil {
		return fmt.Errorf("%w: Watch returned a nil channel and no error", ErrBadSource)
	}
	return l.consume(ctx, ch, started, false)
}

// consume applies the events of an established watch to the store, and
// calls Store.Resync when due, until the stream ends (nil, or
// ErrShortWatch if it ended at once without events and progressed is
// false), the watch's randomized lifetime runs out (nil), ctx ends or an
// event or the store fails. The caller cancels the watch's context.
func (l *loop[T]) consume(ctx context.Context, ch <-chan source.Event[T], started time.Time, progressed bool) error {
	r := l.r
	end := started.Add(watchLifetime(r.opts.MinWatchTimeout, r.opts.MaxWatchTimeout, rand.Float64()))
	for {
		l.timer.arm(earliest(l.resyncAt, end))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.timer.C():
			l.timer.fired()
			now := time.Now()
			if due(l.resyncAt, now) {
				if err := l.resync(now); err != nil {
					return err
				}
			}
			if due(end, now) {
				r.log.Debug("reflector: watch lifetime over, resuming", "resourceVersion", l.rv)
				l.justListed = false
				return nil
			}
		case ev, ok := <-ch:
			if !ok {
				if !progressed && time.Since(started) < shortWatch {
					return fmt.Errorf("%w (from %q)", ErrShortWatch, l.rv)
				}
				l.justListed = false
				return nil
			}
			if err := l.apply(&ev); err != nil {
				return err
			}
			progressed = true
			l.justListed = false
		}
	}
}

// apply validates one watch event and hands it to the store.
func (l *loop[T]) apply(ev *source.Event[T]) error {
	r := l.r
	if err := checkEvent(ev, l.rv, r.cmp); err != nil {
		return err
	}
	var err error
	switch ev.Type {
	case source.Added:
		err = r.store.Add(ev.Object, ev.ResourceVersion)
	case source.Modified:
		err = r.store.Update(ev.Object, ev.ResourceVersion)
	case source.Deleted:
		err = r.store.Delete(ev.Object, ev.ResourceVersion)
	case source.Bookmark:
		if r.bookmarks != nil {
			r.bookmarks.Bookmark(ev.ResourceVersion)
		}
	case source.Error:
		return fmt.Errorf("reflector: watch from %q: %w", l.rv, ev.Err)
	}
	if err != nil {
		return fmt.Errorf("%w: %v at %q: %w", ErrStore, ev.Type, ev.ResourceVersion, err)
	}
	l.setRV(ev.ResourceVersion)
	r.m.Events.Inc()
	return nil
}

// resync calls Store.Resync and schedules the next one.
func (l *loop[T]) resync(now time.Time) error {
	l.resyncAt = now.Add(l.r.opts.ResyncPeriod)
	l.r.m.Resyncs.Inc()
	if err := l.r.store.Resync(); err != nil {
		return fmt.Errorf("%w: Resync: %w", ErrStore, err)
	}
	return nil
}

// watchListSync syncs with one Watch that streams the initial state: it
// buffers the initial Added events until the bookmark that ends them,
// replaces the store's contents with them, and keeps consuming the same
// stream as the watch. A source that refuses, or no end of the initial
// events within WatchListTimeout, ends it with a *fallbackError.
func (l *loop[T]) watchListSync(ctx context.Context) error {
	r := l.r
	l.justListed = true
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.m.Watches.Inc()
	ch, err := r.callWatch(wctx, source.WatchOptions{AllowBookmarks: true, SendInitialEvents: true})
	if err != nil {
		err = fmt.Errorf("reflector: watch-list: %w", err)
		if errors.Is(err, source.ErrUnsupported) {
			return &fallbackError{err}
		}
		return err
	}
	if ch == nil {
		return fmt.Errorf("%w: Watch returned a nil channel and no error", ErrBadSource)
	}
	deadline := time.Now().Add(r.opts.WatchListTimeout)
	var items []T
	for {
		l.timer.arm(deadline)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-l.timer.C():
			l.timer.fired()
			return &fallbackError{fmt.Errorf("reflector: watch-list: no end of initial events within %v (%d events so far)",
				r.opts.WatchListTimeout, len(items))}
		case ev, ok := <-ch:
			if !ok {
				return errors.New("reflector: watch-list: stream closed before the end of initial events")
			}
			switch {
			case ev.Type == source.Added:
				items = append(items, ev.Object)
			case ev.Type == source.Bookmark && ev.InitialEventsEnd:
				if ev.ResourceVersion == "" {
					return fmt.Errorf("%w: end of initial events without resourceVersion", ErrBadSource)
				}
				if err := r.store.Replace(items, ev.ResourceVersion); err != nil {
					return fmt.Errorf("%w: Replace at %q: %w", ErrStore, ev.ResourceVersion, err)
				}
				l.replaced(ev.ResourceVersion)
				r.log.Debug("reflector: watch-listed", "items", len(items), "resourceVersion", ev.ResourceVersion)
				items = nil
				return l.consume(ctx, ch, time.Now(), true)
			case ev.Type == source.Bookmark:
				// Progress inside the initial events: nothing to apply.
			case ev.Type == source.Error && ev.Err != nil:
				err := fmt.Errorf("reflector: watch-list: %w", ev.Err)
				if errors.Is(err, source.ErrUnsupported) {
					return &fallbackError{err}
				}
				return err
			default:
				if err := checkEvent(&ev, "", nil); err != nil {
					return err
				}
				return fmt.Errorf("%w: %v event before the end of initial events", ErrBadSource, ev.Type)
			}
		}
	}
}
