package indexer

import (
	"fmt"
	"iter"
	"slices"
	"strings"
)

// index is one named index: for every value its func returns, a group of
// (key, object) entries in its tree.
type index[T any] struct {
	name string
	fn   IndexFunc[T]
	tree *leafTree[T]
}

// values calls the index func on obj, turning an error or a panic into an
// error that names the index and the key.
func (ix *index[T]) values(obj T, key string) (vals []string, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = fmt.Errorf("%w: index %q, key %q: panic: %w", ErrIndexFunc, ix.name, key, e)
			} else {
				err = fmt.Errorf("%w: index %q, key %q: panic: %v", ErrIndexFunc, ix.name, key, r)
			}
		}
	}()
	vals, err = ix.fn(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: index %q, key %q: %w", ErrIndexFunc, ix.name, key, err)
	}
	return vals, nil
}

// dup reports whether vals[i] also occurs before i: index funcs may return
// a value twice, and each value is indexed once.
func dup(vals []string, i int) bool {
	return slices.Contains(vals[:i], vals[i])
}

// view is the state every read works on: the store, the indexes and the
// version. The Indexer's view changes under its lock; a Snapshot's view is
// a clone that never changes.
type view[T any] struct {
	items   *leafTree[T]
	indexes []index[T] // sorted by name; replaced, never modified in place
	rv      string
}

// clone returns an immutable copy of v in O(number of indexes).
func (v *view[T]) clone() view[T] {
	c := view[T]{items: v.items.clone(), indexes: make([]index[T], len(v.indexes)), rv: v.rv}
	for i, ix := range v.indexes {
		c.indexes[i] = index[T]{name: ix.name, fn: ix.fn, tree: ix.tree.clone()}
	}
	return c
}

func (v *view[T]) index(name string) (*index[T], error) {
	for i := range v.indexes {
		if v.indexes[i].name == name {
			return &v.indexes[i], nil
		}
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownIndex, name)
}

func (v *view[T]) get(key string) (obj T, ok bool) {
	if c, ok := v.items.get("", key); ok {
		return c.obj, true
	}
	return obj, false
}

func (v *view[T]) list() []T {
	out := make([]T, 0, v.items.n)
	v.items.ascend("", "", func(c *cell[T]) bool {
		out = append(out, c.obj)
		return true
	})
	return out
}

func (v *view[T]) listKeys() []string {
	out := make([]string, 0, v.items.n)
	v.items.ascend("", "", func(c *cell[T]) bool {
		out = append(out, c.key)
		return true
	})
	return out
}

func (v *view[T]) byIndex(name, value string) ([]T, error) {
	ix, err := v.index(name)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, ix.tree.count(value))
	ix.tree.ascend(value, "", func(c *cell[T]) bool {
		out = append(out, c.obj)
		return true
	})
	return out, nil
}

func (v *view[T]) indexLen(name, value string) (int, error) {
	ix, err := v.index(name)
	if err != nil {
		return 0, err
	}
	return ix.tree.count(value), nil
}

func (v *view[T]) indexKeys(name, value string) ([]string, error) {
	ix, err := v.index(name)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, ix.tree.count(value))
	ix.tree.ascend(value, "", func(c *cell[T]) bool {
		out = append(out, c.key)
		return true
	})
	return out, nil
}

func (v *view[T]) indexValues(name string) ([]string, error) {
	ix, err := v.index(name)
	if err != nil {
		return nil, err
	}
	var out []string
	ix.tree.groups(func(value string) bool {
		out = append(out, value)
		return true
	})
	return out, nil
}

// indexOf returns the objects that share at least one value of index name
// with obj, ordered by key.
func (v *view[T]) indexOf(name string, obj T, keyFunc func(T) string) ([]T, error) {
	ix, err := v.index(name)
	if err != nil {
		return nil, err
	}
	key, _ := callKey(keyFunc, obj) // only for error messages
	vals, err := ix.values(obj, key)
	if err != nil {
		return nil, err
	}
	switch len(vals) {
	case 0:
		return []T{}, nil
	case 1:
		return v.byIndex(name, vals[0])
	}
	type hit struct {
		key string
		obj T
	}
	var hits []hit
	for i, value := range vals {
		if dup(vals, i) {
			continue
		}
		ix.tree.ascend(value, "", func(c *cell[T]) bool {
			hits = append(hits, hit{c.key, c.obj})
			return true
		})
	}
	slices.SortFunc(hits, func(a, b hit) int { return strings.Compare(a.key, b.key) })
	hits = slices.CompactFunc(hits, func(a, b hit) bool { return a.key == b.key })
	out := make([]T, len(hits))
	for i, h := range hits {
		out[i] = h.obj
	}
	return out, nil
}

// rangeSeq iterates the entries whose key starts with prefix.
func (v *view[T]) rangeSeq(prefix string) iter.Seq2[string, T] {
	return func(yield func(string, T) bool) {
		v.items.ascend("", prefix, func(c *cell[T]) bool {
			if !strings.HasPrefix(c.key, prefix) {
				return false
			}
			return yield(c.key, c.obj)
		})
	}
}

// Snapshot is an immutable, consistent view of an Indexer's objects and
// indexes as they were when Indexer.Snapshot was called. Taking one costs
// O(number of indexes) once the changes made since the last ordered read
// are folded in: the store and the indexes are copy-on-write, so a
// snapshot shares everything with the Indexer until the Indexer is
// written, and each write then copies only the few nodes and the cell it
// touches.
//
// A Snapshot is safe for concurrent use and takes no lock: writers of the
// Indexer never wait for it. Like the Indexer, it holds the caller's
// objects, not copies; they must not be modified.
type Snapshot[T any] struct {
	v       view[T]
	keyFunc func(T) string
}

// Get returns the object stored under key.
func (s *Snapshot[T]) Get(key string) (T, bool) { return s.v.get(key) }

// List returns every object, ordered by key.
func (s *Snapshot[T]) List() []T { return s.v.list() }

// ListKeys returns every key, in order.
func (s *Snapshot[T]) ListKeys() []string { return s.v.listKeys() }

// Len returns the number of objects.
func (s *Snapshot[T]) Len() int { return s.v.items.n }

// All iterates over every (key, object), ordered by key.
func (s *Snapshot[T]) All() iter.Seq2[string, T] { return s.v.rangeSeq("") }

// Range iterates over the (key, object) pairs whose key starts with
// prefix, ordered by key: Range("ns/") lists a namespace.
func (s *Snapshot[T]) Range(prefix string) iter.Seq2[string, T] { return s.v.rangeSeq(prefix) }

// ByIndex returns the objects whose index name includes value, ordered
// by key. An unknown index yields an error wrapping ErrUnknownIndex.
func (s *Snapshot[T]) ByIndex(name, value string) ([]T, error) { return s.v.byIndex(name, value) }

// IndexLen returns how many objects ByIndex(name, value) would return
// (Indexer.IndexLen).
func (s *Snapshot[T]) IndexLen(name, value string) (int, error) { return s.v.indexLen(name, value) }

// IndexKeys returns the keys of the objects whose index name includes
// value, in order. An unknown index yields an error wrapping
// ErrUnknownIndex.
func (s *Snapshot[T]) IndexKeys(name, value string) ([]string, error) {
	return s.v.indexKeys(name, value)
}

// IndexValues returns the values of index name that at least one object
// has, in order. An unknown index yields an error wrapping ErrUnknownIndex.
func (s *Snapshot[T]) IndexValues(name string) ([]string, error) { return s.v.indexValues(name) }

// Index returns the objects that share at least one value of index name
// with obj (whose values the index func computes), ordered by key and
// without duplicates. An unknown index yields an error wrapping
// ErrUnknownIndex; a failing index func, one wrapping ErrIndexFunc.
func (s *Snapshot[T]) Index(name string, obj T) ([]T, error) {
	return s.v.indexOf(name, obj, s.keyFunc)
}

// LastSyncResourceVersion returns the resourceVersion of the last Replace
// or Bookmark applied before the snapshot was taken.
func (s *Snapshot[T]) LastSyncResourceVersion() string { return s.v.rv }
