package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/source"
)

// Factory hands out one shared Informer per (name, object type), so that
// several controllers watching the same objects share one cache, one list
// and one watch. Its methods are safe for concurrent use.
type Factory struct {
	logger *slog.Logger

	mu        sync.Mutex
	informers map[factoryKey]*factoryEntry // guarded by mu
	order     []*factoryEntry              // guarded by mu; creation order
	cancels   []context.CancelFunc         // guarded by mu; one per Start
	shutdown  bool                         // guarded by mu
	wg        sync.WaitGroup               // Add only under mu while !shutdown
}

// FactoryOptions configure a Factory. The zero value is valid.
type FactoryOptions struct {
	// Logger receives the factory's logs (unexpected errors from an
	// informer's Run). Default: slog.Default().
	Logger *slog.Logger
}

type factoryKey struct {
	name string
	typ  reflect.Type
}

// runnable is an Informer[T] with T erased.
type runnable interface {
	Run(ctx context.Context) error
	HasSynced() bool
	WaitForLatest(ctx context.Context) error
	Resync() int
}

type factoryEntry struct {
	name    string
	inf     runnable
	opts    any  // the Options[T] the informer was created with
	started bool // guarded by Factory.mu
}

// ErrOptionsConflict is wrapped by the error Shared returns when a later
// caller's options conflict with those its informer was created with.
var ErrOptionsConflict = errors.New("options conflict with the shared informer's")

// NewFactory returns an empty Factory. It starts nothing.
func NewFactory(opts FactoryOptions) *Factory {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Factory{logger: opts.Logger, informers: make(map[factoryKey]*factoryEntry)}
}

// Shared returns f's informer for (name, T), creating it with New(lw,
// keyFunc, opts) on first use; later calls return the same informer. A
// new informer runs from the next f.Start. It returns an error if name is
// empty, New fails, f was shut down (ErrStopped), or a later call's opts
// conflict with the first call's (ErrOptionsConflict).
//
// A later call conflicts when the shared informer would not do for it
// what its opts ask, as far as that can be checked:
//
//   - its ResyncPeriod differs (handlers would resync at another period);
//   - its Indexers name an index the informer lacks (ByIndex would fail):
//     neither the first call's nor one added since by AddIndexers;
//     indexes the informer has beyond them are fine;
//   - it sets a Transform and the first call did not, or the reverse
//     (the cache would hold objects in another shape than it expects);
//   - it sets OnBadObject, WatchErrorHandler or MutationCheck, which the
//     informer would never call or run for it.
//
// Functions cannot be compared, so within a factory the name of an
// informer stands for its source (lw) and key function, the name of an
// index for its index function, and two Transforms of one informer are
// taken to be the same: Shared cannot tell them apart and does not try.
// The options that shape only how the one informer lists, watches, logs
// and counts (Name, UseWatchList, PageSize, Backoff, Logger, Metrics,
// ReflectorMetrics) are the first call's; a later call's are ignored.
func Shared[T any](f *Factory, name string, lw source.ListWatcher[T], keyFunc func(T) string, opts Options[T]) (*Informer[T], error) {
	if f == nil {
		return nil, errors.New("informer: Shared: factory is nil")
	}
	if name == "" {
		return nil, errors.New("informer: Shared: name is empty")
	}
	k := factoryKey{name: name, typ: reflect.TypeFor[T]()}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return nil, fmt.Errorf("informer: Shared(%q): factory was shut down: %w", name, ErrStopped)
	}
	if e, ok := f.informers[k]; ok {
		inf := e.inf.(*Informer[T])
		if err := optionsConflict(e.opts.(Options[T]), opts, inf.hasIndex); err != nil {
			return nil, fmt.Errorf("informer: Shared(%q): %w: %w", name, ErrOptionsConflict, err)
		}
		return inf, nil
	}
	if opts.Name == "" {
		opts.Name = name
	}
	inf, err := New(lw, keyFunc, opts)
	if err != nil {
		return nil, fmt.Errorf("informer: Shared(%q): %w", name, err)
	}
	e := &factoryEntry{name: name, inf: inf, opts: opts}
	f.informers[k] = e
	f.order = append(f.order, e)
	return inf, nil
}

// Start runs every informer of f that has not been started yet, each in a
// goroutine of its own, until ctx ends or Shutdown is called. It may be
// called again to start informers created since; after Shutdown it does
// nothing. With a nil ctx it logs an error and starts nothing.
func (f *Factory) Start(ctx context.Context) {
	if ctx == nil {
		f.logger.Error("informer: Factory.Start: " + ErrNilContext.Error() + "; nothing started")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return
	}
	var runCtx context.Context
	for _, e := range f.order {
		if e.started {
			continue
		}
		if runCtx == nil {
			var cancel context.CancelFunc
			runCtx, cancel = context.WithCancel(ctx)
			f.cancels = append(f.cancels, cancel)
		}
		e.started = true
		inf, name := e.inf, e.name
		f.wg.Go(func() {
			if err := inf.Run(runCtx); err != nil && runCtx.Err() == nil {
				f.logger.Error("informer: factory informer stopped", "informer", name, "err", err)
			}
		})
	}
}

// WaitForCacheSync waits until every informer f has started has synced and
// reports true, or reports false once ctx ends, or at once for a nil ctx
// (see the package function WaitForCacheSync).
func (f *Factory) WaitForCacheSync(ctx context.Context) bool {
	f.mu.Lock()
	var synced []func() bool
	for _, e := range f.order {
		if e.started {
			synced = append(synced, e.inf.HasSynced)
		}
	}
	f.mu.Unlock()
	return WaitForCacheSync(ctx, synced...)
}

// WaitForLatest calls WaitForLatest on every started informer, in
// parallel, and returns once each cache holds what its source held when
// WaitForLatest was called, or the errors of those that could not.
func (f *Factory) WaitForLatest(ctx context.Context) error {
	f.mu.Lock()
	var infs []runnable
	for _, e := range f.order {
		if e.started {
			infs = append(infs, e.inf)
		}
	}
	f.mu.Unlock()
	errs := make([]error, len(infs))
	var wg sync.WaitGroup
	for i, inf := range infs {
		wg.Go(func() { errs[i] = inf.WaitForLatest(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Shutdown stops every informer f started and returns once all their
// goroutines have exited. Later calls of Start do nothing and Shared
// returns ErrStopped. Shutdown is idempotent.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shutdown = true
	cancels := f.cancels
	f.cancels = nil
	f.mu.Unlock()
	for _, cancel := range cancels {
		cancel()
	}
	f.wg.Wait()
}

// optionsConflict reports how later conflicts with first, the options a
// shared informer was created with (see Shared), or nil. has reports
// whether the informer has an index (its first Indexers, or one added
// since by AddIndexers).
func optionsConflict[T any](first, later Options[T], has func(name string) bool) error {
	var why []string
	if later.ResyncPeriod != first.ResyncPeriod {
		why = append(why, fmt.Sprintf("ResyncPeriod %v, informer has %v", later.ResyncPeriod, first.ResyncPeriod))
	}
	var missing []string
	for name := range later.Indexers {
		if _, ok := first.Indexers[name]; !ok && !has(name) {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		why = append(why, fmt.Sprintf("Indexers %q missing from the informer", missing))
	}
	if (later.Transform == nil) != (first.Transform == nil) {
		why = append(why, fmt.Sprintf("Transform set %t, informer's set %t", later.Transform != nil, first.Transform != nil))
	}
	if later.OnBadObject != nil {
		why = append(why, "OnBadObject set by a later caller would never be called")
	}
	if later.WatchErrorHandler != nil {
		why = append(why, "WatchErrorHandler set by a later caller would never be called")
	}
	if later.MutationCheck != nil {
		why = append(why, "MutationCheck set by a later caller would never run")
	}
	if len(why) == 0 {
		return nil
	}
	return errors.New(strings.Join(why, "; "))
}
