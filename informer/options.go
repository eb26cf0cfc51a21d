package informer

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/reflector"
)

// Options configure an Informer. The zero value is valid: every field has
// a default, stated in its doc comment.
type Options[T any] struct {
	// Name identifies the informer in logs. Default: "informer[T]" with
	// T's type name.
	Name string

	// Indexers are the named index functions of the cache, queryable
	// through Lister.ByIndex, IndexKeys and IndexValues. Default: none.
	Indexers indexer.Indexers[T]

	// ResyncPeriod is the default resync period of handlers (see
	// HandlerOptions.ResyncPeriod) and, when set, the granularity their
	// periods are rounded up to. 0 (the default) means handlers get no
	// resync unless they ask for one. Must not be negative.
	ResyncPeriod time.Duration

	// Transform, if set, is applied once to every object before it is
	// cached and handed to handlers (for example to drop fields the
	// program never reads, saving memory). It must not change the
	// object's key. An object whose Transform fails or panics is
	// quarantined (see OnBadObject): the cache keeps its last good state
	// and everything else goes on. Default: none.
	Transform func(T) (T, error)

	// OnBadObject, if set, is called with every object the informer
	// could not take, after it was logged and counted: one whose key
	// func returned "" or panicked or whose Transform failed (counted as
	// Metrics.Quarantined), or one the cache rejected because an index
	// function failed (Metrics.CacheErrors). The error always wraps a
	// *deltafifo.BadObjectError, which carries the key (if any), the
	// resourceVersion and the cause; get it with errors.As. It is called
	// from the reflector's or the pop loop's goroutine, holding no lock
	// of the informer, and must return quickly; a panic in it is
	// recovered and counted (Metrics.CallbackPanics). Default: none (bad
	// objects are logged either way).
	OnBadObject func(err error)

	// WatchErrorHandler, if set, is called with every error that ends a
	// list or a watch (see reflector.Options.WatchErrorHandler). Default:
	// none; errors are logged either way.
	WatchErrorHandler func(err error)

	// UseWatchList makes the reflector sync with a watch-list stream
	// instead of a List (see reflector.Options.UseWatchList). Default:
	// false.
	UseWatchList bool

	// PageSize is the number of items asked for per List call (see
	// reflector.Options.PageSize). 0 (the default) lists in one call.
	PageSize int64

	// Backoff shapes the reflector's delays after errors (see
	// reflector.Backoff). The zero value gives the reflector's defaults.
	Backoff reflector.Backoff

	// Logger receives the informer's logs (and its reflector's and
	// FIFO's), with an "informer" attribute set to Name. Default:
	// slog.Default().
	Logger *slog.Logger

	// Metrics, if set, is asked for the informer's instruments (by New)
	// and for each handler registration's (by AddEventHandler): rejected
	// cache writes, stale deltas, detected mutations, quarantined
	// objects, callback and handler panics.
	// Default: none.
	Metrics MetricsProvider

	// ReflectorMetrics, if set, is asked by New for the reflector's
	// instruments (see reflector.Metrics). Default: none.
	ReflectorMetrics reflector.MetricsProvider

	// MutationCheck, if set, turns on the debug mutation detector: the
	// informer fingerprints every object it caches and reports cached
	// objects that changed afterwards, which means some code mutated an
	// object it got from the cache. It costs a fingerprint per write and
	// a periodic pass over the cache; use it in tests. Default: off.
	MutationCheck *MutationCheck[T]
}

// MutationCheck configures the debug mutation detector (see
// Options.MutationCheck).
type MutationCheck[T any] struct {
	// Fingerprint returns bytes that change whenever obj changes.
	// Default: encoding/json.Marshal (exported fields only).
	Fingerprint func(obj T) ([]byte, error)
	// Period is how often every cached object is checked; objects are
	// also checked when the cache replaces or deletes them. Default: 1s.
	Period time.Duration
	// OnMutation is called with the key of every object found mutated,
	// once per mutation, from the informer's goroutines (sometimes while
	// the informer holds its lock: it must return quickly and must not
	// add or remove handlers). A panic in it is recovered, logged and
	// counted (Metrics.CallbackPanics). Default: none (the mutation is
	// logged at error level and counted either way).
	OnMutation func(key string)
}

// MetricsProvider creates the instruments of one informer and of each of
// its handler registrations. It is set per informer in Options.Metrics;
// there is no global provider.
type MetricsProvider interface {
	// InformerMetrics is called once, by New, for the informer named
	// informer.
	InformerMetrics(informer string) Metrics
	// HandlerMetrics is called once per registration, by
	// AddEventHandler, with the registration's name.
	HandlerMetrics(informer, handler string) HandlerMetrics
}

// Metrics are the counters of one informer. A nil field is not recorded.
// They are called from the informer's goroutines, some on hot paths, so
// they must be fast and must not block.
type Metrics struct {
	// CacheErrors counts deltas the cache rejected (an index function
	// failed or a key function panicked); they are logged, reported to
	// Options.OnBadObject and not notified.
	CacheErrors metrics.Counter
	// StaleDeltas counts deltas dropped because they carried an object
	// older than the cached one (only when the source can order
	// resourceVersions and the objects implement source.Versioned).
	StaleDeltas metrics.Counter
	// Mutations counts cached objects found mutated by the mutation
	// detector.
	Mutations metrics.Counter
	// Quarantined counts objects left out because their key func
	// returned "" or panicked or their Transform failed or panicked (see
	// Options.OnBadObject).
	Quarantined metrics.Counter
	// CallbackPanics counts panics recovered from Options.OnBadObject
	// and MutationCheck.OnMutation.
	CallbackPanics metrics.Counter
}

func (m *Metrics) fill() {
	m.CacheErrors = metrics.Or(m.CacheErrors)
	m.StaleDeltas = metrics.Or(m.StaleDeltas)
	m.Mutations = metrics.Or(m.Mutations)
	m.Quarantined = metrics.Or(m.Quarantined)
	m.CallbackPanics = metrics.Or(m.CallbackPanics)
}

// HandlerMetrics are the counters of one handler registration. A nil
// field is not recorded.
type HandlerMetrics struct {
	// Panics counts handler calls that panicked or called
	// runtime.Goexit (both recovered from).
	Panics metrics.Counter
}

const defaultMutationPeriod = time.Second

// validate returns a copy of o with defaults filled in, or an error.
func (o Options[T]) validate() (Options[T], error) {
	var errs []error
	if o.Name == "" {
		o.Name = "informer[" + reflect.TypeFor[T]().String() + "]"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.ResyncPeriod < 0 {
		errs = append(errs, fmt.Errorf("informer: ResyncPeriod %v is negative", o.ResyncPeriod))
	}
	if o.PageSize < 0 {
		errs = append(errs, fmt.Errorf("informer: PageSize %d is negative", o.PageSize))
	}
	if mc := o.MutationCheck; mc != nil {
		c := *mc
		if c.Period < 0 {
			errs = append(errs, fmt.Errorf("informer: MutationCheck.Period %v is negative", c.Period))
		}
		if c.Period == 0 {
			c.Period = defaultMutationPeriod
		}
		o.MutationCheck = &c
	}
	return o, errors.Join(errs...)
}
