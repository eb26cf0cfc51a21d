package indexer

// The fold: a log's changes, bucketed by group and sorted by key, reduce to
// one net change per entry, applied by a descent per change when they are
// few and by one pass that rebuilds the seq otherwise (see oplog.go).

// op is a net change of the entry (grp, c.key), the result of folding
// every logged change of that entry.
type op[T any] struct {
	grp  string
	c    *cell[T]
	kind opKind // opSet or opDel
	// expect says that the entry was in the seq before the log: a delete
	// that finds nothing reveals a stale index.
	expect bool
}

// fold applies the log to s and empties it. It returns the seq that holds
// the result: s itself, changed (copy-on-write where s shares leaves with
// a snapshot), or a new seq built from s and the log.
func fold[T any](s *seq[T], l *oplog[T]) *seq[T] {
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
	nets := make([]op[T], 0, l.n)
	for _, bk := range l.buckets() {
		grp, b := bk.grp, bk.items
		sortKeys(b)
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
	if len(nets)*mergeRatio < s.n {
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
	return s
}

// merge returns a new seq holding s's entries changed by nets (net
// changes sorted by entry), built in one pass over s's leaves; and the
// keys of expected entries that were missing. A leaf that no change falls
// in is taken over as it is (it stays shared with s, so a later write
// copies it), and its cells are not touched.
func merge[T any](s *seq[T], nets []op[T]) (*seq[T], []string) {
	b := newBuilder[T]()
	// Above every generation of s's leaves: adopted leaves count as
	// shared, and are copied before they are written.
	b.s.gen = s.gen + 1
	var missing []string
	// put applies a net change to an entry that s does not hold.
	put := func(o op[T]) {
		switch {
		case o.kind == opSet:
			b.add(o.grp, o.c)
		case o.expect:
			missing = append(missing, o.c.key)
		}
	}
	i := 0
	// leaf merges the leaf of f, whose keys are below the fence of the
	// next leaf of its group (next, if ok).
	leaf := func(f fence[T], next fence[T], ok bool) {
		grp, cs := f.grp, f.l.cs
		// Changes before the leaf's fence.
		for i < len(nets) && (nets[i].grp < grp || nets[i].grp == grp && nets[i].c.key < f.lo) {
			put(nets[i])
			i++
		}
		j := i
		for j < len(nets) && nets[j].grp == grp && (!ok || nets[j].c.key < next.lo) {
			j++
		}
		if i == j {
			b.adopt(grp, f.l)
			return
		}
		dense := (j-i)*8 >= len(cs)
		p := 0
		for _, o := range nets[i:j] {
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
			b.addRun(grp, cs[p:q])
			p = q
			if p < len(cs) && cs[p].key == key {
				if o.kind == opSet {
					b.add(grp, o.c)
				}
				p++
			} else {
				put(o)
			}
		}
		b.addRun(grp, cs[p:])
		i = j
	}
	var prev fence[T]
	have := false
	s.tree.Ascend(func(f fence[T]) bool {
		if have {
			leaf(prev, f, f.grp == prev.grp)
		}
		prev, have = f, true
		return true
	})
	if have {
		leaf(prev, prev, false)
	}
	for ; i < len(nets); i++ {
		put(nets[i])
	}
	return b.done(), missing
}

// rescan removes every entry of the keys scanned or missing that the net
// changes do not leave in place: the key's entries are exactly the ones
// its last write set, and anything else (left by an index func that is not
// deterministic or a stored object modified in place) is stale. It visits
// every leaf once.
func rescan[T any](s *seq[T], nets []op[T], lastScan map[string]uint32, missing []string) {
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
	s.tree.Ascend(func(f fence[T]) bool {
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
