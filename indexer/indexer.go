package indexer

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"
)

// IndexFunc computes the values under which an object is indexed. It must
// be deterministic, since the Indexer calls it again on the stored object
// to find the entries to remove when that object is updated or deleted,
// and safe for concurrent use (Replace calls it without the lock, Index
// under a shared one).
type IndexFunc[T any] func(obj T) ([]string, error)

// Indexers names index funcs.
type Indexers[T any] map[string]IndexFunc[T]

// Errors callers branch on. Every error the package returns is prefixed
// "indexer: " and wraps one of these where one applies.
var (
	// ErrUnknownIndex: a read named an index that does not exist.
	ErrUnknownIndex = errors.New("indexer: unknown index")
	// ErrIndexExists: AddIndexers named an index that already exists.
	ErrIndexExists = errors.New("indexer: index already exists")
	// ErrIndexFunc: an index func returned an error or panicked; the write
	// was rejected and the store is unchanged. The error names the index
	// and the key and wraps the func's own error.
	ErrIndexFunc = errors.New("indexer: index func failed")
	// ErrKeyFunc: the key func returned "" or panicked; the write was
	// rejected.
	ErrKeyFunc = errors.New("indexer: key func failed")
)

// Indexer is a thread-safe store of objects of type T, ordered by the key
// its key func gives them, with named secondary indexes. See the package
// documentation for the contract.
//
// All methods are safe for concurrent use. Reads share a read lock;
// writes (and index funcs, which run inside them) hold the write lock.
// Iterators and snapshots hold no lock at all.
type Indexer[T any] struct {
	keyFunc func(T) string

	mu sync.RWMutex
	// Guarded by mu:
	tab   *table[T]    // every stored cell, by key
	live  view[T]      // the ordered trees, as of their last fold
	logs  pending[T]   // the changes not yet folded into live
	dirty bool         // some log is not empty
	gen   uint64       // cells of this generation may be written in place
	snap  *Snapshot[T] // a snapshot of the current contents, nil once they change
	vals  [][]string   // scratch for the new index values of a write

	tune *tuning // never changes
}

// pending is the changes not yet folded into the live trees: one log per
// tree.
type pending[T any] struct {
	store   oplog[T]   // into live.items
	indexes []oplog[T] // indexes[i] into live.indexes[i].tree
}

func newPending[T any](tune *tuning, indexes int) pending[T] {
	p := pending[T]{store: newOplog[T](tune), indexes: make([]oplog[T], indexes)}
	for i := range p.indexes {
		p.indexes[i] = newOplog[T](tune)
	}
	return p
}

// tuning is the layout and fold parameters of an Indexer and of its trees
// and logs. New uses defaultTuning; internal tests pass tiny values (see
// newIndexer) so that a few dozen objects exercise leaf splits and merges,
// fence trees of several levels, chunked logs and both ways of folding.
// A tuning never changes once an Indexer uses it.
type tuning struct {
	leafMax     int // most entries a leaf holds
	fenceDegree int // degree of the google/btree that orders the leaves
	// foldMin is the length below which a log is only folded when read;
	// above it, a log is folded once it holds more than foldMin +
	// foldMul*n changes for an Indexer of n objects.
	foldMin, foldMul int
	chunkMax         int // most changes a chunk of a log holds
	// mergeRatio: a log of k net changes to a tree of n entries is applied
	// in one pass over all its leaves when k*mergeRatio >= n, and by one
	// descent per change otherwise.
	mergeRatio int
}

// defaultTuning returns the parameters New uses.
func defaultTuning() *tuning {
	return &tuning{leafMax: 128, fenceDegree: 32, foldMin: 512, foldMul: 2, chunkMax: 1024, mergeRatio: 64}
}

// New returns an empty Indexer that keys objects with keyFunc and
// maintains the given indexes. A nil keyFunc or a nil index func is an
// error.
func New[T any](keyFunc func(T) string, indexers Indexers[T]) (*Indexer[T], error) {
	return newIndexer(keyFunc, indexers, defaultTuning())
}

// newIndexer is New with the given tuning.
func newIndexer[T any](keyFunc func(T) string, indexers Indexers[T], tune *tuning) (*Indexer[T], error) {
	if keyFunc == nil {
		return nil, errors.New("indexer: nil key func")
	}
	x := &Indexer[T]{
		keyFunc: keyFunc,
		tab:     newTable[T](0),
		live:    view[T]{items: newLeafTree[T](tune)},
		logs:    newPending[T](tune, 0),
		tune:    tune,
	}
	if err := x.AddIndexers(indexers); err != nil {
		return nil, err
	}
	return x, nil
}

// callKey runs keyFunc, turning "" or a panic into an error.
func callKey[T any](keyFunc func(T) string, obj T) (key string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: panic: %v", ErrKeyFunc, r)
		}
	}()
	key = keyFunc(obj)
	if key == "" {
		return "", fmt.Errorf("%w: empty key", ErrKeyFunc)
	}
	return key, nil
}

// Add stores obj under its key, replacing any object stored there (Add and
// Update are the same upsert). It fails, leaving the store unchanged, if
// the key func or an index func fails on obj.
func (x *Indexer[T]) Add(obj T) error {
	_, _, err := x.Upsert(obj)
	return err
}

// Update is Add.
func (x *Indexer[T]) Update(obj T) error {
	_, _, err := x.Upsert(obj)
	return err
}

// Upsert is Add that also returns the object it replaced, if any: one
// lookup where Get followed by Update takes two.
func (x *Indexer[T]) Upsert(obj T) (old T, replaced bool, err error) {
	r, err := x.upsert(obj, nil)
	if err != nil {
		var zero T
		return zero, false, err
	}
	return r.Old, r.Existed, nil
}

// UpsertResult is what UpsertFunc found and did.
type UpsertResult[T any] struct {
	// Key is obj's key: the stored key string when the key was present
	// (so that callers can share it), else the key func's result.
	Key string
	// Old is the object stored under Key before the call, if Existed.
	Old T
	// Existed reports whether an object was stored under Key.
	Existed bool
	// Written reports whether obj was stored.
	Written bool
}

// UpsertFunc is Upsert made conditional, for a caller that decides from
// the stored object whether to write (an informer dropping a stale
// version): under the Indexer's lock it calls write with the object
// stored under obj's key, if any, and stores obj only if write returns
// true. write must not call back into the Indexer. A failing key func or
// index func makes it return an error and write nothing, as Add; the
// result then holds what was found, as far as the key func got.
func (x *Indexer[T]) UpsertFunc(obj T, write func(old T, cached bool) bool) (UpsertResult[T], error) {
	return x.upsert(obj, write)
}

// UpsertKeyFunc is UpsertFunc for a caller that already holds obj's key
// (a DeltaFIFO hands it out with the deltas): the key func is not called,
// and key must be what it returns for obj. An empty key is an error
// wrapping ErrKeyFunc.
func (x *Indexer[T]) UpsertKeyFunc(key string, obj T, write func(old T, cached bool) bool) (UpsertResult[T], error) {
	if key == "" {
		return UpsertResult[T]{}, fmt.Errorf("%w: empty key", ErrKeyFunc)
	}
	return x.upsertKey(key, obj, write)
}

func (x *Indexer[T]) upsert(obj T, write func(old T, cached bool) bool) (UpsertResult[T], error) {
	key, err := callKey(x.keyFunc, obj)
	if err != nil {
		return UpsertResult[T]{}, err
	}
	return x.upsertKey(key, obj, write)
}

func (x *Indexer[T]) upsertKey(key string, obj T, write func(old T, cached bool) bool) (UpsertResult[T], error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	h := x.tab.hash(key)
	s := x.tab.find(key, h)
	var c *cell[T]
	r := UpsertResult[T]{Key: key}
	if s >= 0 {
		c = x.tab.cells[s]
		r = UpsertResult[T]{Key: c.key, Old: c.obj, Existed: true}
	}
	if write != nil && !write(r.Old, r.Existed) {
		return r, nil
	}
	ixs := x.live.indexes
	// Compute every new index value before changing anything.
	vals := x.vals[:0]
	defer func() { clear(vals); x.vals = vals[:0] }()
	for i := range ixs {
		v, err := ixs[i].values(obj, key)
		if err != nil {
			return r, err
		}
		vals = append(vals, v)
	}
	x.snap = nil
	x.dirty = true
	r.Written = true
	if !r.Existed {
		c := &cell[T]{key: key, obj: obj, gen: x.gen}
		x.tab.insert(c, h)
		x.logs.store.add(opSet, "", c)
		for i := range ixs {
			x.logValues(i, opSet, vals[i], c)
		}
		x.foldDue()
		return r, nil
	}
	nc := c // the key's cell from now on
	if c.gen == x.gen {
		c.obj = obj
	} else {
		// c belongs to a snapshot: the new object goes in a new cell,
		// which replaces c in the store and in c's index entries.
		nc = &cell[T]{key: c.key, obj: obj, gen: x.gen}
		x.tab.cells[s] = nc
		x.logs.store.add(opSet, "", nc)
	}
	for i := range ixs {
		ov, err := ixs[i].values(r.Old, key)
		switch {
		case err != nil:
			// The old entries are unknown: the fold finds them by a scan.
			x.logs.indexes[i].addScan(c.key)
			x.logValues(i, opSet, vals[i], nc)
		case slices.Equal(ov, vals[i]):
			// Same values: the entries stay, holding the cell.
			if nc != c {
				x.logValues(i, opSet, vals[i], nc)
			}
		default:
			x.logValues(i, opDel, ov, c)
			x.logValues(i, opSet, vals[i], nc)
		}
	}
	x.foldDue()
	return r, nil
}

// logValues logs an op on (v, c.key) to the log of index ix for every
// distinct value v of vals (index funcs may return a value twice; it is
// indexed once).
func (x *Indexer[T]) logValues(ix int, kind opKind, vals []string, c *cell[T]) {
	l := &x.logs.indexes[ix]
	for j, v := range vals {
		if !dup(vals, j) {
			l.add(kind, v, c)
		}
	}
}

// foldDue folds the logs that have grown large, so that churn without
// ordered reads cannot grow them without bound.
func (x *Indexer[T]) foldDue() {
	n := x.tab.n
	if x.logs.store.due(n) {
		x.live.items = fold(x.live.items, &x.logs.store)
	}
	for i := range x.live.indexes {
		if l := &x.logs.indexes[i]; l.due(n) {
			x.live.indexes[i].tree = fold(x.live.indexes[i].tree, l)
		}
	}
}

// foldAll brings every tree up to date.
func (x *Indexer[T]) foldAll() {
	if !x.dirty {
		return
	}
	x.live.items = fold(x.live.items, &x.logs.store)
	for i := range x.live.indexes {
		ix := &x.live.indexes[i]
		ix.tree = fold(ix.tree, &x.logs.indexes[i])
	}
	x.dirty = false
}

// Delete removes the object stored under obj's key, if any. The stored
// object, not obj, tells which index entries to remove, so obj may be any
// version of it (such as a last known state). It fails only if the key
// func fails on obj.
func (x *Indexer[T]) Delete(obj T) error {
	key, err := callKey(x.keyFunc, obj)
	if err != nil {
		return err
	}
	x.DeleteKey(key)
	return nil
}

// DeleteKey removes the object stored under key, if any, and returns it:
// Delete for a caller that holds the key, in one lookup where Get
// followed by Delete takes two.
func (x *Indexer[T]) DeleteKey(key string) (old T, deleted bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.tab.find(key, x.tab.hash(key))
	if s < 0 {
		return old, false
	}
	c := x.tab.cells[s]
	x.tab.remove(s)
	x.snap = nil
	x.dirty = true
	x.logs.store.add(opDel, "", c)
	for i := range x.live.indexes {
		if ov, err := x.live.indexes[i].values(c.obj, key); err != nil {
			x.logs.indexes[i].addScan(c.key)
		} else {
			x.logValues(i, opDel, ov, c)
		}
	}
	x.foldDue()
	return c.obj, true
}

// Replace atomically replaces the whole contents with items and records
// rv as the LastSyncResourceVersion; the indexes are rebuilt. When two
// items share a key, the later one wins. If the key func or an index func
// fails on any item, Replace changes nothing and returns the error.
func (x *Indexer[T]) Replace(items []T, rv string) error {
	x.mu.RLock()
	gen := x.gen // a snapshot taken meanwhile only makes these cells copy on write
	x.mu.RUnlock()
	cs := make([]*cell[T], len(items))
	for i, obj := range items {
		key, err := callKey(x.keyFunc, obj)
		if err != nil {
			return err
		}
		cs[i] = &cell[T]{key: key, obj: obj, gen: gen}
	}
	slices.SortStableFunc(cs, func(a, b *cell[T]) int { return strings.Compare(a.key, b.key) })
	// Keep the last of each run of equal keys.
	w := 0
	for i := range cs {
		if i+1 < len(cs) && cs[i+1].key == cs[i].key {
			continue
		}
		cs[w] = cs[i]
		w++
	}
	clear(cs[w:])
	cs = cs[:w]

	tab := newTable[T](len(cs))
	b := newBuilder[T](x.tune)
	for _, c := range cs {
		tab.insert(c, tab.hash(c.key))
		b.add("", c)
	}
	store := b.done()
	// Build outside the lock, so that readers are not held up by a large
	// relist; start again if AddIndexers changed the indexes meanwhile.
	for {
		x.mu.RLock()
		cur := x.live.indexes
		x.mu.RUnlock()
		ixs := make([]index[T], len(cur))
		for i := range cur {
			// Only name and fn: a fold may replace cur[i].tree meanwhile.
			ixs[i] = index[T]{name: cur[i].name, fn: cur[i].fn}
			s, err := buildIndex(&ixs[i], cs, x.tune)
			if err != nil {
				return err
			}
			ixs[i].tree = s
		}
		x.mu.Lock()
		if len(x.live.indexes) == len(cur) && (len(cur) == 0 || &x.live.indexes[0] == &cur[0]) {
			x.tab = tab
			x.live = view[T]{items: store, indexes: ixs, rv: rv}
			x.logs = newPending[T](x.tune, len(ixs))
			x.dirty = false
			x.snap = nil
			x.mu.Unlock()
			return nil
		}
		x.mu.Unlock()
	}
}

// buildIndex computes ix over cs (sorted by key, without duplicates).
func buildIndex[T any](ix *index[T], cs []*cell[T], tune *tuning) (*leafTree[T], error) {
	type pair struct {
		grp string
		c   *cell[T]
	}
	pairs := make([]pair, 0, len(cs))
	for _, c := range cs {
		vals, err := ix.values(c.obj, c.key)
		if err != nil {
			return nil, err
		}
		for j, v := range vals {
			if !dup(vals, j) {
				pairs = append(pairs, pair{v, c})
			}
		}
	}
	// cs is sorted by key, so a stable sort by value sorts by (value, key).
	slices.SortStableFunc(pairs, func(a, b pair) int { return strings.Compare(a.grp, b.grp) })
	b := newBuilder[T](tune)
	for _, p := range pairs {
		b.add(p.grp, p.c)
	}
	return b.done(), nil
}

// AddIndexers adds indexes and indexes the objects already stored. A name
// that already exists yields an error wrapping ErrIndexExists; a nil index
// func, or one that fails on a stored object, an error too. On error no
// index is added.
func (x *Indexer[T]) AddIndexers(indexers Indexers[T]) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(indexers) == 0 {
		return nil
	}
	x.foldAll()
	var cs []*cell[T]
	if x.live.items.n > 0 {
		cs = make([]*cell[T], 0, x.live.items.n)
		x.live.items.ascend("", "", func(c *cell[T]) bool {
			cs = append(cs, c)
			return true
		})
	}
	ixs := slices.Clone(x.live.indexes)
	for name, fn := range indexers {
		if _, err := x.live.index(name); err == nil {
			return fmt.Errorf("%w: %q", ErrIndexExists, name)
		}
		if fn == nil {
			return fmt.Errorf("indexer: index %q: nil index func", name)
		}
		ix := index[T]{name: name, fn: fn}
		s, err := buildIndex(&ix, cs, x.tune)
		if err != nil {
			return err
		}
		ix.tree = s
		ixs = append(ixs, ix)
	}
	slices.SortFunc(ixs, func(a, b index[T]) int { return cmp.Compare(a.name, b.name) })
	x.live.indexes = ixs
	x.logs = newPending[T](x.tune, len(ixs)) // every log is empty after foldAll
	x.snap = nil
	return nil
}

// Resync does nothing: the Indexer is the end of the pipeline. It exists
// so that the Indexer can stand where a store is expected.
func (x *Indexer[T]) Resync() error { return nil }

// Bookmark records rv as the LastSyncResourceVersion without changing
// any object.
func (x *Indexer[T]) Bookmark(rv string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.live.rv != rv {
		x.live.rv = rv
		x.snap = nil
	}
}

// LastSyncResourceVersion returns the rv of the last Replace or Bookmark.
func (x *Indexer[T]) LastSyncResourceVersion() string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.rv
}

// Snapshot returns an immutable, consistent view of the store and its
// indexes. It first folds the changes made since the last ordered read
// into the ordered trees (a sorted merge, in O(changes) amortized over the
// writes that made them), then shares those trees copy-on-write, in
// O(number of indexes). Until the next write, repeated calls return the
// same snapshot.
func (x *Indexer[T]) Snapshot() *Snapshot[T] {
	x.mu.RLock()
	s := x.snap
	x.mu.RUnlock()
	if s != nil {
		return s
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.snap == nil {
		x.foldAll()
		x.snap = &Snapshot[T]{v: x.live.clone(), keyFunc: x.keyFunc}
		// Every cell is now reachable from the snapshot: from now on a
		// write to a key replaces its cell instead of changing it.
		x.gen++
	}
	return x.snap
}

// ordered runs read on the live view with every change folded in: under
// the read lock when nothing is pending, else under the write lock after
// folding.
func (x *Indexer[T]) ordered(read func(v *view[T])) {
	x.mu.RLock()
	if !x.dirty {
		defer x.mu.RUnlock()
		read(&x.live)
		return
	}
	x.mu.RUnlock()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldAll()
	read(&x.live)
}

// Get returns the object stored under key.
func (x *Indexer[T]) Get(key string) (obj T, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if c, ok := x.tab.get(key); ok {
		return c.obj, true
	}
	return obj, false
}

// List returns every object, ordered by key.
func (x *Indexer[T]) List() (out []T) {
	x.ordered(func(v *view[T]) { out = v.list() })
	return out
}

// ListKeys returns every key, in order.
func (x *Indexer[T]) ListKeys() (out []string) {
	x.ordered(func(v *view[T]) { out = v.listKeys() })
	return out
}

// Len returns the number of objects.
func (x *Indexer[T]) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.tab.n
}

// All iterates over every (key, object), ordered by key, in a snapshot
// taken when the iteration starts: no lock is held while the loop body
// runs, and writes made meanwhile are not seen.
func (x *Indexer[T]) All() iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		x.Snapshot().v.rangeSeq("")(yield)
	}
}

// Range is All restricted to the keys that start with prefix:
// Range("ns/") iterates a namespace.
func (x *Indexer[T]) Range(prefix string) iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		x.Snapshot().v.rangeSeq(prefix)(yield)
	}
}

// ByIndex returns the objects whose index name includes value, ordered by
// key. An unknown index yields an error wrapping ErrUnknownIndex.
func (x *Indexer[T]) ByIndex(name, value string) (out []T, err error) {
	x.ordered(func(v *view[T]) { out, err = v.byIndex(name, value) })
	return out, err
}

// IndexLen returns how many objects ByIndex(name, value) would return,
// without collecting them: a caller that needs only the size of a bucket
// (a controller checking what it counted) reads it in time proportional
// to the bucket's leaves, allocating nothing. An unknown index yields an
// error wrapping ErrUnknownIndex.
func (x *Indexer[T]) IndexLen(name, value string) (n int, err error) {
	x.ordered(func(v *view[T]) { n, err = v.indexLen(name, value) })
	return n, err
}

// IndexKeys returns the keys of the objects whose index name includes
// value, in order. An unknown index yields an error wrapping
// ErrUnknownIndex.
func (x *Indexer[T]) IndexKeys(name, value string) (out []string, err error) {
	x.ordered(func(v *view[T]) { out, err = v.indexKeys(name, value) })
	return out, err
}

// IndexValues returns the values of index name that at least one object
// has, in order. An unknown index yields an error wrapping ErrUnknownIndex.
func (x *Indexer[T]) IndexValues(name string) (out []string, err error) {
	x.ordered(func(v *view[T]) { out, err = v.indexValues(name) })
	return out, err
}

// Index returns the objects that share at least one value of index name
// with obj, ordered by key and without duplicates. The index func runs on
// obj under the Indexer's lock. An unknown index yields an error wrapping
// ErrUnknownIndex; a failing index func, one wrapping ErrIndexFunc.
func (x *Indexer[T]) Index(name string, obj T) (out []T, err error) {
	x.ordered(func(v *view[T]) { out, err = v.indexOf(name, obj, x.keyFunc) })
	return out, err
}
