package indexer

import (
	"reflect"
	"sync"
)

// The fold: a log's changes, bucketed by group and sorted by key, reduce to
// one net change per entry, applied by a descent per change when they are
// few and by one pass that rebuilds the tree otherwise (see oplog.go).

// op is a net change of the entry (grp, c.key), the result of folding
// every logged change of that entry.
type op[T any] struct {
	grp  string
	c    *cell[T]
	kind opKind // opSet or opDel
	// expect says that the entry was in the tree before the log: a delete
	// that finds nothing reveals a stale index.
	expect bool
}

// fold applies the log to s and empties it. It returns the tree that holds
// the result: s itself, changed (copy-on-write where s shares leaves with
// a snapshot), or a new tree built from s and the log.
func fold[T any](s *leafTree[T], l *oplog[T]) *leafTree[T] {
	if l.empty() {
		return s
	}
	// lastScan: the log position of each scanned key's last scan.
	var lastScan map[string]uint32
	if len(l.scans) > 0 {
		lastScan = make(map[string]uint32, len(l.scans))
		for _, sc := range l.scans {
			lastScan[sc.key] = uint32(sc.pos)
		}
	}
	sc := takeScratch[T](l.n)
	defer sc.give()
	nets := sc.nets[:0]
	for _, bk := range l.bucketsInto(sc.items) {
		grp, b := bk.grp, bk.items
		sortKeysTmp(b, sc.tmp)
		// Reduce the changes of each entry to the net change. Changes of
		// a scanned key logged before its last scan are void: the scan
		// removes whatever they would have left.
		for i := 0; i < len(b); {
			key := b[i].c.key
			j := i + 1
			for j < len(b) && b[j].c.key == key {
				j++
			}
			ls, scanned := lastScan[key]
			first, last := -1, -1
			for k := i; k < j; k++ {
				if scanned && b[k].pos < ls {
					continue
				}
				if first < 0 {
					first = k
				}
				last = k
			}
			if last >= 0 {
				kind := opSet
				if b[last].del {
					kind = opDel
				}
				nets = append(nets, op[T]{grp: grp, c: b[last].c, kind: kind, expect: b[first].del && !scanned})
			}
			i = j
		}
	}

	var missing []string // keys whose expected entry was not there
	if len(nets)*s.tune.mergeRatio < s.n {
		for _, o := range nets {
			if o.kind == opSet {
				s.set(o.grp, o.c)
			} else if _, ok := s.del(o.grp, o.c.key); !ok && o.expect {
				missing = append(missing, o.c.key)
			}
		}
	} else {
		s, missing = merge(s, nets)
	}
	if lastScan != nil || missing != nil {
		rescan(s, nets, lastScan, missing)
	}
	l.reset()
	sc.nets = nets
	return s
}

// foldScratch is the transient memory of a fold of n changes: the
// bucketed changes, the radix sort's scratch and the net changes. Folds
// of a large log come about once per 2n writes; keeping their scratch in
// a sync.Pool between them takes the few hundred bytes per update they
// would allocate off the garbage collector, and a collection frees it
// when folds stop.
type foldScratch[T any] struct {
	items, tmp []item[T]
	nets       []op[T]
	n          int // the changes of the fold using it: items[:n] and tmp[:n] are dirty
}

// scratchMin is the smallest fold whose scratch is pooled; smaller ones
// allocate (and a pool Get would cost more than it saves).
const scratchMin = 1024

// scratchPools holds one sync.Pool of *foldScratch[T] per T.
var scratchPools sync.Map // reflect.Type of *foldScratch[T] -> *sync.Pool

func scratchPool[T any]() *sync.Pool {
	key := reflect.TypeFor[*foldScratch[T]]()
	if p, ok := scratchPools.Load(key); ok {
		return p.(*sync.Pool)
	}
	p, _ := scratchPools.LoadOrStore(key, &sync.Pool{})
	return p.(*sync.Pool)
}

// takeScratch returns scratch for a fold of n changes.
func takeScratch[T any](n int) *foldScratch[T] {
	if n < scratchMin {
		return &foldScratch[T]{nets: make([]op[T], 0, n)}
	}
	sc, _ := scratchPool[T]().Get().(*foldScratch[T])
	if sc == nil {
		sc = &foldScratch[T]{}
	}
	if cap(sc.items) < n {
		sc.items = make([]item[T], n)
		sc.tmp = make([]item[T], n)
		sc.nets = make([]op[T], 0, n)
	}
	sc.items, sc.tmp, sc.n = sc.items[:cap(sc.items)], sc.tmp[:cap(sc.tmp)], n
	return sc
}

// give clears the scratch (it must not keep cells alive) and pools it.
func (sc *foldScratch[T]) give() {
	if cap(sc.items) < scratchMin {
		return
	}
	clear(sc.items[:sc.n])
	clear(sc.tmp[:sc.n])
	clear(sc.nets)
	sc.nets = sc.nets[:0]
	scratchPool[T]().Put(sc)
}

// merge returns a new tree holding s's entries changed by nets (net
// changes sorted by entry), built in one pass over s's leaves; and the
// keys of expected entries that were missing. A leaf that no change falls
// in is taken over as it is (it stays shared with s, so a later write
// copies it), and its cells are not touched.
func merge[T any](s *leafTree[T], nets []op[T]) (*leafTree[T], []string) {
	m := mergeCursor[T]{nets: nets, b: newBuilder[T](s.tune)}
	// Above every generation of s's leaves: adopted leaves count as
	// shared, and are copied before they are written.
	m.b.s.gen = s.gen + 1
	var prev fence[T]
	have := false
	s.fences.Ascend(func(f fence[T]) bool {
		if have {
			m.leaf(prev, f, f.grp == prev.grp)
		}
		prev, have = f, true
		return true
	})
	if have {
		m.leaf(prev, prev, false)
	}
	for _, o := range m.nets {
		m.put(o)
	}
	return m.b.done(), m.missing
}

// mergeCursor is merge's position in the net changes as it walks s's
// leaves in order, and what it has built so far.
type mergeCursor[T any] struct {
	nets    []op[T] // the net changes not yet applied, sorted by entry
	b       *builder[T]
	missing []string // keys of expected entries that were not there
}

// put applies a net change to an entry that s does not hold.
func (m *mergeCursor[T]) put(o op[T]) {
	switch {
	case o.kind == opSet:
		m.b.add(o.grp, o.c)
	case o.expect:
		m.missing = append(m.missing, o.c.key)
	}
}

// take returns the changes that fall in the leaf of f, whose keys are
// below next's fence when ok (next is the following leaf of f's group),
// first applying the changes that sort before f; it advances past them.
func (m *mergeCursor[T]) take(f, next fence[T], ok bool) []op[T] {
	grp := f.grp
	i := 0
	for i < len(m.nets) && (m.nets[i].grp < grp || m.nets[i].grp == grp && m.nets[i].c.key < f.lo) {
		m.put(m.nets[i])
		i++
	}
	j := i
	for j < len(m.nets) && m.nets[j].grp == grp && (!ok || m.nets[j].c.key < next.lo) {
		j++
	}
	in := m.nets[i:j]
	m.nets = m.nets[j:]
	return in
}

// leaf merges the leaf of f with the changes that fall in it (see take).
func (m *mergeCursor[T]) leaf(f, next fence[T], ok bool) {
	in := m.take(f, next, ok)
	grp, cs := f.grp, f.l.cs
	if len(in) == 0 {
		m.b.adopt(grp, f.l)
		return
	}
	dense := len(in)*8 >= len(cs)
	p := 0
	for _, o := range in {
		key := o.c.key
		q := p
		if key > cs[len(cs)-1].key {
			q = len(cs) // past the end of the leaf: an append
		} else if dense {
			for q < len(cs) && cs[q].key < key {
				q++
			}
		} else {
			d, _ := search(cs[p:], key)
			q += d
		}
		m.b.addRun(grp, cs[p:q])
		p = q
		if p < len(cs) && cs[p].key == key {
			if o.kind == opSet {
				m.b.add(grp, o.c)
			}
			p++
		} else {
			m.put(o)
		}
	}
	m.b.addRun(grp, cs[p:])
}

// rescan removes every entry of the keys scanned or missing that the net
// changes do not leave in place: the key's entries are exactly the ones
// its last write set, and anything else (left by an index func that is not
// deterministic or a stored object modified in place) is stale. It visits
// every leaf once.
func rescan[T any](s *leafTree[T], nets []op[T], lastScan map[string]uint32, missing []string) {
	keep := map[string]map[string]bool{} // key -> groups it keeps
	for k := range lastScan {
		keep[k] = map[string]bool{}
	}
	for _, k := range missing {
		keep[k] = map[string]bool{}
	}
	for _, o := range nets {
		if g, ok := keep[o.c.key]; ok && o.kind == opSet {
			g[o.grp] = true
		}
	}
	type entry struct{ grp, key string }
	var stale []entry
	s.fences.Ascend(func(f fence[T]) bool {
		for k, groups := range keep {
			if _, found := search(f.l.cs, k); found && !groups[f.grp] {
				stale = append(stale, entry{f.grp, k})
			}
		}
		return true
	})
	for _, e := range stale {
		s.del(e.grp, e.key)
	}
}
