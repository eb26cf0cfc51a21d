package reconcile

import (
	"context"
	"errors"
	"fmt"
	"sync"

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
// The reconciler records each write with WroteAt(req, rv), rv being the
// resourceVersion the write returned. Before calling Reconcile for req,
// the Controller (given the gate in Options.Consistency) checks without
// blocking whether the cache has reached the newest recorded rv: if so it
// clears the record and reconciles; if not it puts req back with the rate
// limiter's backoff, counts it in Metrics.TotalRequeue and leaves the
// worker free for other requests. The backoff is forgotten when the
// reconcile then succeeds.
//
// A gate follows one cache; a controller that writes several types uses
// one gate per type. All methods are safe for concurrent use.
type Consistency[R comparable] struct {
	cache Cache
	cmp   source.VersionComparer

	mu  sync.Mutex
	rvs map[R]string // guarded by mu; the newest unconfirmed write per request
}

// NewConsistency returns a gate for cache, whose source orders
// resourceVersions with cmp (for a fake.Source or any source that
// implements source.VersionComparer, the source itself). It returns an
// error if either is nil or holds a nil pointer.
func NewConsistency[R comparable](cache Cache, cmp source.VersionComparer) (*Consistency[R], error) {
	if isNil(cache) {
		return nil, errors.New("reconcile: NewConsistency: cache is nil")
	}
	if isNil(cmp) {
		return nil, errors.New("reconcile: NewConsistency: comparer is nil")
	}
	return &Consistency[R]{cache: cache, cmp: cmp, rvs: make(map[R]string)}, nil
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

// Pending returns the resourceVersion the next reconcile of req waits
// for, if any.
func (g *Consistency[R]) Pending(req R) (rv string, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	rv, ok = g.rvs[req]
	return rv, ok
}

// Forget drops req's record, for a request that will not be reconciled
// again (its object is gone).
func (g *Consistency[R]) Forget(req R) {
	g.mu.Lock()
	delete(g.rvs, req)
	g.mu.Unlock()
}

// Len returns the number of requests with a record.
func (g *Consistency[R]) Len() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.rvs)
}

// doneCtx has ended: WaitForResourceVersion with it only checks.
var doneCtx = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

// caughtUp reports whether req may be reconciled: it has no record, or
// the cache has reached the recorded version (the record is then
// cleared). A cache that cannot answer (no version comparer, stopped)
// lets req through and drops the record, reporting why in err.
func (g *Consistency[R]) caughtUp(req R) (bool, error) {
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
