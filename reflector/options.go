package reflector

import (
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// Options configure a Reflector. The zero value is valid: every field has
// a default, stated in its doc comment.
type Options struct {
	// Name identifies the reflector in logs. Default: "reflector[T]" with
	// T's type name.
	Name string

	// Logger receives the reflector's logs, with a "reflector" attribute
	// set to Name. Default: slog.Default().
	Logger *slog.Logger

	// Metrics, if set, is asked once, by New, for the reflector's
	// instruments: counts of lists, watches, events, errors and fallbacks
	// (see Metrics). Default: none.
	Metrics MetricsProvider

	// WatchErrorHandler, if set, is called with every error that ends a
	// list or a watch, before the reflector backs off or relists (see
	// Run for the error values). It runs on Run's goroutine, so it must
	// return quickly and must not call into the store. Default: none (the
	// error is logged either way).
	WatchErrorHandler func(err error)

	// PageSize is the number of items asked for per List call; the
	// reflector follows Continue tokens until the list is complete.
	// 0 (the default) lists everything in one call. Must not be negative.
	PageSize int64

	// ResyncPeriod is how often the reflector calls Store.Resync while it
	// is watching. 0 (the default) disables resync. Must not be negative.
	ResyncPeriod time.Duration

	// UseWatchList makes the reflector sync with one Watch that sets
	// WatchOptions.SendInitialEvents instead of a List, and keep that
	// stream as its watch. If the source refuses (ErrUnsupported) or the
	// end of the initial events does not come within WatchListTimeout,
	// the reflector uses List+Watch for the rest of Run. Default: false.
	UseWatchList bool

	// WatchListTimeout bounds how long a watch-list sync may take until
	// its end-of-initial-events bookmark. Default: 1 minute.
	WatchListTimeout time.Duration

	// Backoff shapes the delays after errors. Default: see Backoff.
	Backoff Backoff

	// MinWatchTimeout and MaxWatchTimeout bound the lifetime of each
	// watch: the reflector picks one uniformly in [Min, Max], then ends
	// the watch (by cancelling its context) and resumes with a new one
	// from the last resourceVersion, without a relist. Defaults: 5
	// minutes and 2×MinWatchTimeout. Max must not be below Min.
	MinWatchTimeout time.Duration
	MaxWatchTimeout time.Duration
}

// Backoff configures the exponential backoff after errors. After the n-th
// consecutive failure (n from 0) the reflector waits
//
//	d = min(Initial × Factor^n, Cap)
//
// reduced by a random fraction of up to Jitter (so Cap is a hard upper
// bound and the wait lies in [d×(1−Jitter), d]). The count of failures
// starts again from 0 once ResetAfter has passed since the last retry
// without a new failure. The zero value gives the defaults.
type Backoff struct {
	// Initial is the first delay. Default: 800ms.
	Initial time.Duration
	// Factor multiplies the delay after each failure. Default: 2. Must
	// be at least 1.
	Factor float64
	// Cap is the largest delay. Default: 30s. Must not be below Initial.
	Cap time.Duration
	// Jitter is the largest fraction of a delay that is randomly taken
	// off it. Default: 0.5 (equal jitter); a negative value disables
	// jitter. Must not exceed 1.
	Jitter float64
	// ResetAfter is the healthy time after which the delay starts again
	// from Initial. Default: 2 minutes.
	ResetAfter time.Duration
}

// Defaults of Options and Backoff.
const (
	defaultWatchListTimeout = time.Minute
	defaultMinWatchTimeout  = 5 * time.Minute
	defaultBackoffInitial   = 800 * time.Millisecond
	defaultBackoffFactor    = 2
	defaultBackoffCap       = 30 * time.Second
	defaultBackoffJitter    = 0.5
	defaultBackoffReset     = 2 * time.Minute

	// shortWatch: a watch that ends by itself sooner than this after it
	// started, without delivering a single event, counts as a failure
	// (ErrShortWatch), so a broken source cannot drive a hot loop.
	shortWatch = time.Second
)

// validate returns a copy of o with defaults filled in, or an error.
func (o Options) validate(typeName string) (Options, error) {
	var errs []error
	if o.Name == "" {
		o.Name = "reflector[" + typeName + "]"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.PageSize < 0 {
		errs = append(errs, fmt.Errorf("reflector: PageSize %d is negative", o.PageSize))
	}
	if o.ResyncPeriod < 0 {
		errs = append(errs, fmt.Errorf("reflector: ResyncPeriod %v is negative", o.ResyncPeriod))
	}
	switch {
	case o.WatchListTimeout < 0:
		errs = append(errs, fmt.Errorf("reflector: WatchListTimeout %v is negative", o.WatchListTimeout))
	case o.WatchListTimeout == 0:
		o.WatchListTimeout = defaultWatchListTimeout
	}
	switch {
	case o.MinWatchTimeout < 0:
		errs = append(errs, fmt.Errorf("reflector: MinWatchTimeout %v is negative", o.MinWatchTimeout))
	case o.MinWatchTimeout == 0:
		o.MinWatchTimeout = defaultMinWatchTimeout
	}
	switch {
	case o.MaxWatchTimeout < 0:
		errs = append(errs, fmt.Errorf("reflector: MaxWatchTimeout %v is negative", o.MaxWatchTimeout))
	case o.MaxWatchTimeout == 0:
		o.MaxWatchTimeout = 2 * o.MinWatchTimeout
	case o.MaxWatchTimeout < o.MinWatchTimeout:
		errs = append(errs, fmt.Errorf("reflector: MaxWatchTimeout %v is below MinWatchTimeout %v",
			o.MaxWatchTimeout, o.MinWatchTimeout))
	}
	b, err := o.Backoff.validate()
	if err != nil {
		errs = append(errs, err)
	}
	o.Backoff = b
	return o, errors.Join(errs...)
}

func (b Backoff) validate() (Backoff, error) {
	var errs []error
	switch {
	case b.Initial < 0:
		errs = append(errs, fmt.Errorf("reflector: Backoff.Initial %v is negative", b.Initial))
	case b.Initial == 0:
		b.Initial = defaultBackoffInitial
	}
	switch {
	case b.Factor == 0:
		b.Factor = defaultBackoffFactor
	case !(b.Factor >= 1) || b.Factor > 1e6: // also rejects NaN
		errs = append(errs, fmt.Errorf("reflector: Backoff.Factor %v is not in [1, 1e6]", b.Factor))
	}
	switch {
	case b.Cap < 0:
		errs = append(errs, fmt.Errorf("reflector: Backoff.Cap %v is negative", b.Cap))
	case b.Cap == 0:
		b.Cap = max(defaultBackoffCap, b.Initial)
	case b.Cap < b.Initial:
		errs = append(errs, fmt.Errorf("reflector: Backoff.Cap %v is below Backoff.Initial %v", b.Cap, b.Initial))
	}
	switch {
	case b.Jitter == 0:
		b.Jitter = defaultBackoffJitter
	case b.Jitter < 0:
		b.Jitter = 0
	case !(b.Jitter <= 1): // also rejects NaN
		errs = append(errs, fmt.Errorf("reflector: Backoff.Jitter %v exceeds 1", b.Jitter))
	}
	switch {
	case b.ResetAfter < 0:
		errs = append(errs, fmt.Errorf("reflector: Backoff.ResetAfter %v is negative", b.ResetAfter))
	case b.ResetAfter == 0:
		b.ResetAfter = defaultBackoffReset
	}
	return b, errors.Join(errs...)
}

// MetricsProvider creates the instruments of one reflector. It is set
// per reflector in Options.Metrics; there is no global provider.
type MetricsProvider interface {
	// ReflectorMetrics is called once, by New, for the reflector named
	// name.
	ReflectorMetrics(name string) Metrics
}

// Metrics are the counters of one reflector. A nil field is not recorded.
// They are called on Run's goroutine, Events once per event, so they must
// be fast and must not block. An adapter maps each field to a counter
// named after it in snake_case (reflector_lists_total, …) with a "name"
// label.
type Metrics struct {
	// Lists counts List calls (one per page).
	Lists metrics.Counter
	// Watches counts Watch calls, watch-list syncs included.
	Watches metrics.Counter
	// Events counts watch events applied to the store, bookmarks
	// included (not the initial events of a watch-list sync).
	Events metrics.Counter
	// Replaces counts Store.Replace calls: completed syncs.
	Replaces metrics.Counter
	// Resyncs counts Store.Resync calls.
	Resyncs metrics.Counter
	// Expired counts ErrExpired (and ErrFutureVersion on a relist)
	// reported by the source.
	Expired metrics.Counter
	// Backoffs counts the backoff waits after errors.
	Backoffs metrics.Counter
	// BadSource counts breaches of the ListWatcher contract
	// (ErrBadSource).
	BadSource metrics.Counter
	// StoreErrors counts errors returned by the store (ErrStore).
	StoreErrors metrics.Counter
	// ShortWatches counts watches that ended at once without an event
	// (ErrShortWatch).
	ShortWatches metrics.Counter
	// WatchListFallbacks counts switches from watch-list to List+Watch.
	WatchListFallbacks metrics.Counter
	// TransientErrors counts failures marked source.ErrTransient: a
	// watch that fails so is watched again from the last version, after
	// a backoff, without a relist.
	TransientErrors metrics.Counter
}

// fill replaces nil fields with no-ops.
func (m *Metrics) fill() {
	for _, c := range []*metrics.Counter{
		&m.Lists, &m.Watches, &m.Events, &m.Replaces, &m.Resyncs, &m.Expired,
		&m.Backoffs, &m.BadSource, &m.StoreErrors, &m.ShortWatches, &m.WatchListFallbacks,
		&m.TransientErrors,
	} {
		*c = metrics.Or(*c)
	}
}

// typeName names T for the default Name.
func typeName[T any]() string {
	return reflect.TypeFor[T]().String()
}
