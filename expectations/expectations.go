package expectations

import (
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// DefaultTTL is how long a record waits for its observations before
// Satisfied gives up on it: kube-controller-manager's ExpectationsTimeout.
const DefaultTTL = 5 * time.Minute

// Options configures New and NewUIDTracking. The zero value is ready to use.
type Options struct {
	// TTL is how long after ExpectCreations or ExpectDeletions an
	// unsatisfied record keeps its controller waiting; past it, Satisfied
	// reports true (and logs and counts the expiry), so that a lost watch
	// event cannot stall a controller forever. It should exceed the
	// expected latency of watch events. Default (zero): DefaultTTL.
	// Negative is an error.
	TTL time.Duration
	// Logger receives a warning for each expiry and for pending UID
	// deletions that get replaced, and debug records of every change.
	// Default: slog.Default().
	Logger *slog.Logger
	// Name identifies these expectations in logs and metrics (usually
	// the controller's name). Default: "expectations".
	Name string
	// Metrics, if set, is asked once, by the constructor, for the
	// instruments of these expectations. Default: none. A nil pointer
	// in it (a typed nil) is an error.
	Metrics MetricsProvider
}

// MetricsProvider creates the instruments of one Expectations or
// UIDTracking. It is set in Options.Metrics; there is no global provider.
type MetricsProvider interface {
	// ExpectationsMetrics is called once, by the constructor, with
	// Options.Name.
	ExpectationsMetrics(name string) Metrics
}

// Metrics are the counters of one Expectations or UIDTracking. A nil
// field is not recorded. They are called on the caller's goroutine with
// a lock held, so they must be fast and must not call back.
type Metrics struct {
	// Expired counts records whose TTL ran out while creations or
	// deletions were still outstanding, once per record, by the
	// Satisfied call that noticed. Each expiry lets a controller act on a
	// cache that may still lag, so it may create or delete twice; the
	// warning logged with it names the key.
	Expired metrics.Counter
}

// withDefaults validates o and fills in its defaults.
func (o Options) withDefaults() (Options, error) {
	if o.TTL < 0 {
		return o, fmt.Errorf("expectations: negative TTL %v", o.TTL)
	}
	if o.Metrics != nil && isNil(o.Metrics) {
		return o, errors.New("expectations: Options.Metrics holds a nil pointer")
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Name == "" {
		o.Name = "expectations"
	}
	return o, nil
}

// Expectations records, per controller key, how many creations and
// deletions of owned objects a controller has issued but not yet seen in
// its cache, and optionally which names it created. See the package
// documentation for the calling pattern.
//
// Every method is safe for concurrent use and runs under one mutex in
// O(1), except ExpectCreationsOf (O(names)) and PendingCreations (O(n log
// n) in the names still expected); observations, Satisfied and Remaining
// do not allocate. A record holds at most the names of one
// ExpectCreationsOf. Records live until Delete, so call Delete when the
// owner is deleted.
type Expectations struct {
	c core
}

// New returns empty Expectations. The only errors are a negative TTL and
// an Options.Metrics holding a nil pointer.
func New(opts Options) (*Expectations, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Expectations{c: newCore(o)}, nil
}

// ExpectCreations replaces key's record by one that waits for n
// creations (and no deletions). The TTL starts now. Call it before
// issuing the creates, so that no watch event can arrive before it.
func (e *Expectations) ExpectCreations(key string, n int) {
	e.c.expect(key, n, 0, time.Now())
}

// ExpectDeletions replaces key's record by one that waits for n
// deletions (and no creations). The TTL starts now. Call it before
// issuing the deletes.
func (e *Expectations) ExpectDeletions(key string, n int) {
	e.c.expect(key, 0, n, time.Now())
}

// ExpectCreationsOf replaces key's record by one that waits for the
// creation of each distinct name in names (and no deletions): the names
// (or any unique keys) of the objects the controller is about to create.
// The TTL starts now. Call it before issuing the creates. Observe them
// with CreationObservedOf, which counts each expected name once.
func (e *Expectations) ExpectCreationsOf(key string, names []string) {
	e.c.expectNames(key, names, time.Now())
}

// CreationObservedOf records that the object named name exists or
// existed: call it from the handlers of the owned type for an add and
// for a delete (a delete of an object whose add was never delivered, as
// when a lagging handler's add and delete coalesce, proves the creation
// too), and for each create that failed. If key's record expects name,
// the creation count drops by one and name is forgotten, so observing it
// again counts nothing. Any other name is ignored, as is a key without a
// record.
func (e *Expectations) CreationObservedOf(key, name string) {
	e.c.observeName(key, name)
}

// PendingCreations yields, in sorted order, the names whose creation
// key's record still expects (see ExpectCreationsOf), from a snapshot
// taken when it is called.
func (e *Expectations) PendingCreations(key string) iter.Seq[string] {
	return slices.Values(e.c.pendingNames(key))
}

// RaiseExpectations adds add creations and del deletions to key's
// record, without restarting its TTL. It does nothing when key has no
// record. Counts saturate at math.MaxInt (and math.MinInt) instead of
// wrapping around. To wait for both creations and deletions, call
// ExpectCreations and then RaiseExpectations(key, 0, n).
func (e *Expectations) RaiseExpectations(key string, add, del int) {
	e.c.adjust(key, add, del, +1)
}

// LowerExpectations subtracts add creations and del deletions from key's
// record, for example for creates that were planned but not issued. It
// does nothing when key has no record. Counts may go negative; they
// saturate at math.MinInt (and math.MaxInt) instead of wrapping around.
func (e *Expectations) LowerExpectations(key string, add, del int) {
	e.c.adjust(key, add, del, -1)
}

// CreationObserved lowers key's outstanding creations by one. Call it
// when the cache shows a new object owned by key, and for each create
// that failed (no watch event will come for it). It does nothing when key
// has no record.
func (e *Expectations) CreationObserved(key string) {
	e.c.adjust(key, 1, 0, -1)
}

// DeletionObserved lowers key's outstanding deletions by one. Call it
// when the cache loses an object owned by key, and for each delete that
// failed. It does nothing when key has no record.
func (e *Expectations) DeletionObserved(key string) {
	e.c.adjust(key, 0, 1, -1)
}

// Satisfied reports whether key's controller may act on its cache: true
// when key has no record, when both its counts are ≤ 0, or when the record
// is older than the TTL. The first time a record is found expired with
// counts outstanding, that is logged as a warning and reported to
// Metrics.Expired.
func (e *Expectations) Satisfied(key string) bool {
	return e.c.satisfied(key, time.Now())
}

// Remaining is Satisfied for a reconcile that must wait: it reports
// whether key's controller must still wait (exactly when Satisfied would
// report false, with the same logging and counting of an expiry) and, if
// so, how long until the record expires — always positive. A reconcile
// that waits returns reconcile.Result{RequeueAfter: d}, so that it runs
// again at the expiry even if the awaited events never come.
func (e *Expectations) Remaining(key string) (d time.Duration, waiting bool) {
	return e.c.remaining(key, time.Now())
}

// Get returns key's outstanding creations and deletions (negative when
// more were observed than expected), and whether key has a record.
func (e *Expectations) Get(key string) (add, del int, ok bool) {
	return e.c.get(key)
}

// Delete forgets key's record. Call it when the owner is deleted: a new
// owner with the same key then starts with no record (Satisfied is true)
// and late observations of the old owner's objects are ignored until the
// new owner sets its own expectations.
func (e *Expectations) Delete(key string) {
	e.c.remove(key)
}
