package indexer

import (
	"math"
	"slices"

	"github.com/google/btree"
)

// Tunables of the sequence layout. Tests lower them so that small inputs
// exercise splits, merges and multi-level fence trees.
var (
	// leafMax is the most entries a leaf holds.
	leafMax = 128
	// fenceDegree is the degree of the google/btree that orders the leaves.
	fenceDegree = 32
)

// frozenGen is the generation of a cloned (read-only) seq: no leaf ever has
// it, so a frozen seq could never mutate a shared leaf in place.
const frozenGen = math.MaxUint64

// seq is an ordered set of (group, key) -> V entries: the storage of the
// store (one group, "") and of every index (one group per index value).
//
// It is a B+tree whose leaf level is ours and whose inner levels are a
// google/btree of fences. A leaf holds up to max sorted entries of a single
// group in two parallel slices; its fence (group, lo) is a lower bound of
// its keys, and the leaves of a group partition the key space in fence
// order: a key belongs to the leaf with the greatest fence <= (group, key).
//
// Owning the leaves keeps memory close to the raw entry size: sorted
// inserts fill leaves completely (a full leaf is never split by an append
// at its end), capacities grow in steps of 1.25x up to max, and sparse
// leaves merge with their successor.
//
// Copy-on-write: clone shares every node and leaf with the clone and bumps
// the live generation; a leaf whose generation is not the live one is
// copied before it is written, and the btree copies its own nodes lazily.
// A seq is not safe for concurrent use; a clone is immutable and may be
// read concurrently.
type seq[V any] struct {
	tree *btree.BTreeG[fence[V]]
	gen  uint64 // leaves with this generation may be written in place
	n    int    // number of entries
	max  int    // most entries per leaf
}

// leaf is a run of entries of one group, sorted by key.
type leaf[V any] struct {
	gen  uint64
	keys []string
	vals []V // len(vals) == len(keys), cap(vals) == cap(keys)
}

// fence is the btree item that orders a leaf. pg and pl cache the first
// eight bytes of grp and lo so that most comparisons are decided without
// touching the strings' bytes (cache misses dominate a lookup).
type fence[V any] struct {
	pg, pl  uint64
	grp, lo string
	l       *leaf[V]
}

// mkFence returns the fence (grp, lo) of l; l may be nil for a probe.
func mkFence[V any](grp, lo string, l *leaf[V]) fence[V] {
	return fence[V]{pg: prefix8(grp), pl: prefix8(lo), grp: grp, lo: lo, l: l}
}

// prefix8 returns the first eight bytes of s, zero-padded, big-endian:
// prefix8(a) < prefix8(b) implies a < b, and equal prefixes decide
// nothing unless both strings are equally long and at most eight bytes.
func prefix8(s string) uint64 {
	if len(s) >= 8 {
		return uint64(s[7]) | uint64(s[6])<<8 | uint64(s[5])<<16 | uint64(s[4])<<24 |
			uint64(s[3])<<32 | uint64(s[2])<<40 | uint64(s[1])<<48 | uint64(s[0])<<56
	}
	var p uint64
	for i := range 8 {
		p <<= 8
		if i < len(s) {
			p |= uint64(s[i])
		}
	}
	return p
}

func fenceLess[V any](a, b fence[V]) bool {
	if a.pg != b.pg {
		return a.pg < b.pg
	}
	if (len(a.grp) > 8 || len(a.grp) != len(b.grp)) && a.grp != b.grp {
		return a.grp < b.grp
	}
	if a.pl != b.pl {
		return a.pl < b.pl
	}
	return a.lo < b.lo
}

func newSeq[V any]() *seq[V] {
	return &seq[V]{tree: btree.NewG(fenceDegree, fenceLess[V]), max: leafMax}
}

// search returns the position of key in keys, or where it would go.
func search(keys []string, key string) (int, bool) {
	lo, hi := 0, len(keys)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keys[m] < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(keys) && keys[lo] == key
}

// floor returns the fence of the leaf of grp that key belongs to, if grp
// has a leaf whose fence is <= key.
func (s *seq[V]) floor(grp, key string) (f fence[V], ok bool) {
	s.tree.DescendLessOrEqual(mkFence[V](grp, key, nil), func(x fence[V]) bool {
		f, ok = x, x.grp == grp
		return false
	})
	return f, ok
}

// ceil returns the first fence >= (grp, key) if it belongs to grp.
func (s *seq[V]) ceil(grp, key string) (f fence[V], ok bool) {
	s.tree.AscendGreaterOrEqual(mkFence[V](grp, key, nil), func(x fence[V]) bool {
		f, ok = x, x.grp == grp
		return false
	})
	return f, ok
}

// next returns the fence after f if it belongs to the same group.
func (s *seq[V]) next(f fence[V]) (n fence[V], ok bool) {
	s.tree.AscendGreaterOrEqual(f, func(x fence[V]) bool {
		if x.lo == f.lo && x.grp == f.grp {
			return true
		}
		n, ok = x, x.grp == f.grp
		return false
	})
	return n, ok
}

// get returns the value stored under (grp, key).
func (s *seq[V]) get(grp, key string) (v V, ok bool) {
	f, ok := s.floor(grp, key)
	if !ok {
		return v, false
	}
	i, found := search(f.l.keys, key)
	if !found {
		return v, false
	}
	return f.l.vals[i], true
}

// room returns the capacity to allocate for n entries: steps of 1.25x
// keep the spare room of a leaf small.
func room(n, max int) int {
	return min(max, n+n/4+1)
}

// alloc returns a slice of length n holding a copy of src (len(src) <= n)
// with capacity at least c, rounded up to the allocator's size class so
// that the rounding is usable room rather than waste.
func alloc[E any](src []E, n, c int) []E {
	out := slices.Grow([]E(nil), c)[:n]
	copy(out, src)
	return out
}

// newLeaf returns an owned leaf holding copies of keys and vals with room
// for a little growth.
func (s *seq[V]) newLeaf(keys []string, vals []V) *leaf[V] {
	c := room(len(keys), s.max)
	return &leaf[V]{gen: s.gen, keys: alloc(keys, len(keys), c), vals: alloc(vals, len(vals), c)}
}

// own returns f's leaf, writable: a leaf shared with a clone is copied
// first and the copy replaces it in the tree.
func (s *seq[V]) own(f *fence[V]) *leaf[V] {
	if f.l.gen == s.gen {
		return f.l
	}
	l := &leaf[V]{
		gen:  s.gen,
		keys: alloc(f.l.keys, len(f.l.keys), cap(f.l.keys)),
		vals: alloc(f.l.vals, len(f.l.vals), cap(f.l.vals)),
	}
	f.l = l
	s.tree.ReplaceOrInsert(*f)
	return l
}

// insertAt inserts (key, v) at position i of an owned leaf that has room.
func (l *leaf[V]) insertAt(i int, key string, v V, max int) {
	if len(l.keys) == cap(l.keys) {
		l.keys = alloc(l.keys, len(l.keys), room(len(l.keys)+1, max))
	}
	if len(l.vals) == cap(l.vals) {
		l.vals = alloc(l.vals, len(l.vals), room(len(l.vals)+1, max))
	}
	l.keys = l.keys[:len(l.keys)+1]
	copy(l.keys[i+1:], l.keys[i:])
	l.keys[i] = key
	l.vals = l.vals[:len(l.vals)+1]
	copy(l.vals[i+1:], l.vals[i:])
	l.vals[i] = v
}

// removeAt removes the entry at position i of an owned leaf.
func (l *leaf[V]) removeAt(i int) {
	var zero V
	n := len(l.keys) - 1
	copy(l.keys[i:], l.keys[i+1:])
	l.keys[n] = ""
	l.keys = l.keys[:n]
	copy(l.vals[i:], l.vals[i+1:])
	l.vals[n] = zero
	l.vals = l.vals[:n]
}

// addLeaf adds a leaf holding the single entry (key, v), fenced at key.
func (s *seq[V]) addLeaf(grp, key string, v V) {
	l := &leaf[V]{gen: s.gen, keys: alloc([]string{key}, 1, 4), vals: alloc([]V{v}, 1, 4)}
	s.tree.ReplaceOrInsert(mkFence(grp, key, l))
}

// set stores v under (grp, key). When the key is already present it keeps
// the stored key string and returns it with the value it replaced;
// otherwise it returns key.
func (s *seq[V]) set(grp, key string, v V) (stored string, old V, replaced bool) {
	f, ok := s.floor(grp, key)
	if !ok {
		// key sorts before every leaf of grp.
		s.n++
		f, ok = s.ceil(grp, key)
		if !ok || len(f.l.keys) >= s.max {
			s.addLeaf(grp, key, v)
			return key, old, false
		}
		// Lower the first leaf's fence to key and prepend.
		s.tree.Delete(f)
		if f.l.gen != s.gen {
			f.l = s.newLeaf(f.l.keys, f.l.vals)
		}
		f.lo, f.pl = key, prefix8(key)
		f.l.insertAt(0, key, v, s.max)
		s.tree.ReplaceOrInsert(f)
		return key, old, false
	}
	i, found := search(f.l.keys, key)
	if found {
		l := s.own(&f)
		old, l.vals[i] = l.vals[i], v
		return l.keys[i], old, true
	}
	s.n++
	if len(f.l.keys) < s.max {
		s.own(&f).insertAt(i, key, v, s.max)
		return key, old, false
	}
	if i == len(f.l.keys) {
		// Appending past a full leaf: start a new one, so that inserts in
		// key order leave full leaves behind.
		s.addLeaf(grp, key, v)
		return key, old, false
	}
	// Split a full leaf in halves (fresh leaves: a clone may share f.l).
	mid := len(f.l.keys) / 2
	left := s.newLeaf(f.l.keys[:mid], f.l.vals[:mid])
	right := s.newLeaf(f.l.keys[mid:], f.l.vals[mid:])
	if i < mid {
		left.insertAt(i, key, v, s.max)
	} else {
		right.insertAt(i-mid, key, v, s.max)
	}
	f.l = left
	s.tree.ReplaceOrInsert(f)
	s.tree.ReplaceOrInsert(mkFence(grp, right.keys[0], right))
	return key, old, false
}

// del removes (grp, key) and returns the value it held.
func (s *seq[V]) del(grp, key string) (old V, ok bool) {
	f, ok := s.floor(grp, key)
	if !ok {
		return old, false
	}
	i, found := search(f.l.keys, key)
	if !found {
		return old, false
	}
	old = f.l.vals[i]
	s.n--
	if len(f.l.keys) == 1 {
		s.tree.Delete(f)
		return old, true
	}
	l := s.own(&f)
	l.removeAt(i)
	if len(l.keys) <= s.max/4 {
		s.compact(f)
	}
	return old, true
}

// compact merges the sparse, owned leaf of f with its successor when the
// result is at most half full, and otherwise returns spare capacity.
func (s *seq[V]) compact(f fence[V]) {
	l := f.l
	if n, ok := s.next(f); ok && len(l.keys)+len(n.l.keys) <= s.max/2 {
		m := s.newLeaf(append(l.keys, n.l.keys...), append(l.vals, n.l.vals...))
		s.tree.Delete(n)
		f.l = m
		s.tree.ReplaceOrInsert(f)
		return
	}
	if cap(l.keys) > 2*len(l.keys)+8 {
		c := s.newLeaf(l.keys, l.vals)
		l.keys, l.vals = c.keys, c.vals
	}
}

// ascend calls yield for the entries of grp with key >= from, in key
// order, until yield returns false. It reports whether yield always
// returned true.
func (s *seq[V]) ascend(grp, from string, yield func(string, V) bool) bool {
	start := mkFence[V](grp, from, nil)
	if f, ok := s.floor(grp, from); ok {
		start = f
	}
	first, done := true, true
	s.tree.AscendGreaterOrEqual(start, func(f fence[V]) bool {
		if f.grp != grp {
			return false
		}
		keys, vals := f.l.keys, f.l.vals
		i := 0
		if first {
			i, _ = search(keys, from)
			first = false
		}
		for ; i < len(keys); i++ {
			if !yield(keys[i], vals[i]) {
				done = false
				return false
			}
		}
		return true
	})
	return done
}

// count returns the number of entries of grp.
func (s *seq[V]) count(grp string) int {
	n := 0
	s.tree.AscendGreaterOrEqual(mkFence[V](grp, "", nil), func(f fence[V]) bool {
		if f.grp != grp {
			return false
		}
		n += len(f.l.keys)
		return true
	})
	return n
}

// groups calls yield for every group that has an entry, in order.
func (s *seq[V]) groups(yield func(string) bool) {
	prev, seen := "", false
	s.tree.Ascend(func(f fence[V]) bool {
		if seen && f.grp == prev {
			return true
		}
		prev, seen = f.grp, true
		return yield(f.grp)
	})
}

// groupsOf returns every group that holds key. It visits each leaf once:
// the slow path that repairs an index whose old values are unknown.
func (s *seq[V]) groupsOf(key string) []string {
	var out []string
	s.tree.Ascend(func(f fence[V]) bool {
		if _, found := search(f.l.keys, key); found {
			if len(out) == 0 || out[len(out)-1] != f.grp {
				out = append(out, f.grp)
			}
		}
		return true
	})
	return out
}

// clone returns an immutable copy in O(1); later writes to s copy the
// leaves and nodes they touch.
func (s *seq[V]) clone() *seq[V] {
	c := &seq[V]{tree: s.tree.Clone(), gen: frozenGen, n: s.n, max: s.max}
	s.gen++
	return c
}

// entry is one (group, key) -> v input of buildSeq.
type entry[V any] struct {
	grp, key string
	v        V
}

// buildSeq builds a seq from entries sorted by (grp, key) without
// duplicates, filling leaves to 7/8 so that a few inserts fit before a
// leaf splits.
func buildSeq[V any](es []entry[V]) *seq[V] {
	s := newSeq[V]()
	fill := max(1, s.max*7/8)
	keys := make([]string, 0, s.max)
	vals := make([]V, 0, s.max)
	flush := func(grp string) { // keys is never empty here
		l := &leaf[V]{gen: s.gen, keys: alloc(keys, len(keys), len(keys)), vals: alloc(vals, len(vals), len(vals))}
		s.tree.ReplaceOrInsert(mkFence(grp, l.keys[0], l))
		keys, vals = keys[:0], vals[:0]
	}
	for i, e := range es {
		if i > 0 && (e.grp != es[i-1].grp || len(keys) == fill) {
			flush(es[i-1].grp)
		}
		keys = append(keys, e.key)
		vals = append(vals, e.v)
	}
	if len(es) > 0 {
		flush(es[len(es)-1].grp)
	}
	s.n = len(es)
	return s
}
