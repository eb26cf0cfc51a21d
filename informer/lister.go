package informer

import (
	"iter"

	"github.com/ctrlkit/ctrlkit/indexer"
)

// Lister is a read-only view of an informer's cache. The objects it
// returns are shared with the cache and with every handler: they must not
// be mutated (copy an object before changing it; Options.MutationCheck
// detects offenders in tests). A Lister is a small value, safe for
// concurrent use; its zero value is not usable.
type Lister[T any] struct {
	idx *indexer.Indexer[T]
}

// Get returns the object cached under key.
func (l Lister[T]) Get(key string) (T, bool) { return l.idx.Get(key) }

// List returns the cached objects for which filter returns true (every
// object if filter is nil), ordered by key. filter runs on a snapshot, with
// no lock held.
func (l Lister[T]) List(filter func(T) bool) []T {
	var out []T
	for _, obj := range l.idx.All() {
		if filter == nil || filter(obj) {
			out = append(out, obj)
		}
	}
	return out
}

// All iterates over a snapshot of the cache, ordered by key.
func (l Lister[T]) All() iter.Seq2[string, T] { return l.idx.All() }

// ByIndex returns the objects whose index name contains value, ordered by
// key; an error if no index is called name.
func (l Lister[T]) ByIndex(name, value string) ([]T, error) { return l.idx.ByIndex(name, value) }

// Range iterates over a snapshot of the cached objects whose keys start
// with prefix, ordered by key: with namespace/name keys, Range("ns/") is
// one namespace.
func (l Lister[T]) Range(prefix string) iter.Seq2[string, T] { return l.idx.Range(prefix) }

// IndexLen returns how many objects ByIndex(name, value) would return,
// without collecting them; an error if no index is called name.
func (l Lister[T]) IndexLen(name, value string) (int, error) { return l.idx.IndexLen(name, value) }

// IndexKeys returns the keys of the objects whose index name contains
// value, ordered; an error if no index is called name.
func (l Lister[T]) IndexKeys(name, value string) ([]string, error) {
	return l.idx.IndexKeys(name, value)
}

// IndexValues returns the values index name holds, ordered; an error if
// no index is called name.
func (l Lister[T]) IndexValues(name string) ([]string, error) { return l.idx.IndexValues(name) }

// Len returns the number of cached objects.
func (l Lister[T]) Len() int { return l.idx.Len() }

// Namespace returns the view of one namespace, for objects keyed
// "namespace/name" (client-go's MetaNamespaceKeyFunc; api.Key in
// controllers/api): what client-go's generated Foos(namespace) listers
// give, generic. ns "" is every namespace (metav1.NamespaceAll), and
// Get then takes the whole key. The view reads a prefix range of the
// ordered cache, so List costs O(log n + k) for k objects in the
// namespace, as an index lookup does, with no index to register.
func (l Lister[T]) Namespace(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{l: l, ns: ns}
}

// NamespaceLister is the read-only view of one namespace of a cache whose
// keys are "namespace/name". See Lister.Namespace.
type NamespaceLister[T any] struct {
	l  Lister[T]
	ns string
}

// Get returns the object named name in the namespace.
func (n NamespaceLister[T]) Get(name string) (T, bool) {
	if n.ns == "" {
		return n.l.Get(name)
	}
	return n.l.Get(n.ns + "/" + name)
}

// List returns the namespace's objects for which filter returns true
// (every object if filter is nil), ordered by key. A label selector is a
// filter: func(p *api.Pod) bool { return sel.Matches(p.Labels) }.
func (n NamespaceLister[T]) List(filter func(T) bool) []T {
	var out []T
	for _, obj := range n.All() {
		if filter == nil || filter(obj) {
			out = append(out, obj)
		}
	}
	return out
}

// All iterates over a snapshot of the namespace, ordered by key.
func (n NamespaceLister[T]) All() iter.Seq2[string, T] {
	if n.ns == "" {
		return n.l.All()
	}
	return n.l.Range(n.ns + "/")
}
