package workqueue

// This file: where entries come from and go to — the free list, the
// spill pool and the idle entries kept in core.items.

// idleRef records one retirement of an entry.
type idleRef[T comparable] struct {
	e   *entry[T]
	seq uint64
}

func (r idleRef[T]) current() bool { return r.e.state == 0 && r.e.seq == r.seq }

// maxFreeEntries bounds the entry free list.
const maxFreeEntries = 4096

// When the free list and the spill pool are empty, entries are allocated
// in slabs: the first of slabMin entries, each next one as large as all
// the earlier ones together, up to slabMax. A queue that never holds more
// than a few items (a kubelet's) so holds a few entries, not a full slab.
const (
	slabMin = 2
	slabMax = 16
)

// minIdle is the least number of idle entries kept (see core.items) by
// a queue that delayed items since its last sweep; small, so that a
// queue of a few items keeps the fast small-map path.
const minIdle = 4

func (c *core[T]) alloc(item T) *entry[T] {
	var e *entry[T]
	if n := len(c.free); n > 0 {
		e = c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
	} else if x, ok := c.spill.Get().(*entry[T]); ok {
		e = x
	} else {
		// Allocate a slab; the rest goes to the free list.
		slab := make([]entry[T], min(slabMax, max(slabMin, c.slabbed)))
		c.slabbed += len(slab)
		for i := 1; i < len(slab); i++ {
			c.free = append(c.free, &slab[i])
		}
		e = &slab[0]
	}
	e.item = item
	c.items[item] = e
	return e
}

// lookup returns item's entry, making one if the item is not live. fresh
// reports that the item had nothing pending (new or idle).
func (c *core[T]) lookup(item T) (e *entry[T], fresh bool) {
	e, ok := c.items[item]
	switch {
	case !ok:
		e = c.alloc(item)
	case e.state == 0:
		c.idle--
	default:
		return e, false
	}
	return e, true
}

// live returns the number of entries with something pending.
func (c *core[T]) live() int { return len(c.items) - c.idle }

// retire makes e, which has nothing pending any more, idle — or, while
// the queue keeps no idle entries (idleLimit 0: no delay since the last
// sweep), forgets it at once, so that the queue no longer references the
// item.
func (c *core[T]) retire(e *entry[T]) {
	e.prio = 0
	if c.idleLimit == 0 && c.peak == 0 {
		delete(c.items, e.item)
		c.free1(e)
		return
	}
	c.seq++
	e.seq = c.seq
	c.idleq = append(c.idleq, idleRef[T]{e, c.seq})
	c.idle++
	switch {
	case c.idle > c.idleLimit:
		c.sweep()
	case len(c.idleq) > 2*c.idleLimit:
		c.compactIdle()
	}
}

// sweep deletes every idle entry: O(len(idleq)), at most 2·idleLimit,
// once per idleLimit retirements at least.
func (c *core[T]) sweep() {
	for _, r := range c.idleq {
		if r.current() {
			delete(c.items, r.e.item)
			c.free1(r.e)
		}
	}
	clear(c.idleq)
	c.idleq = c.idleq[:0]
	c.idle = 0
	c.idleLimit = 0 // no delay since this sweep: keep nothing
	if c.peak > 0 {
		c.idleLimit = max(minIdle, c.peak)
	}
	c.peak = 0
}

// compactIdle drops the retirements of entries that were reused since.
func (c *core[T]) compactIdle() {
	q := c.idleq[:0]
	for _, r := range c.idleq {
		if r.current() {
			q = append(q, r)
		}
	}
	clear(c.idleq[len(q):])
	c.idleq = q
}

// free1 recycles a swept entry. Only the item needs clearing (for the
// garbage collector): an idle entry is unlinked, and every other field is
// set when the entry is used again.
func (c *core[T]) free1(e *entry[T]) {
	var zero T
	e.item = zero
	if len(c.free) < maxFreeEntries {
		c.free = append(c.free, e)
	} else {
		c.spill.Put(e)
	}
}
