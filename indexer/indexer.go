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
// and safe for concurrent use (Replace and Index call it without the
// write lock).
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

	mu   sync.RWMutex
	live view[T]      // guarded by mu
	snap *Snapshot[T] // guarded by mu: a snapshot of live, nil once live changes
	vals [][]string   // guarded by mu: scratch for the new index values of a write
}

// New returns an empty Indexer that keys objects with keyFunc and
// maintains the given indexes. A nil keyFunc or a nil index func is an
// error.
func New[T any](keyFunc func(T) string, indexers Indexers[T]) (*Indexer[T], error) {
	if keyFunc == nil {
		return nil, errors.New("indexer: nil key func")
	}
	x := &Indexer[T]{keyFunc: keyFunc, live: view[T]{items: newSeq[T]()}}
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
func (x *Indexer[T]) Add(obj T) error { return x.upsert(obj) }

// Update is Add.
func (x *Indexer[T]) Update(obj T) error { return x.upsert(obj) }

func (x *Indexer[T]) upsert(obj T) error {
	key, err := callKey(x.keyFunc, obj)
	if err != nil {
		return err
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	ixs := x.live.indexes
	// Compute every new index value before changing anything.
	vals := x.vals[:0]
	defer func() { clear(vals); x.vals = vals[:0] }()
	for i := range ixs {
		v, err := ixs[i].values(obj, key)
		if err != nil {
			return err
		}
		vals = append(vals, v)
	}
	key, old, replaced := x.live.items.set("", key, obj)
	x.snap = nil
	for i := range ixs {
		ix := &ixs[i]
		if replaced {
			ix.unindex(old, key, vals[i])
		}
		// Set, not insert: when the values did not change, the entries
		// are still there and only their object changes.
		for j, v := range vals[i] {
			if !dup(vals[i], j) {
				ix.seq.set(v, key, obj)
			}
		}
	}
	return nil
}

// unindex removes the entries of old (stored under key) from ix, unless
// old's values equal keep (the values old is about to be indexed under
// again), in which case it changes nothing. If the index func now fails on
// old, or an entry is missing (an index func that is not deterministic, or
// a stored object modified in place), it finds the key's entries by a scan
// of the index instead, so that no stale entry survives.
func (ix *index[T]) unindex(old T, key string, keep []string) {
	ov, err := ix.values(old, key)
	if err == nil {
		if slices.Equal(ov, keep) {
			return
		}
		missing := false
		for j, v := range ov {
			if !dup(ov, j) {
				_, ok := ix.seq.del(v, key)
				missing = missing || !ok
			}
		}
		if !missing {
			return
		}
	}
	for _, v := range ix.seq.groupsOf(key) {
		ix.seq.del(v, key)
	}
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
	x.mu.Lock()
	defer x.mu.Unlock()
	old, ok := x.live.items.del("", key)
	if !ok {
		return nil
	}
	x.snap = nil
	for i := range x.live.indexes {
		x.live.indexes[i].unindex(old, key, nil)
	}
	return nil
}

// Replace atomically replaces the whole contents with items and records
// rv as the LastSyncResourceVersion; the indexes are rebuilt. When two
// items share a key, the later one wins. If the key func or an index func
// fails on any item, Replace changes nothing and returns the error.
func (x *Indexer[T]) Replace(items []T, rv string) error {
	es := make([]entry[T], len(items))
	for i, obj := range items {
		key, err := callKey(x.keyFunc, obj)
		if err != nil {
			return err
		}
		es[i] = entry[T]{key: key, v: obj}
	}
	slices.SortStableFunc(es, func(a, b entry[T]) int { return strings.Compare(a.key, b.key) })
	// Keep the last of each run of equal keys.
	w := 0
	for i := range es {
		if i+1 < len(es) && es[i+1].key == es[i].key {
			continue
		}
		es[w] = es[i]
		w++
	}
	clear(es[w:])
	es = es[:w]

	store := buildSeq(es)
	// Build outside the lock, so that readers are not held up by a large
	// relist; start again if AddIndexers changed the indexes meanwhile.
	for {
		x.mu.RLock()
		cur := x.live.indexes
		x.mu.RUnlock()
		ixs := make([]index[T], len(cur))
		for i, ix := range cur {
			s, err := buildIndex(&ix, es)
			if err != nil {
				return err
			}
			ixs[i] = index[T]{name: ix.name, fn: ix.fn, seq: s}
		}
		x.mu.Lock()
		if len(x.live.indexes) == len(cur) && (len(cur) == 0 || &x.live.indexes[0] == &cur[0]) {
			x.live = view[T]{items: store, indexes: ixs, rv: rv}
			x.snap = nil
			x.mu.Unlock()
			return nil
		}
		x.mu.Unlock()
	}
}

// buildIndex computes ix over es (sorted by key, without duplicates).
func buildIndex[T any](ix *index[T], es []entry[T]) (*seq[T], error) {
	pairs := make([]entry[T], 0, len(es))
	for _, e := range es {
		vals, err := ix.values(e.v, e.key)
		if err != nil {
			return nil, err
		}
		for j, v := range vals {
			if !dup(vals, j) {
				pairs = append(pairs, entry[T]{grp: v, key: e.key, v: e.v})
			}
		}
	}
	// es is sorted by key, so a stable sort by value sorts by (value, key).
	slices.SortStableFunc(pairs, func(a, b entry[T]) int { return strings.Compare(a.grp, b.grp) })
	return buildSeq(pairs), nil
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
	var es []entry[T]
	if x.live.items.n > 0 {
		es = make([]entry[T], 0, x.live.items.n)
		x.live.items.ascend("", "", func(key string, obj T) bool {
			es = append(es, entry[T]{key: key, v: obj})
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
		s, err := buildIndex(&ix, es)
		if err != nil {
			return err
		}
		ix.seq = s
		ixs = append(ixs, ix)
	}
	slices.SortFunc(ixs, func(a, b index[T]) int { return cmp.Compare(a.name, b.name) })
	x.live.indexes = ixs
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
// indexes in O(number of indexes). Until the next write, repeated calls
// return the same snapshot.
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
		x.snap = &Snapshot[T]{v: x.live.clone(), keyFunc: x.keyFunc}
	}
	return x.snap
}

// Get returns the object stored under key.
func (x *Indexer[T]) Get(key string) (T, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.get(key)
}

// List returns every object, ordered by key.
func (x *Indexer[T]) List() []T {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.list()
}

// ListKeys returns every key, in order.
func (x *Indexer[T]) ListKeys() []string {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.listKeys()
}

// Len returns the number of objects.
func (x *Indexer[T]) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.items.n
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
func (x *Indexer[T]) ByIndex(name, value string) ([]T, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.byIndex(name, value)
}

// IndexKeys returns the keys of the objects whose index name includes
// value, in order. An unknown index yields an error wrapping
// ErrUnknownIndex.
func (x *Indexer[T]) IndexKeys(name, value string) ([]string, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.indexKeys(name, value)
}

// IndexValues returns the values of index name that at least one object
// has, in order. An unknown index yields an error wrapping ErrUnknownIndex.
func (x *Indexer[T]) IndexValues(name string) ([]string, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.indexValues(name)
}

// Index returns the objects that share at least one value of index name
// with obj, ordered by key and without duplicates. The index func runs on
// obj under the read lock. An unknown index yields an error wrapping
// ErrUnknownIndex; a failing index func, one wrapping ErrIndexFunc.
func (x *Indexer[T]) Index(name string, obj T) ([]T, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.live.indexOf(name, obj, x.keyFunc)
}
