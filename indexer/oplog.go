package indexer

import (
	"slices"
	"strings"
)

// Writes reach the hash table at once and the ordered trees lazily: each
// write appends what it changes in a tree to that tree's log, and the log is
// folded into the tree when an ordered read or a snapshot needs the tree, or
// when the log has grown to twice the number of objects (so that churn
// without reads cannot grow it without bound). A fold sorts the changes
// and applies them in one pass over the leaves, instead of one descent of
// the fence tree per change; writes pay a hash lookup and an append.
//
// A logged change costs 12 bytes (8 for an insert into the store), about
// what the entry it becomes costs in a leaf, so a log does not make the
// Indexer much larger than folding at once would.

type opKind uint8

const (
	// opSet: (grp, c.key) holds c.
	opSet opKind = iota
	// opDel: (grp, c.key) holds nothing; it held an entry before.
	opDel
)

// tagKindShift places the kind of a change above its group's index.
const tagKindShift = 31

// oplog is the changes not yet applied to a tree, in log order. A change is
// a cell (the key's; for a delete only its key matters) and a tag: the
// index of its group in grps and its kind. Groups are interned, so that
// the fold buckets changes by group without comparing strings. The
// changes are kept in chunks of up to tune.chunkMax, so that a large log wastes
// at most one chunk's spare room.
type oplog[T any] struct {
	full  []chunk[T] // full chunks, in log order
	cur   chunk[T]   // the chunk being filled
	n     int        // changes logged (in full and cur)
	scans []scan     // opScan records, in log order
	grps  []string   // distinct groups of the changes
	ids   map[string]uint32
	last  uint32  // index of the group used last
	tune  *tuning // chunkMax; foldMin and foldMul for due
}

// newOplog returns an empty log that chunks and comes due by tune.
func newOplog[T any](tune *tuning) oplog[T] { return oplog[T]{tune: tune} }

// chunk holds changes; tags is nil while every tag is 0 (sets of the
// first group: the store's log of inserts, the common case).
type chunk[T any] struct {
	cs   []*cell[T]
	tags []uint32
}

// scan records that whatever entries key has are stale (their values are
// unknown): the changes of key logged from position pos on give its
// entries.
type scan struct {
	key string
	pos int
}

func (l *oplog[T]) add(kind opKind, grp string, c *cell[T]) {
	chunkMax := l.tune.chunkMax
	tag := l.group(grp) | uint32(kind)<<tagKindShift
	if len(l.cur.cs) == cap(l.cur.cs) {
		if len(l.cur.cs) >= chunkMax {
			l.full = append(l.full, l.cur)
			l.cur = chunk[T]{}
		}
		room := min(chunkMax, max(16, 2*len(l.cur.cs))) - len(l.cur.cs)
		l.cur.cs = slices.Grow(l.cur.cs, room)
		if l.cur.tags != nil {
			l.cur.tags = slices.Grow(l.cur.tags, room)
		}
	}
	if tag != 0 && l.cur.tags == nil {
		l.cur.tags = make([]uint32, len(l.cur.cs), cap(l.cur.cs))
	}
	l.cur.cs = append(l.cur.cs, c)
	if l.cur.tags != nil {
		l.cur.tags = append(l.cur.tags, tag)
	}
	l.n++
}

// addScan logs that key's entries are stale.
func (l *oplog[T]) addScan(key string) {
	l.scans = append(l.scans, scan{key: key, pos: l.n})
}

// group returns the index of grp in l.grps, adding it if needed.
func (l *oplog[T]) group(grp string) uint32 {
	if int(l.last) < len(l.grps) && l.grps[l.last] == grp {
		return l.last
	}
	if l.ids == nil {
		l.ids = map[string]uint32{}
	}
	g, ok := l.ids[grp]
	if !ok {
		g = uint32(len(l.grps))
		l.grps = append(l.grps, grp)
		l.ids[grp] = g
	}
	l.last = g
	return g
}

func (l *oplog[T]) empty() bool { return l.n == 0 && len(l.scans) == 0 }

// due reports whether the log should be folded before it grows further,
// for an Indexer holding n objects.
func (l *oplog[T]) due(n int) bool {
	return l.n+len(l.scans) > l.tune.foldMin+l.tune.foldMul*n || l.n >= 1<<tagKindShift-1
}

func (l *oplog[T]) reset() {
	chunkMax := l.tune.chunkMax
	small := l.n <= chunkMax
	l.full = nil
	if small {
		clear(l.cur.cs)
		l.cur.cs, l.cur.tags = l.cur.cs[:0], nil
	} else {
		l.cur = chunk[T]{} // a large log's memory is not kept
	}
	l.n = 0
	l.scans = nil
	clear(l.grps)
	l.grps = l.grps[:0]
	if len(l.ids) > chunkMax {
		l.ids = nil
	} else {
		clear(l.ids)
	}
	l.last = 0
}

// item is a change being sorted; its group is known from its bucket.
type item[T any] struct {
	c   *cell[T]
	w   uint64 // eight bytes of the key: the current sort digit
	pos uint32 // position in the log
	del bool
}

// bucket is the changes of one group.
type bucket[T any] struct {
	grp   string
	items []item[T]
}

// buckets returns the logged changes grouped by group, the groups in
// order, each bucket in log order (a counting sort).
func (l *oplog[T]) buckets() []bucket[T] { return l.bucketsInto(nil) }

// bucketsInto is buckets with the changes placed in buf when it holds at
// least l.n items (else in a new slice).
func (l *oplog[T]) bucketsInto(buf []item[T]) []bucket[T] {
	if l.n == 0 {
		return nil
	}
	chunks := append(l.full, l.cur)
	order := make([]uint32, len(l.grps))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(l.grps[a], l.grps[b]) })
	rank := make([]uint32, len(l.grps))
	for r, g := range order {
		rank[g] = uint32(r)
	}
	const gmask = 1<<tagKindShift - 1
	start := make([]int, len(l.grps)+1)
	for _, ch := range chunks {
		if ch.tags == nil {
			start[rank[0]+1] += len(ch.cs)
		}
		for _, t := range ch.tags {
			start[rank[t&gmask]+1]++
		}
	}
	for r := range order {
		start[r+1] += start[r]
	}
	if len(buf) < l.n {
		buf = make([]item[T], l.n)
	}
	buf = buf[:l.n]
	next := slices.Clone(start[:len(order)])
	pos := uint32(0)
	for _, ch := range chunks {
		for i, c := range ch.cs {
			var t uint32
			if ch.tags != nil {
				t = ch.tags[i]
			}
			r := rank[t&gmask]
			buf[next[r]] = item[T]{c: c, pos: pos, del: t>>tagKindShift != 0}
			next[r]++
			pos++
		}
	}
	out := make([]bucket[T], len(order))
	for r, g := range order {
		out[r] = bucket[T]{grp: l.grps[g], items: buf[start[r]:start[r+1]]}
	}
	return out
}
