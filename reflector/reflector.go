package reflector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// Errors a Reflector reports (to Options.WatchErrorHandler and in logs)
// besides the source's own errors. Run never returns them: it handles them
// by backing off and relisting.
var (
	// ErrBadSource means the source broke the ListWatcher contract: an
	// Error event without Err, an event of unknown type or without a
	// resourceVersion, an event or list older than the version already
	// synced (when the source implements VersionComparer), a nil watch
	// channel, a list without a resourceVersion, a repeated continue
	// token, or a change event inside the initial events of a
	// watch-list.
	ErrBadSource = errors.New("reflector: source broke the ListWatcher contract")
	// ErrStore means the store returned an error; the reflector relists
	// after a backoff, so a store that recovers is resynchronised.
	ErrStore = errors.New("reflector: store failed")
	// ErrShortWatch means a watch ended by itself almost at once without
	// delivering an event.
	ErrShortWatch = errors.New("reflector: watch closed at once without events")
)

// Reflector keeps a Store in step with a ListWatcher: it lists, replaces
// the store's contents, then watches from the list's resourceVersion and
// applies every event, relisting when it must. See the package doc for
// the full contract.
//
// A Reflector is created by New and driven by Run, once. All store calls
// come from Run's goroutine, one at a time. LastSyncResourceVersion is safe
// to call from any goroutine at any time.
type Reflector[T any] struct {
	lw    source.ListWatcher[T]
	store Store[T]
	// bookmarks is store as a BookmarkStore, or nil.
	bookmarks BookmarkStore
	// cmp is lw as a VersionComparer, or nil.
	cmp  source.VersionComparer
	opts Options
	log  *slog.Logger
	m    Metrics

	started atomic.Bool

	mu     sync.Mutex
	lastRV string // guarded by mu; written only by Run's goroutine
}

// New returns a Reflector that feeds store from lw. It starts nothing;
// call Run. It returns an error if lw or store is nil or opts is invalid.
func New[T any](lw source.ListWatcher[T], store Store[T], opts Options) (*Reflector[T], error) {
	var errs []error
	if isNil(lw) {
		errs = append(errs, errors.New("reflector: ListWatcher is nil"))
	}
	if isNil(store) {
		errs = append(errs, errors.New("reflector: Store is nil"))
	}
	o, err := opts.validate(typeName[T]())
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r := &Reflector[T]{
		lw:    lw,
		store: store,
		opts:  o,
		log:   o.Logger.With("reflector", o.Name),
	}
	if o.Metrics != nil {
		r.m = o.Metrics.ReflectorMetrics(o.Name)
	}
	r.m.fill()
	r.bookmarks, _ = store.(BookmarkStore)
	r.cmp, _ = lw.(source.VersionComparer)
	return r, nil
}

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark applied to the store, or "" before the first sync.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// Run lists and watches until ctx ends, then returns ctx.Err() once every
// goroutine it started has exited (it starts none besides the caller's:
// the whole loop runs on the calling goroutine). Errors from the source or
// the store do not end Run: they are logged, counted, passed to
// Options.WatchErrorHandler and handled by relisting, after a backoff
// unless the error is ErrExpired on an established watch.
//
// Run may be called only once; a second call returns an error at once.
func (r *Reflector[T]) Run(ctx context.Context) error {
	if ctx == nil {
		return errNilContext
	}
	if !r.started.CompareAndSwap(false, true) {
		return errors.New("reflector: Run called more than once")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l := &loop[T]{
		r:         r,
		timer:     newDeadlineTimer(),
		backoff:   backoff{cfg: r.opts.Backoff},
		watchList: r.opts.UseWatchList,
	}
	defer l.timer.stop()
	r.log.Debug("reflector: reflector started")
	for {
		var err error
		if !l.synced && l.replacedOnce {
			totals.relists.Add(1)
		}
		switch {
		case !l.synced && l.watchList:
			err = l.watchListSync(ctx)
		case !l.synced:
			err = l.listSync(ctx)
		default:
			err = l.watch(ctx)
		}
		if ctx.Err() != nil {
			r.log.Debug("reflector: reflector stopped", "resourceVersion", l.rv)
			return ctx.Err()
		}
		if err == nil {
			continue
		}
		rewatch := l.synced && transient(err)
		if !rewatch {
			l.synced = false
		}
		r.report(err, rewatch)
		var fb *fallbackError
		switch {
		case errors.As(err, &fb):
			l.watchList = false
		case errors.Is(err, source.ErrExpired) && !l.justListed:
			// The watch had progressed since the last sync: relist at
			// once. Without progress since the last sync (or from the
			// sync itself), ErrExpired means the source expires versions
			// faster than we can list: back off, never a hot loop.
		default:
			d := l.backoff.next(time.Now(), rand.Float64())
			r.m.Backoffs.Inc()
			r.log.Debug("reflector: backing off", "delay", d)
			if err := l.sleep(ctx, d); err != nil {
				return err
			}
		}
	}
}

// transient reports whether err leaves the last synced version good: the
// source marked it source.ErrTransient, and it is neither a breach of the
// contract nor a store failure (both call for a relist).
func transient(err error) bool {
	return errors.Is(err, source.ErrTransient) && !errors.Is(err, ErrBadSource) && !errors.Is(err, ErrStore)
}

// report logs, counts and hands err to the WatchErrorHandler; rewatch
// says that the reflector watches again from its last version rather
// than relisting.
func (r *Reflector[T]) report(err error, rewatch bool) {
	var fb *fallbackError
	switch {
	case rewatch:
		r.m.TransientErrors.Inc()
		r.log.Info("reflector: watch failed transiently, watching again from the last version", "err", err)
	case errors.As(err, &fb):
		r.m.WatchListFallbacks.Inc()
		r.log.Info("reflector: watch-list unavailable, falling back to list and watch", "err", err)
	case errors.Is(err, source.ErrExpired):
		r.m.Expired.Inc()
		totals.expired.Add(1)
		r.log.Info("reflector: resource version expired, relisting", "err", err)
	case errors.Is(err, ErrBadSource):
		r.m.BadSource.Inc()
		r.log.Error("reflector: source misbehaved, relisting", "err", err)
	case errors.Is(err, ErrStore):
		r.m.StoreErrors.Inc()
		r.log.Error("reflector: store failed, relisting", "err", err)
	case errors.Is(err, source.ErrTransient):
		r.m.TransientErrors.Inc()
		r.log.Info("reflector: list failed transiently, listing again", "err", err)
	case errors.Is(err, ErrShortWatch):
		r.m.ShortWatches.Inc()
		r.log.Warn("reflector: watch ended at once, relisting", "err", err)
	default:
		r.log.Warn("reflector: list or watch failed, relisting", "err", err)
	}
	if h := r.opts.WatchErrorHandler; h != nil {
		h(err)
	}
}

// fallbackError ends a watch-list attempt: the reflector switches to
// List+Watch at once.
type fallbackError struct{ err error }

func (e *fallbackError) Error() string { return e.err.Error() }
func (e *fallbackError) Unwrap() error { return e.err }

// loop is the state of one Run. Only Run's goroutine touches it.
type loop[T any] struct {
	r       *Reflector[T]
	timer   *deadlineTimer
	backoff backoff
	// rv is the last synced resourceVersion (the copy of r.lastRV that
	// Run's goroutine reads without locking).
	rv string
	// synced is true while the store holds a complete list and a watch
	// can resume from rv; false means the next step is a (re)list.
	synced bool
	// justListed is true from the start of a sync until the first event
	// or the first watch that ended cleanly after it: while it is true,
	// the reflector has made no progress since it last tried to list.
	justListed bool
	// watchList is true while watch-list syncs are to be tried.
	watchList bool
	// replacedOnce is true once a sync has completed: every later sync
	// is a relist (Totals.Relists).
	replacedOnce bool
	// resyncAt is when Store.Resync is next due; zero: never.
	resyncAt time.Time
}

// setRV records rv as the last synced resourceVersion.
func (l *loop[T]) setRV(rv string) {
	l.rv = rv
	l.r.mu.Lock()
	l.r.lastRV = rv
	l.r.mu.Unlock()
}

// replaced records a completed sync at rv.
func (l *loop[T]) replaced(rv string) {
	l.setRV(rv)
	l.synced = true
	l.justListed = true
	l.replacedOnce = true
	if p := l.r.opts.ResyncPeriod; p > 0 {
		l.resyncAt = time.Now().Add(p)
	}
	l.r.m.Replaces.Inc()
}

// sleep waits d or until ctx ends.
func (l *loop[T]) sleep(ctx context.Context, d time.Duration) error {
	l.timer.arm(time.Now().Add(d))
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-l.timer.C():
		l.timer.fired()
		return nil
	}
}

// listSync lists at the last synced version (falling back to the latest
// if that is expired) and replaces the store's contents.
func (l *loop[T]) listSync(ctx context.Context) error {
	l.justListed = true
	items, listRV, err := l.list(ctx, l.rv)
	if err != nil && l.rv != "" && ctx.Err() == nil &&
		(errors.Is(err, source.ErrExpired) || errors.Is(err, source.ErrFutureVersion)) {
		l.r.m.Expired.Inc()
		totals.expired.Add(1)
		l.r.log.Info("reflector: cannot list at the last synced version, listing the latest",
			"resourceVersion", l.rv, "err", err)
		items, listRV, err = l.list(ctx, "")
	}
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := l.r.store.Replace(items, listRV); err != nil {
		return fmt.Errorf("%w: Replace at %q: %w", ErrStore, listRV, err)
	}
	l.replaced(listRV)
	l.r.log.Debug("reflector: listed", "items", len(items), "resourceVersion", listRV)
	return nil
}

// list reads a complete list at least as new as rv, following continue
// tokens (later pages are asked with the token, the same Limit and
// ResourceVersion ""); an expired continue token restarts it as one
// unpaginated List at rv.
// Pages are concatenated once at the end, into one new slice (the
// source's slices are never written to).
func (l *loop[T]) list(ctx context.Context, rv string) ([]T, string, error) {
	r := l.r
	opts := source.ListOptions{ResourceVersion: rv, Limit: r.opts.PageSize}
	var pages [][]T
	listRV, full := "", false
	for {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		r.m.Lists.Inc()
		got, err := r.callList(ctx, opts)
		if err != nil {
			if opts.Continue != "" && !full && errors.Is(err, source.ErrExpired) {
				r.m.Expired.Inc()
				totals.expired.Add(1)
				r.log.Info("reflector: continue token expired, listing in one call", "err", err)
				opts = source.ListOptions{ResourceVersion: rv}
				pages, full = nil, true
				continue
			}
			return nil, "", fmt.Errorf("reflector: list at %q: %w", rv, err)
		}
		if pages == nil {
			if got.ResourceVersion == "" {
				return nil, "", fmt.Errorf("%w: list without resourceVersion", ErrBadSource)
			}
			if err := checkOrder(r.cmp, got.ResourceVersion, rv, "list"); err != nil {
				return nil, "", err
			}
			if got.Continue == "" {
				// One page: hand the source's slice on without a copy.
				return got.Items, got.ResourceVersion, nil
			}
			listRV = got.ResourceVersion
		}
		if len(pages) > 0 && got.ResourceVersion != listRV {
			return nil, "", fmt.Errorf("%w: page %d of a list is at resourceVersion %q, the first page at %q",
				ErrBadSource, len(pages)+1, got.ResourceVersion, listRV)
		}
		pages = append(pages, got.Items)
		if got.Continue == "" {
			return slices.Concat(pages...), listRV, nil
		}
		if got.Continue == opts.Continue {
			return nil, "", fmt.Errorf("%w: list repeated continue token %q", ErrBadSource, got.Continue)
		}
		// Later pages carry the token and no version, as client-go's
		// pager asks (Kubernetes refuses both together).
		opts = source.ListOptions{Limit: opts.Limit, Continue: got.Continue}
	}
}

// errNilContext is returned by Run when its context is nil.
var errNilContext = errors.New("reflector: context is nil")

// isNil reports whether v is nil or an interface holding a nil pointer,
// map, channel, func or slice (a typed nil, which would panic on use).
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Chan, reflect.Func, reflect.Slice, reflect.Interface:
		return rv.IsNil()
	}
	return false
}

// callList calls the source's List, turning a panic into an error that
// wraps ErrBadSource.
func (r *Reflector[T]) callList(ctx context.Context, opts source.ListOptions) (l source.List[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: List panicked: %v", ErrBadSource, p)
		}
	}()
	return r.lw.List(ctx, opts)
}

// callWatch calls the source's Watch, turning a panic into an error that
// wraps ErrBadSource.
func (r *Reflector[T]) callWatch(ctx context.Context, opts source.WatchOptions) (ch <-chan source.Event[T], err error) {
	defer func() {
		if p := recover(); p != nil {
			ch, err = nil, fmt.Errorf("%w: Watch panicked: %v", ErrBadSource, p)
		}
	}()
	return r.lw.Watch(ctx, opts)
}
