package reconcile

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// Cache is what a Consistency gate needs from an informer:
// *informer.Informer[T] implements it.
type Cache interface {
	// WaitForResourceVersion returns nil once the cache has applied every
	// change up to and including rv, and ctx.Err() if ctx ends first.
	// The gate calls it with a ctx that has already ended, so it must
	// check before it waits.
	WaitForResourceVersion(ctx context.Context, rv string) error
}

// KeyedCache is a Cache that also tells the version of each cached
// object; *informer.Informer[T] implements it. A gate over a KeyedCache
// holds a request per written key (see Consistency.WroteKey), which a lost
// event cannot fool.
type KeyedCache interface {
	Cache
	// CachedResourceVersion returns the resourceVersion of the object
	// cached under key ("" if it carries none) and whether one is cached.
	CachedResourceVersion(key string) (rv string, cached bool)
}

// DefaultMaxKeyWait is how long a gate holds a request for a written key
// the cache has not shown by default (ConsistencyOptions.MaxKeyWait).
const DefaultMaxKeyWait = time.Minute

// ConsistencyOptions configures a Consistency gate. The zero value is
// valid.
type ConsistencyOptions struct {
	// MaxKeyWait bounds how long a request waits for a key written with
	// WroteKey or DeletedKey to show in the cache: an event the source
	// lost never comes, and past this the gate lets the request through
	// and says so (the Controller logs it). Default DefaultMaxKeyWait;
	// negative is an error.
	MaxKeyWait time.Duration
}

// Consistency is a read-your-writes gate for one cache: after the
// reconcile of a request writes an object through the source that cache
// follows, the next reconcile of that request waits until the cache has
// caught up with the write. This is kube-controller-manager's consistency
// store (1.37), which controller-runtime lacks.
//
// Without it, a reconcile that runs again soon after a write (because the
// write's own event enqueued the request, or another event did) may read
// a cache that does not have the write yet and act on stale state: create
// an object twice, or fail an update with a conflict.
//
// The reconciler records each write, or lets GatedWriter record them:
// WroteKey(req, key, rv) for a create or update of key that returned rv,
// DeletedKey(req, key, rv) for a delete. Before calling Reconcile for req,
// the Controller (given the gate in Options.Consistency) checks without
// blocking whether the cache shows every recorded write: the object
// cached under key at rv or newer — or, after a delete, no object under
// key (or a newer one). If so it clears the records and reconciles; if not
// it puts req back with the rate limiter's backoff, counts it in
// Metrics.TotalRequeue and leaves the worker free for other requests. The
// backoff is forgotten when the reconcile then succeeds.
//
// What the gate guarantees, and what expectations guarantee: the gate
// makes one reconcile see its predecessor's writes; it is precise per key,
// so an event lost by the source cannot release it early (a watermark can
// be carried past a write by any later event: with the watermark alone a
// lost create let a duplicate through, 7 pods for 5 replicas). It cannot
// tell a write the cache will never show (a lost event) from one still on
// its way, so it gives up after ConsistencyOptions.MaxKeyWait. Expectations
// (package expectations) count what a controller waits for across
// reconciles and handlers, and survive a controller that does not know
// which keys its writes will produce (generateName). A controller uses
// the gate always and adds expectations only when a sync must go on while
// its creates or deletes are unseen (the package doc's "Expectations or
// the gate: the rule"). The kube-controller-manager of 1.37 has both;
// controller-runtime 0.25's experimental read-your-writes client gates
// Get per key and List per kind.
//
// WroteAt(req, rv) records a list-wide write instead: the request waits
// until the cache's watermark passes rv, whatever the key. Use it only for
// caches that are not a KeyedCache.
//
// A gate follows one cache; a controller that writes several types uses
// one gate per type. All methods are safe for concurrent use.
type Consistency[R comparable] struct {
	cache   Cache
	keyed   KeyedCache // cache, when it is one; else nil
	cmp     source.VersionComparer
	maxWait time.Duration

	mu   sync.Mutex
	rvs  map[R]string                // guarded by mu; the newest unconfirmed list-wide write per request
	keys map[R]map[string]keyedWrite // guarded by mu; the unconfirmed writes per request and key
}

// keyedWrite is the newest recorded write of one key.
type keyedWrite struct {
	rv      string
	deleted bool
	at      time.Time
}

// NewConsistency returns a gate for cache, whose source orders
// resourceVersions with cmp (for a fake.Source or any source that
// implements source.VersionComparer, the source itself). It returns an
// error if either is nil or holds a nil pointer.
func NewConsistency[R comparable](cache Cache, cmp source.VersionComparer, opts ...ConsistencyOptions) (*Consistency[R], error) {
	if isNil(cache) {
		return nil, errors.New("reconcile: NewConsistency: cache is nil")
	}
	if isNil(cmp) {
		return nil, errors.New("reconcile: NewConsistency: comparer is nil")
	}
	var o ConsistencyOptions
	for _, x := range opts {
		o = x
	}
	switch {
	case o.MaxKeyWait < 0:
		return nil, fmt.Errorf("reconcile: NewConsistency: MaxKeyWait %v is negative", o.MaxKeyWait)
	case o.MaxKeyWait == 0:
		o.MaxKeyWait = DefaultMaxKeyWait
	}
	g := &Consistency[R]{cache: cache, cmp: cmp, maxWait: o.MaxKeyWait,
		rvs: make(map[R]string), keys: make(map[R]map[string]keyedWrite)}
	g.keyed, _ = cache.(KeyedCache)
	return g, nil
}

// WroteKey records that the reconcile of req created or updated the
// object under key, and the write returned rv. The next reconcile of req
// waits until the cache holds key at rv or newer (or MaxKeyWait passes).
// Of several records for one key the newest counts. Over a cache that is
// not a KeyedCache it is WroteAt(req, rv). It returns an error, and
// records nothing, if key or rv is empty or rv is malformed.
func (g *Consistency[R]) WroteKey(req R, key, rv string) error {
	return g.recordKey("WroteKey", req, key, rv, false)
}

// DeletedKey records that the reconcile of req deleted the object under
// key, and the delete returned rv. The next reconcile of req waits until
// the cache holds no object under key, or a newer one (or MaxKeyWait
// passes).
func (g *Consistency[R]) DeletedKey(req R, key, rv string) error {
	return g.recordKey("DeletedKey", req, key, rv, true)
}

func (g *Consistency[R]) recordKey(op string, req R, key, rv string, deleted bool) error {
	if g.keyed == nil {
		return g.WroteAt(req, rv)
	}
	if key == "" {
		return fmt.Errorf("reconcile: Consistency.%s: key is empty", op)
	}
	if rv == "" {
		return fmt.Errorf("reconcile: Consistency.%s: resourceVersion is empty", op)
	}
	if _, err := g.cmp.CompareResourceVersions(rv, rv); err != nil {
		return fmt.Errorf("reconcile: Consistency.%s: %w", op, err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	m := g.keys[req]
	if m == nil {
		m = make(map[string]keyedWrite)
		g.keys[req] = m
	}
	if old, ok := m[key]; ok {
		if c, _ := g.cmp.CompareResourceVersions(old.rv, rv); c >= 0 {
			return nil
		}
	}
	m[key] = keyedWrite{rv: rv, deleted: deleted, at: time.Now()}
	return nil
}

// WroteAt records that the reconcile of req wrote at resourceVersion rv.
// Of several records for req the newest counts, whatever the order of the
// calls (writes may run concurrently). It returns an error, and records
// nothing, if rv is empty or malformed for the comparer.
func (g *Consistency[R]) WroteAt(req R, rv string) error {
	if rv == "" {
		return errors.New("reconcile: Consistency.WroteAt: resourceVersion is empty")
	}
	if _, err := g.cmp.CompareResourceVersions(rv, rv); err != nil {
		return fmt.Errorf("reconcile: Consistency.WroteAt: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if old, ok := g.rvs[req]; ok {
		// Both versions were validated when recorded: no error.
		if c, _ := g.cmp.CompareResourceVersions(old, rv); c >= 0 {
			return nil
		}
	}
	g.rvs[req] = rv
	return nil
}

// Pending returns the list-wide resourceVersion the next reconcile of req
// waits for (WroteAt), if any.
func (g *Consistency[R]) Pending(req R) (rv string, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	rv, ok = g.rvs[req]
	return rv, ok
}

// PendingKeys returns the keys whose writes the next reconcile of req
// waits for (WroteKey, DeletedKey), in no particular order.
func (g *Consistency[R]) PendingKeys(req R) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for k := range g.keys[req] {
		out = append(out, k)
	}
	return out
}

// Forget drops req's record, for a request that will not be reconciled
// again (its object is gone).
func (g *Consistency[R]) Forget(req R) {
	g.mu.Lock()
	delete(g.rvs, req)
	delete(g.keys, req)
	g.mu.Unlock()
}

// Len returns the number of requests with a record.
func (g *Consistency[R]) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := len(g.rvs)
	for req := range g.keys {
		if _, ok := g.rvs[req]; !ok {
			n++
		}
	}
	return n
}

// doneCtx has ended: WaitForResourceVersion with it only checks.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// caughtUp reports whether req may be reconciled: it has no record, or
// the cache shows every recorded write (the records are then cleared). A
// cache that cannot answer (no version comparer, stopped), or a key that
// has not shown within MaxKeyWait, lets req through and drops the record,
// reporting why in err.
func (g *Consistency[R]) caughtUp(req R) (bool, error) {
	ok, err := g.caughtUpList(req)
	if !ok {
		return false, err
	}
	okKeys, errKeys := g.caughtUpKeys(req)
	return okKeys, errors.Join(err, errKeys)
}

func (g *Consistency[R]) caughtUpList(req R) (bool, error) {
	g.mu.Lock()
	rv, ok := g.rvs[req]
	g.mu.Unlock()
	if !ok {
		return true, nil
	}
	err := g.cache.WaitForResourceVersion(doneCtx, rv)
	if err != nil && errors.Is(err, context.Canceled) {
		return false, nil
	}
	g.mu.Lock()
	if g.rvs[req] == rv { // a newer write may have been recorded meanwhile
		delete(g.rvs, req)
	}
	g.mu.Unlock()
	return true, err
}

func (g *Consistency[R]) caughtUpKeys(req R) (bool, error) {
	g.mu.Lock()
	writes := make(map[string]keyedWrite, len(g.keys[req]))
	for k, w := range g.keys[req] {
		writes[k] = w
	}
	g.mu.Unlock()
	if len(writes) == 0 {
		return true, nil
	}
	var errs []error
	shown := make(map[string]keyedWrite, len(writes))
	for key, w := range writes {
		ok, err := g.shows(key, w)
		switch {
		case ok:
			shown[key] = w
		case time.Since(w.at) >= g.maxWait:
			shown[key] = w
			errs = append(errs, fmt.Errorf("reconcile: the cache did not show the write of %q at %s within %v (an event lost?)", key, w.rv, g.maxWait))
		case err != nil:
			shown[key] = w
			errs = append(errs, err)
		}
	}
	g.mu.Lock()
	m := g.keys[req]
	for key, w := range shown {
		if cur, ok := m[key]; ok && cur == w { // a newer write may have been recorded meanwhile
			delete(m, key)
		}
	}
	held := len(m) > 0
	if !held {
		delete(g.keys, req)
	}
	g.mu.Unlock()
	return !held, errors.Join(errs...)
}

// shows reports whether the cache shows write w of key.
func (g *Consistency[R]) shows(key string, w keyedWrite) (bool, error) {
	rv, cached := g.keyed.CachedResourceVersion(key)
	switch {
	case !cached:
		return w.deleted, nil
	case rv == "":
		// The objects carry no version: only the watermark can tell.
		err := g.cache.WaitForResourceVersion(doneCtx, w.rv)
		if err != nil && errors.Is(err, context.Canceled) {
			return false, nil
		}
		return true, err
	}
	c, err := g.cmp.CompareResourceVersions(rv, w.rv)
	if err != nil {
		return false, fmt.Errorf("reconcile: compare the cached version of %q: %w", key, err)
	}
	return c >= 0, nil
}
