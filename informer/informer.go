package informer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"strconv"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/deltafifo"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// Errors callers branch on.
var (
	// ErrStopped is returned by AddEventHandler and WaitForResourceVersion
	// once the informer's Run has returned, and by Shared after the
	// factory was shut down.
	ErrStopped = errors.New("informer: stopped")
	// ErrAlreadyStarted is returned by a second call of Run.
	ErrAlreadyStarted = errors.New("informer: Run was already called")
	// ErrNilContext is wrapped by the error of every call of this
	// package that returns an error and was given a nil context (Run,
	// WaitForResourceVersion). Calls that report a bool instead
	// (WaitForCacheSync, Factory.WaitForCacheSync) report false, and
	// Factory.Start logs the mistake and starts nothing; none panics.
	ErrNilContext = errors.New("informer: context is nil")
)

type runState uint8

const (
	stateNew runState = iota
	stateRunning
	stateStopped
)

// Informer keeps a cache of the objects of one ListWatcher and tells any
// number of handlers about its changes: one reflector feeds one DeltaFIFO,
// whose deltas the informer applies to an indexer.Indexer and then hands
// to the handlers, each through its own coalescing buffer and goroutine.
// See the package documentation for the contract.
//
// An Informer is created by New and driven by Run, once. All other methods
// are safe for concurrent use, from any goroutine, before, during and
// after Run.
type Informer[T any] struct {
	name    string
	keyFunc func(T) string
	logger  *slog.Logger
	metrics Metrics
	// provider is Options.Metrics (nil for none): asked for each
	// registration's HandlerMetrics.
	provider MetricsProvider
	resync   time.Duration // Options.ResyncPeriod
	// cmp is the source as a VersionComparer, or nil.
	cmp source.VersionComparer
	// lw is the source, for WaitForLatest's consistent read.
	lw source.ListWatcher[T]
	// versioned: T's values may implement source.Versioned.
	versioned bool
	// onBad is Options.OnBadObject, or nil.
	onBad func(error)

	idx       *indexer.Indexer[T]
	fifo      *deltafifo.DeltaFIFO[T]
	refl      *reflector.Reflector[T]
	mutations *mutationDetector[T] // nil unless Options.MutationCheck

	// mu orders cache writes with notifications: applying a delta to the
	// indexer and queueing its notifications happen under mu, as does
	// giving a new handler its initial batch and resyncing, so every
	// handler's notifications describe exactly the cache's history.
	mu        sync.Mutex
	state     runState        // guarded by mu
	listeners []*listener[T]  // guarded by mu
	runCtx    context.Context // guarded by mu; set by Run
	added     int             // guarded by mu; registrations so far
	// rejected holds the cache rejections of the process call under way,
	// reported to onBad once mu is released; guarded by mu.
	rejected []error
	// wg counts the goroutines Run owns, listeners added later included;
	// Add is called only under mu while state is stateRunning, or by a
	// goroutine wg already counts (a listener going on after a Goexit in
	// its handler, see listener.run), so it never races with Wait at zero.
	wg sync.WaitGroup

	resyncKick chan struct{} // capacity 1: the resync deadlines changed
	stopped    chan struct{} // closed when Run has returned
}

// New returns an Informer that caches what lw lists and watches, filing
// objects under keyFunc(obj), which must return a non-empty key. It starts
// nothing; call Run. It returns an error if lw or keyFunc is nil or opts
// is invalid.
func New[T any](lw source.ListWatcher[T], keyFunc func(T) string, opts Options[T]) (*Informer[T], error) {
	var errs []error
	if lw == nil {
		errs = append(errs, errors.New("informer: ListWatcher is nil"))
	}
	if keyFunc == nil {
		errs = append(errs, errors.New("informer: key func is nil"))
	}
	o, err := opts.validate()
	if err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	logger := o.Logger.With("informer", o.Name)
	idx, err := indexer.New(keyFunc, o.Indexers)
	if err != nil {
		return nil, fmt.Errorf("informer: %w", err)
	}
	inf := &Informer[T]{}
	fifo, err := deltafifo.New(keyFunc, deltafifo.Options[T]{
		KnownObjects: idx,
		Transform:    o.Transform,
		OnBadObject:  inf.quarantined,
		Logger:       logger,
	})
	if err != nil {
		return nil, fmt.Errorf("informer: %w", err)
	}
	refl, err := reflector.New(lw, fifo, reflector.Options{
		Name:              o.Name,
		Logger:            logger,
		Metrics:           o.ReflectorMetrics,
		WatchErrorHandler: o.WatchErrorHandler,
		PageSize:          o.PageSize,
		UseWatchList:      o.UseWatchList,
		Backoff:           o.Backoff,
	})
	if err != nil {
		return nil, fmt.Errorf("informer: %w", err)
	}
	typ := reflect.TypeFor[T]()
	*inf = Informer[T]{
		name:       o.Name,
		keyFunc:    keyFunc,
		logger:     logger,
		provider:   o.Metrics,
		resync:     o.ResyncPeriod,
		versioned:  typ.Kind() == reflect.Interface || typ.Implements(reflect.TypeFor[source.Versioned]()),
		onBad:      o.OnBadObject,
		idx:        idx,
		fifo:       fifo,
		refl:       refl,
		lw:         lw,
		resyncKick: make(chan struct{}, 1),
		stopped:    make(chan struct{}),
	}
	if o.Metrics != nil {
		inf.metrics = o.Metrics.InformerMetrics(o.Name)
	}
	inf.metrics.fill()
	inf.cmp, _ = lw.(source.VersionComparer)
	if o.MutationCheck != nil {
		inf.mutations = newMutationDetector(o.MutationCheck, logger, inf.metrics.Mutations, inf.metrics.CallbackPanics)
	}
	return inf, nil
}

// Run lists and watches until ctx ends, keeping the cache and notifying
// the handlers, then returns ctx.Err() once every goroutine it started
// (reflector, handler goroutines, resync and mutation checks) has exited.
// Handlers stop at once when ctx ends: notifications still pending are
// dropped. Run may be called only once; a second call returns
// ErrAlreadyStarted, and a nil ctx an error wrapping ErrNilContext.
func (inf *Informer[T]) Run(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("informer: Run: %w", ErrNilContext)
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	inf.mu.Lock()
	if inf.state != stateNew {
		inf.mu.Unlock()
		return ErrAlreadyStarted
	}
	inf.state = stateRunning
	inf.runCtx = ctx
	now := time.Now()
	for _, l := range inf.listeners {
		inf.startLocked(l, now)
	}
	inf.mu.Unlock()

	if r := resyncsFrom(ctx); r != nil {
		defer r.register(inf.Resync)()
	}
	inf.wg.Go(func() { _ = inf.refl.Run(ctx) })
	inf.wg.Go(func() { inf.resyncLoop(ctx) })
	if inf.mutations != nil {
		inf.wg.Go(func() { inf.mutations.run(ctx) })
	}
	for {
		err := inf.fifo.PopKey(ctx, inf.processKey)
		if ctx.Err() != nil || errors.Is(err, deltafifo.ErrClosed) {
			break
		}
		if err != nil {
			inf.logger.Error("informer: pop failed", "err", err)
		}
	}
	cancel()

	inf.mu.Lock()
	inf.state = stateStopped
	for _, l := range inf.listeners {
		l.halt()
	}
	inf.mu.Unlock()
	inf.fifo.Close()
	inf.wg.Wait()
	close(inf.stopped)
	return parent.Err()
}

// startLocked starts l's goroutine and schedules its first resync.
func (inf *Informer[T]) startLocked(l *listener[T], now time.Time) {
	if l.resync > 0 {
		l.nextResync = now.Add(l.resync)
	}
	if l.markStarted() {
		ctx := inf.runCtx
		inf.wg.Go(func() { l.run(ctx, inf.wg.Go) })
	}
}

// HasSynced reports whether the informer's first list has been applied
// to the cache and handed to every handler's buffer (handlers may still
// be working through it; see Registration.HasSynced).
func (inf *Informer[T]) HasSynced() bool { return inf.fifo.HasSynced() }

// LastSyncResourceVersion returns the resourceVersion of the reflector's
// last list or watch event; "" before the first list.
func (inf *Informer[T]) LastSyncResourceVersion() string {
	return inf.refl.LastSyncResourceVersion()
}

// CachedResourceVersion returns the resourceVersion of the object cached
// under key ("" when T does not implement source.Versioned) and whether
// an object is cached there. With it an Informer is a
// reconcile.KeyedCache, for a read-your-writes gate per key.
func (inf *Informer[T]) CachedResourceVersion(key string) (rv string, cached bool) {
	obj, ok := inf.idx.Get(key)
	if !ok {
		return "", false
	}
	return source.ResourceVersionOf(obj), true
}

// CompareResourceVersions compares two resourceVersions as the informer's
// source orders them, so that an Informer is the whole of what a
// read-your-writes gate needs (reconcile.Writer). It fails when the
// source does not implement source.VersionComparer.
func (inf *Informer[T]) CompareResourceVersions(a, b string) (int, error) {
	if inf.cmp == nil {
		return 0, errors.New("informer: the source does not order resourceVersions")
	}
	return inf.cmp.CompareResourceVersions(a, b)
}

// Lister returns a read-only view of the cache.
func (inf *Informer[T]) Lister() Lister[T] { return Lister[T]{idx: inf.idx} }

// AddIndexers adds indexes to the cache and indexes the objects it
// already holds, before or after Run, as client-go's
// SharedIndexInformer.AddIndexers does: kube-controller-manager's
// ReplicaSet controller adds its pods-by-controller index to the shared
// pod informer this way. A name the cache already indexes yields an
// error wrapping indexer.ErrIndexExists, a nil index func or one that
// fails on a cached object an error too; on error no index is added.
// Within a Factory the name of an index stands for its func (see
// Shared), so a caller that finds the name taken may use the index.
func (inf *Informer[T]) AddIndexers(indexers indexer.Indexers[T]) error {
	return inf.idx.AddIndexers(indexers)
}

// hasIndex reports whether the cache has an index called name.
func (inf *Informer[T]) hasIndex(name string) bool {
	_, err := inf.idx.IndexKeys(name, "")
	return !errors.Is(err, indexer.ErrUnknownIndex)
}

// AddEventHandler registers h with its own goroutine and coalescing buffer
// (see the package documentation). Registered before Run, h receives the
// informer's first list as OnAdd(obj, true); registered later, it first
// receives OnAdd(obj, true) for every object then in the cache, then the
// live notifications. It returns ErrStopped once Run has returned, and an
// error if h is nil.
func (inf *Informer[T]) AddEventHandler(h Handler[T], opts HandlerOptions) (*Registration, error) {
	if h == nil {
		return nil, errors.New("informer: AddEventHandler: handler is nil")
	}
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.state == stateStopped {
		return nil, ErrStopped
	}
	inf.added++
	name := opts.Name
	if name == "" {
		name = "handler-" + strconv.Itoa(inf.added)
	}
	var hm HandlerMetrics
	if inf.provider != nil {
		hm = inf.provider.HandlerMetrics(inf.name, name)
	}
	hm.Panics = metrics.Or(hm.Panics)
	l := newListener(inf, name, h, inf.logger, hm, inf.HasSynced)
	l.resync = effectiveResync(opts.ResyncPeriod, inf.resync)
	inf.listeners = append(inf.listeners, l)
	if inf.state == stateRunning {
		for key, obj := range inf.idx.All() {
			l.push(key, notification[T]{kind: kindAdd, flag: true, obj: obj})
		}
		inf.startLocked(l, time.Now())
	}
	if l.resync > 0 {
		inf.kickResync()
	}
	return &Registration{owner: inf, l: l}, nil
}

// effectiveResync turns a handler's requested period into the one used:
// 0 inherits the informer's period, negative disables, and when the
// informer has a period the result is rounded up to a multiple of it.
func effectiveResync(requested, check time.Duration) time.Duration {
	switch {
	case requested < 0:
		return 0
	case requested == 0:
		return check
	case check > 0:
		return (requested + check - 1) / check * check
	}
	return requested
}

// RemoveEventHandler unregisters reg and returns once its handler will
// never be called again: a call in progress is waited for, pending
// notifications are dropped. Removing a registration twice is not an
// error. Called from inside reg's own handler it would wait for itself,
// so it does nothing and returns an error instead; a handler that wants
// to stop itself can call it from a new goroutine (which then waits for
// the handler call to return). It returns an error if reg is nil or
// belongs to another informer.
func (inf *Informer[T]) RemoveEventHandler(reg *Registration) error {
	if reg == nil || reg.l == nil {
		return errors.New("informer: RemoveEventHandler: registration is nil")
	}
	l, ok := reg.l.(*listener[T])
	if !ok || reg.owner != any(inf) {
		return errors.New("informer: RemoveEventHandler: registration belongs to another informer")
	}
	if id := l.caller.Load(); id != 0 && id == goid() {
		return fmt.Errorf("informer: RemoveEventHandler: called from inside the handler of %q, which it would wait for; call it from another goroutine", l.name)
	}
	inf.mu.Lock()
	for i, x := range inf.listeners {
		if x == l {
			inf.listeners = append(inf.listeners[:i], inf.listeners[i+1:]...)
			break
		}
	}
	l.halt()
	inf.mu.Unlock()
	<-l.done
	return nil
}

// WaitForResourceVersion returns nil once every change the source made up
// to and including resourceVersion rv has been applied to the cache (and
// queued for the handlers), so a caller that wrote an object at rv can
// then read its write, or a newer state, from the Lister. It uses the
// source's source.VersionComparer; without one it returns an error
// wrapping source.ErrUnsupported. It also returns the comparer's error
// for a malformed rv, ctx.Err() when ctx ends, ErrStopped once Run has
// returned, and an error wrapping ErrNilContext for a nil ctx.
func (inf *Informer[T]) WaitForResourceVersion(ctx context.Context, rv string) error {
	if ctx == nil {
		return fmt.Errorf("informer: WaitForResourceVersion: %w", ErrNilContext)
	}
	if inf.cmp == nil {
		return fmt.Errorf("informer: WaitForResourceVersion: the source does not implement source.VersionComparer: %w",
			source.ErrUnsupported)
	}
	if _, err := inf.cmp.CompareResourceVersions(rv, rv); err != nil {
		return fmt.Errorf("informer: WaitForResourceVersion: %w", err)
	}
	return inf.waitUntil(ctx, func() (bool, error) { return inf.processed("WaitForResourceVersion", rv) })
}

// waitUntil returns once done returns true or an error, evaluating it
// again each time the cache processes a change; ctx.Err() when ctx ends,
// ErrStopped once Run has returned.
func (inf *Informer[T]) waitUntil(ctx context.Context, done func() (bool, error)) error {
	for {
		_, changed := inf.fifo.ProcessedResourceVersion()
		if ok, err := done(); ok || err != nil {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		case <-inf.stopped:
			return ErrStopped
		}
	}
}

// WaitForLatest returns nil once the cache holds every change the source
// had made when WaitForLatest was called. A controller that takes over
// from another (a new leader) calls it so that it never acts on a cache
// that misses its predecessor's last writes.
//
// It first reads the source's newest resourceVersion (a List with Limit
// 1, which sources serve from their latest state); if the cache has
// processed it, the cache is current. Otherwise it lists the source in
// full and waits until the cache covers that list: every listed object
// cached at its listed resourceVersion or a newer one, and every cached
// object that the list lacks newer than the list. The second test is
// what a real Kubernetes API server needs: its resourceVersions are etcd
// revisions shared by every kind, so the newest one is usually a write to
// another kind that this informer will never see, and its watch sends a
// bookmark only about once a minute. Without a source.VersionComparer,
// or with objects that do not implement source.Versioned, only the first
// test applies. It returns the Lists' errors, the comparer's, ctx.Err()
// when ctx ends and ErrStopped once Run has returned.
func (inf *Informer[T]) WaitForLatest(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("informer: WaitForLatest: %w", ErrNilContext)
	}
	l, err := inf.lw.List(ctx, source.ListOptions{Limit: 1})
	if err != nil {
		return fmt.Errorf("informer: WaitForLatest: list: %w", err)
	}
	if l.ResourceVersion == "" {
		return fmt.Errorf("informer: WaitForLatest: the source's list has no resourceVersion: %w", source.ErrUnsupported)
	}
	if inf.cmp == nil || !inf.versioned {
		return inf.WaitForResourceVersion(ctx, l.ResourceVersion)
	}
	if done, err := inf.processed("WaitForLatest", l.ResourceVersion); done || err != nil {
		return err
	}
	full, err := inf.lw.List(ctx, source.ListOptions{})
	if err != nil {
		return fmt.Errorf("informer: WaitForLatest: list: %w", err)
	}
	listed := make(map[string]string, len(full.Items))
	for _, obj := range full.Items {
		listed[inf.keyFunc(obj)] = source.ResourceVersionOf(obj)
	}
	return inf.waitUntil(ctx, func() (bool, error) {
		if done, err := inf.processed("WaitForLatest", full.ResourceVersion); done || err != nil {
			return done, err
		}
		return inf.covers(listed, full.ResourceVersion)
	})
}

// processed reports whether the cache has processed rv; op names the
// caller in errors.
func (inf *Informer[T]) processed(op, rv string) (bool, error) {
	cur, _ := inf.fifo.ProcessedResourceVersion()
	if cur == "" {
		return false, nil
	}
	c, err := inf.cmp.CompareResourceVersions(cur, rv)
	if err != nil {
		return false, fmt.Errorf("informer: %s: %w", op, err)
	}
	return c >= 0, nil
}

// covers reports whether the cache holds the state of a full list at
// listRV, whose objects' resourceVersions by key are listed: each listed
// object cached at that version or newer, each other cached object newer
// than the list.
func (inf *Informer[T]) covers(listed map[string]string, listRV string) (bool, error) {
	seen := 0
	for key, obj := range inf.idx.All() {
		want, ok := listed[key]
		if !ok {
			want = listRV
		}
		c, err := inf.cmp.CompareResourceVersions(source.ResourceVersionOf(obj), want)
		if err != nil {
			return false, fmt.Errorf("informer: WaitForLatest: %w", err)
		}
		if c < 0 || (!ok && c == 0) {
			return false, nil
		}
		if ok {
			seen++
		}
	}
	return seen == len(listed), nil
}

// Done returns a channel that is closed when Run has returned.
func (inf *Informer[T]) Done() <-chan struct{} { return inf.stopped }
