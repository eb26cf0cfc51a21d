package indexer

import (
	"math"
	"slices"

	"github.com/google/btree"
)

// frozenGen is the generation of a cloned (read-only) tree: no leaf ever has
// it, so a frozen tree could never mutate a shared leaf in place.
const frozenGen = math.MaxUint64

// leafTree is an ordered set of (group, key) -> cell entries, the key
// being the cell's: the ordered storage of the store (one group, "") and
// of every index (one group per index value).
//
// It is a B+tree whose leaf level is ours and whose inner levels are a
// google/btree of fences (hence the name: a tree of our leaves). A leaf
// holds up to tune.leafMax cells of a single group sorted by key; its
// fence (group, lo) is a lower bound of its keys, and the leaves of a
// group partition the key space in fence order: a key belongs to the leaf
// with the greatest fence <= (group, key).
//
// Owning the leaves keeps memory close to a pointer per entry: sorted
// inserts fill leaves completely (a full leaf is never split by an append
// at its end), capacities grow in steps of 1.25x up to leafMax, and sparse
// leaves merge with their successor.
//
// Copy-on-write: clone shares every node and leaf with the clone and bumps
// the live generation; a leaf whose generation is not the live one is
// copied before it is written, and the btree copies its own nodes lazily.
// A tree is not safe for concurrent use; a clone is immutable and may be
// read concurrently.
type leafTree[T any] struct {
	fences *btree.BTreeG[fence[T]]
	gen    uint64  // leaves with this generation may be written in place
	n      int     // number of entries
	tune   *tuning // leafMax, fenceDegree; mergeRatio for fold
}

// leaf is a run of cells of one group, sorted by key.
type leaf[T any] struct {
	gen uint64
	cs  []*cell[T]
}

// fence is the btree item that orders a leaf. pg and pl cache the first
// eight bytes of grp and lo so that most comparisons are decided without
// touching the strings' bytes (cache misses dominate a lookup).
type fence[T any] struct {
	pg, pl  uint64
	grp, lo string
	l       *leaf[T]
}

// mkFence returns the fence (grp, lo) of l; l may be nil for a probe.
func mkFence[T any](grp, lo string, l *leaf[T]) fence[T] {
	return fence[T]{pg: prefix8(grp), pl: prefix8(lo), grp: grp, lo: lo, l: l}
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

func fenceLess[T any](a, b fence[T]) bool {
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

func newLeafTree[T any](tune *tuning) *leafTree[T] {
	return &leafTree[T]{fences: btree.NewG(tune.fenceDegree, fenceLess[T]), tune: tune}
}

// search returns the position of key in cs, or where it would go.
func search[T any](cs []*cell[T], key string) (int, bool) {
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].key < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(cs) && cs[lo].key == key
}

// floor returns the fence of the leaf of grp that key belongs to, if grp
// has a leaf whose fence is <= key.
func (s *leafTree[T]) floor(grp, key string) (f fence[T], ok bool) {
	s.fences.DescendLessOrEqual(mkFence[T](grp, key, nil), func(x fence[T]) bool {
		f, ok = x, x.grp == grp
		return false
	})
	return f, ok
}

// ceil returns the first fence >= (grp, key) if it belongs to grp.
func (s *leafTree[T]) ceil(grp, key string) (f fence[T], ok bool) {
	s.fences.AscendGreaterOrEqual(mkFence[T](grp, key, nil), func(x fence[T]) bool {
		f, ok = x, x.grp == grp
		return false
	})
	return f, ok
}

// next returns the fence after f if it belongs to the same group.
func (s *leafTree[T]) next(f fence[T]) (n fence[T], ok bool) {
	s.fences.AscendGreaterOrEqual(f, func(x fence[T]) bool {
		if x.lo == f.lo && x.grp == f.grp {
			return true
		}
		n, ok = x, x.grp == f.grp
		return false
	})
	return n, ok
}

// get returns the cell stored under (grp, key).
func (s *leafTree[T]) get(grp, key string) (*cell[T], bool) {
	f, ok := s.floor(grp, key)
	if !ok {
		return nil, false
	}
	i, found := search(f.l.cs, key)
	if !found {
		return nil, false
	}
	return f.l.cs[i], true
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

// newLeaf returns an owned leaf holding a copy of cs with room for a
// little growth.
func (s *leafTree[T]) newLeaf(cs []*cell[T]) *leaf[T] {
	return &leaf[T]{gen: s.gen, cs: alloc(cs, len(cs), room(len(cs), s.tune.leafMax))}
}

// own returns f's leaf, writable: a leaf shared with a clone is copied
// first and the copy replaces it in the tree.
func (s *leafTree[T]) own(f *fence[T]) *leaf[T] {
	if f.l.gen == s.gen {
		return f.l
	}
	l := &leaf[T]{gen: s.gen, cs: alloc(f.l.cs, len(f.l.cs), cap(f.l.cs))}
	f.l = l
	s.fences.ReplaceOrInsert(*f)
	return l
}

// insertAt inserts c at position i of an owned leaf that has room.
func (l *leaf[T]) insertAt(i int, c *cell[T], max int) {
	if len(l.cs) == cap(l.cs) {
		l.cs = alloc(l.cs, len(l.cs), room(len(l.cs)+1, max))
	}
	l.cs = slices.Insert(l.cs, i, c)
}

// removeAt removes the entry at position i of an owned leaf.
func (l *leaf[T]) removeAt(i int) {
	l.cs = slices.Delete(l.cs, i, i+1)
}

// addLeaf adds a leaf holding the single cell c, fenced at its key.
func (s *leafTree[T]) addLeaf(grp string, c *cell[T]) {
	l := &leaf[T]{gen: s.gen, cs: alloc([]*cell[T]{c}, 1, 4)}
	s.fences.ReplaceOrInsert(mkFence(grp, c.key, l))
}

// set stores c under (grp, c.key) and returns the cell it replaced.
func (s *leafTree[T]) set(grp string, c *cell[T]) (old *cell[T], replaced bool) {
	key := c.key
	f, ok := s.floor(grp, key)
	if !ok {
		// key sorts before every leaf of grp.
		s.n++
		f, ok = s.ceil(grp, key)
		if !ok || len(f.l.cs) >= s.tune.leafMax {
			s.addLeaf(grp, c)
			return nil, false
		}
		// Lower the first leaf's fence to key and prepend.
		s.fences.Delete(f)
		if f.l.gen != s.gen {
			f.l = s.newLeaf(f.l.cs)
		}
		f.lo, f.pl = key, prefix8(key)
		f.l.insertAt(0, c, s.tune.leafMax)
		s.fences.ReplaceOrInsert(f)
		return nil, false
	}
	i, found := search(f.l.cs, key)
	if found {
		l := s.own(&f)
		old, l.cs[i] = l.cs[i], c
		return old, true
	}
	s.n++
	if len(f.l.cs) < s.tune.leafMax {
		s.own(&f).insertAt(i, c, s.tune.leafMax)
		return nil, false
	}
	if i == len(f.l.cs) {
		// Appending past a full leaf: start a new one, so that inserts in
		// key order leave full leaves behind.
		s.addLeaf(grp, c)
		return nil, false
	}
	// Split a full leaf in halves (fresh leaves: a clone may share f.l).
	mid := len(f.l.cs) / 2
	left := s.newLeaf(f.l.cs[:mid])
	right := s.newLeaf(f.l.cs[mid:])
	if i < mid {
		left.insertAt(i, c, s.tune.leafMax)
	} else {
		right.insertAt(i-mid, c, s.tune.leafMax)
	}
	f.l = left
	s.fences.ReplaceOrInsert(f)
	s.fences.ReplaceOrInsert(mkFence(grp, right.cs[0].key, right))
	return nil, false
}

// del removes (grp, key) and returns the cell it held.
func (s *leafTree[T]) del(grp, key string) (old *cell[T], ok bool) {
	f, ok := s.floor(grp, key)
	if !ok {
		return nil, false
	}
	i, found := search(f.l.cs, key)
	if !found {
		return nil, false
	}
	old = f.l.cs[i]
	s.n--
	if len(f.l.cs) == 1 {
		s.fences.Delete(f)
		return old, true
	}
	l := s.own(&f)
	l.removeAt(i)
	if len(l.cs) <= s.tune.leafMax/4 {
		s.compact(f)
	}
	return old, true
}

// compact merges the sparse, owned leaf of f with its successor when the
// result is at most half full, and otherwise returns spare capacity.
func (s *leafTree[T]) compact(f fence[T]) {
	l := f.l
	if n, ok := s.next(f); ok && len(l.cs)+len(n.l.cs) <= s.tune.leafMax/2 {
		m := s.newLeaf(append(l.cs, n.l.cs...))
		s.fences.Delete(n)
		f.l = m
		s.fences.ReplaceOrInsert(f)
		return
	}
	if cap(l.cs) > 2*len(l.cs)+8 {
		l.cs = s.newLeaf(l.cs).cs
	}
}

// ascend calls yield for the cells of grp with key >= from, in key order,
// until yield returns false. It reports whether yield always returned
// true.
func (s *leafTree[T]) ascend(grp, from string, yield func(*cell[T]) bool) bool {
	start := mkFence[T](grp, from, nil)
	if f, ok := s.floor(grp, from); ok {
		start = f
	}
	first, done := true, true
	s.fences.AscendGreaterOrEqual(start, func(f fence[T]) bool {
		if f.grp != grp {
			return false
		}
		cs := f.l.cs
		i := 0
		if first {
			i, _ = search(cs, from)
			first = false
		}
		for _, c := range cs[i:] {
			if !yield(c) {
				done = false
				return false
			}
		}
		return true
	})
	return done
}

// count returns the number of entries of grp.
func (s *leafTree[T]) count(grp string) int {
	n := 0
	s.fences.AscendGreaterOrEqual(mkFence[T](grp, "", nil), func(f fence[T]) bool {
		if f.grp != grp {
			return false
		}
		n += len(f.l.cs)
		return true
	})
	return n
}

// groups calls yield for every group that has an entry, in order.
func (s *leafTree[T]) groups(yield func(string) bool) {
	prev, seen := "", false
	s.fences.Ascend(func(f fence[T]) bool {
		if seen && f.grp == prev {
			return true
		}
		prev, seen = f.grp, true
		return yield(f.grp)
	})
}

// clone returns an immutable copy in O(1); later writes to s copy the
// leaves and nodes they touch.
func (s *leafTree[T]) clone() *leafTree[T] {
	c := &leafTree[T]{fences: s.fences.Clone(), gen: frozenGen, n: s.n, tune: s.tune}
	s.gen++
	return c
}

// builder builds a new tree from entries given in (group, key) order
// without duplicates, filling leaves to 7/8 so that a few inserts fit
// before a leaf splits.
type builder[T any] struct {
	s    *leafTree[T]
	fill int
	grp  string
	cs   []*cell[T]
}

func newBuilder[T any](tune *tuning) *builder[T] {
	s := newLeafTree[T](tune)
	return &builder[T]{s: s, fill: max(1, tune.leafMax*7/8), cs: make([]*cell[T], 0, tune.leafMax)}
}

// add appends the entry (grp, c.key) -> c.
func (b *builder[T]) add(grp string, c *cell[T]) {
	if len(b.cs) > 0 && (grp != b.grp || len(b.cs) == b.fill) {
		b.flush()
	}
	b.grp = grp
	b.cs = append(b.cs, c)
}

// addRun appends cells of one group that follow every entry added so far.
func (b *builder[T]) addRun(grp string, cs []*cell[T]) {
	for len(cs) > 0 {
		if len(b.cs) > 0 && (grp != b.grp || len(b.cs) == b.fill) {
			b.flush()
		}
		b.grp = grp
		k := min(len(cs), b.fill-len(b.cs))
		b.cs = append(b.cs, cs[:k]...)
		cs = cs[k:]
	}
}

// adopt appends the entries of l, a leaf of grp that follows every entry
// added so far, taking l itself over when it can: l must not be written
// by its old tree any more, and the new tree copies it before writing it.
func (b *builder[T]) adopt(grp string, l *leaf[T]) {
	switch {
	case len(b.cs) > 0 && grp == b.grp && len(b.cs)+len(l.cs) <= b.s.tune.leafMax:
		// Room for all of it in the leaf being built: this realigns the
		// built leaves with the adopted ones after a change.
		b.cs = append(b.cs, l.cs...)
		if len(b.cs) >= b.fill {
			b.flush()
		}
	case len(b.cs) > 0 && grp == b.grp:
		b.addRun(grp, l.cs)
	default:
		if len(b.cs) > 0 {
			b.flush()
		}
		b.s.fences.ReplaceOrInsert(mkFence(grp, l.cs[0].key, l))
		b.s.n += len(l.cs)
	}
}

func (b *builder[T]) flush() {
	l := &leaf[T]{gen: b.s.gen, cs: alloc(b.cs, len(b.cs), len(b.cs))}
	b.s.fences.ReplaceOrInsert(mkFence(b.grp, l.cs[0].key, l))
	b.s.n += len(b.cs)
	clear(b.cs)
	b.cs = b.cs[:0]
}

// done returns the built tree.
func (b *builder[T]) done() *leafTree[T] {
	if len(b.cs) > 0 {
		b.flush()
	}
	return b.s
}
