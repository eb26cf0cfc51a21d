package workqueue

import (
	"math"
	"sync"
	"sync/atomic"
)

// Entry states, as bit flags. Legal combinations:
//
//	stQueued                 in a ready level, waiting for Get
//	stWaiting                in the delay heap, not ready yet
//	stProcessing             handed out, Done not called yet
//	stProcessing|stDirty     handed out and added again: requeued on Done
//	stProcessing|stWaiting   handed out and added with a delay: becomes
//	                         dirty when the delay expires
const (
	stQueued uint8 = 1 << iota
	stProcessing
	stDirty
	stWaiting
)

// unknownTime asks the core to read the clock itself if it needs the time.
const unknownTime int64 = -1

// entry is the state of one item the queue holds in any role, or of an
// idle item it remembers (state zero; see core.items). Entries are
// recycled, never freed one by one.
type entry[T comparable] struct {
	item  T
	state uint8
	// prio is the priority of the pending instance (queued, dirty or
	// waiting); while only processing it is the priority it was handed
	// out with.
	prio int
	// at and seq order the entry, smaller first. While queued: its key
	// (see keyFor) and FIFO sequence. While waiting: its ready time and
	// the sequence of its live slot in the delay heap.
	at  int64
	seq uint64
	// stamp is, while queued, when the entry entered the ready queue and,
	// while processing, when it was handed out (clocked cores only).
	stamp int64
	// prev and next link the entry into its level while queued.
	prev, next *entry[T]
	lvl        *level[T]
}

// core is the queue's state machine: the dirty/processing invariant,
// priorities with aging and the delay heap. It knows nothing about
// goroutines or locks; Queue wraps it in a mutex. Times are nanoseconds
// on the queue's monotonic clock; operations take the current time as an
// argument, or unknownTime when the caller has not read the clock, in
// which case the core reads it through now only if it needs it.
type core[T comparable] struct {
	// items maps every item the queue holds in any role to its entry,
	// plus up to about idleLimit idle entries (state 0): items that were
	// processed and have nothing pending, kept so that adding them again
	// costs one map lookup instead of an insert now and a delete later.
	// Queues that delay items (retries, requeue-after) are the ones whose
	// items keep coming back, so idleLimit follows peak: the most live
	// entries seen when an item was delayed since the previous sweep (at
	// least minIdle). When idle entries exceed idleLimit, sweep deletes
	// them all. A queue that did not delay since its last sweep (one that
	// never delays, in particular) has idleLimit 0 and keeps no idle
	// entry: retire deletes the entry at once, so that nothing references
	// an item after its Done.
	items     map[T]*entry[T]
	idle      int
	idleLimit int
	peak      int
	// idleq lists retirements since the last sweep; an element is
	// current while its entry is idle and still carries its seq.
	idleq []idleRef[T]
	// free holds swept entries for reuse; past maxFreeEntries they go
	// to spill, which the garbage collector may empty, so that a burst
	// does not pin its peak memory forever.
	free  []*entry[T]
	spill sync.Pool
	// slabbed counts the entries allocated so far (see alloc).
	slabbed int

	levels map[int]*level[T]
	cache  *level[T]   // last level used, to skip the map for one priority
	active []*level[T] // heap of non-empty levels by head (key, seq)
	ready  int         // queued entries
	busy   int         // processing entries

	// recent holds the last entries handed out, so that Done usually
	// finds its entry without a map lookup. An entry here may since have
	// been retired or reused; done checks state and item.
	recent [4]*entry[T]
	ri     uint8

	seq   uint64
	aging int64 // nanoseconds per priority point; <= 0 disables aging
	lastT int64 // latest time stamped on a queued entry (keeps keys monotonic)

	// clocked is set once queued entries carry enqueue times: from the
	// start when metered, else when aging and a second priority shows up
	// (until then the order is plain FIFO and the clock is not read).
	clocked   bool
	havePrio  bool
	firstPrio int
	// clockedHint mirrors clocked for readers that do not hold the lock.
	clockedHint atomic.Bool

	delay delayHeap[T]

	metered bool
	m       QueueMetrics

	now func() int64
}

func (c *core[T]) init(aging int64, m *QueueMetrics, now func() int64) {
	c.items = make(map[T]*entry[T])
	c.levels = make(map[int]*level[T])
	c.aging = aging
	c.now = now
	if m != nil {
		c.metered = true
		c.clocked = true
		c.clockedHint.Store(true)
		c.m = *m
	}
}

func (c *core[T]) clock(now *int64) int64 {
	if *now == unknownTime {
		*now = c.now()
	}
	return *now
}

// add makes item ready (or dirty, if it is being processed) with priority
// p.
func (c *core[T]) add(item T, p int, now int64) {
	e, fresh := c.lookup(item)
	if fresh {
		e.prio = p
		c.countAdd()
		c.push(e, now)
		return
	}
	switch {
	case e.state&stQueued != 0:
		if p > e.prio {
			c.raise(e, p, now)
		}
	case e.state&stProcessing != 0:
		switch {
		case e.state&stDirty != 0:
			e.prio = max(e.prio, p)
		case e.state&stWaiting != 0:
			c.unwait(e)
			e.prio = max(e.prio, p)
			e.state |= stDirty
			c.countAdd()
		default:
			e.prio = p
			e.state |= stDirty
			c.countAdd()
		}
	default: // waiting only
		c.unwait(e)
		e.prio = max(e.prio, p)
		c.countAdd()
		c.push(e, now)
	}
}

// addAfter makes item ready at time at (> now) with priority p, unless
// it is ready or due earlier already.
func (c *core[T]) addAfter(item T, p int, at, now int64) {
	if at <= now {
		c.add(item, p, now)
		return
	}
	e, fresh := c.lookup(item)
	if fresh {
		e.prio = p
		c.wait(e, at)
		return
	}
	switch {
	case e.state&stQueued != 0:
		if p > e.prio {
			c.raise(e, p, now)
		}
	case e.state&stDirty != 0:
		e.prio = max(e.prio, p)
	case e.state&stWaiting != 0:
		e.prio = max(e.prio, p)
		if at < e.at {
			c.delay.stale++
			c.wait(e, at)
		}
	default: // processing only
		e.prio = p
		c.wait(e, at)
	}
}

func (c *core[T]) countAdd() {
	if c.metered {
		c.m.Adds.Inc()
	}
}

// pop hands out the best queued entry. The caller ensures c.ready > 0.
func (c *core[T]) pop(now int64) *entry[T] {
	e := c.active[0].head
	c.unlink(e)
	c.ready--
	e.state = stProcessing
	c.busy++
	c.recent[c.ri&3] = e
	c.ri++
	if c.metered {
		t := c.clock(&now)
		c.m.QueueDuration.Observe(seconds(t - e.stamp))
		e.stamp = t
		c.m.Depth.Set(float64(c.ready))
	}
	return e
}

// done ends the processing of item. It reports false if item was not
// being processed.
func (c *core[T]) done(item T, now int64) bool {
	e := c.processing(item)
	if e == nil {
		return false
	}
	e.state &^= stProcessing
	c.busy--
	if c.metered {
		c.m.WorkDuration.Observe(seconds(c.clock(&now) - e.stamp))
	}
	switch {
	case e.state&stDirty != 0:
		e.state &^= stDirty
		c.push(e, now)
	case e.state&stWaiting != 0:
	default:
		c.retire(e)
	}
	return true
}

// processing returns item's entry if it is being processed.
func (c *core[T]) processing(item T) *entry[T] {
	for i := range uint8(len(c.recent)) {
		e := c.recent[(c.ri-1-i)&3] // most recent first
		if e != nil && e.state&stProcessing != 0 && e.item == item {
			return e
		}
	}
	if e, ok := c.items[item]; ok && e.state&stProcessing != 0 {
		return e
	}
	return nil
}

// advance moves every waiting entry due at or before now to the ready
// queue (or marks it dirty if it is being processed).
func (c *core[T]) advance(now int64) {
	h := &c.delay
	for len(h.s) > 0 && h.s[0].at <= now {
		s := h.pop()
		e := s.e
		if !live(s) {
			h.stale--
			continue
		}
		e.state &^= stWaiting
		c.countAdd()
		if e.state&stProcessing != 0 {
			e.state |= stDirty
		} else {
			c.push(e, now)
		}
	}
}

// nextDeadline returns the earliest time a waiting entry becomes ready.
func (c *core[T]) nextDeadline() (int64, bool) {
	h := &c.delay
	for len(h.s) > 0 && !live(h.s[0]) {
		h.pop()
		h.stale--
	}
	if len(h.s) == 0 {
		return 0, false
	}
	return h.s[0].at, true
}

// dropWaiting forgets every waiting entry (on shutdown).
func (c *core[T]) dropWaiting() {
	for _, s := range c.delay.s {
		if !live(s) {
			continue
		}
		e := s.e
		e.state &^= stWaiting
		if e.state == 0 {
			c.retire(e)
		}
	}
	clear(c.delay.s)
	c.delay.s = c.delay.s[:0]
	c.delay.stale = 0
}

func (c *core[T]) wait(e *entry[T], at int64) {
	c.peak = max(c.peak, c.live())
	c.seq++
	e.at = at
	e.seq = c.seq
	e.state |= stWaiting
	c.delay.push(slot[T]{at: at, seq: c.seq, e: e})
}

func (c *core[T]) unwait(e *entry[T]) {
	e.state &^= stWaiting
	c.delay.stale++
	c.delay.maybeCompact()
}

// satAdd is t + d, saturating at math.MaxInt64.
func satAdd(t, d int64) int64 {
	if d > 0 && t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }
