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

// entry is the state of one item present in the queue in any role. Entries
// are pooled: the map holds exactly the entries whose state is not zero.
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

// level is the FIFO of queued entries that were linked with one priority.
// Within a level, (key, seq) never decreases from head to tail, so the
// head is the level's best entry.
type level[T comparable] struct {
	prio       int
	head, tail *entry[T]
	n          int
	idx        int // position in core.active, -1 when empty
}

// idleRef records one retirement of an entry.
type idleRef[T comparable] struct {
	e   *entry[T]
	seq uint64
}

func (r idleRef[T]) current() bool { return r.e.state == 0 && r.e.seq == r.seq }

// maxIdleLevels bounds how many empty levels are kept for reuse.
const maxIdleLevels = 8

// maxFreeEntries bounds the entry free list.
const maxFreeEntries = 4096

// minIdle is the least number of idle entries kept (see core.items);
// small, so that a queue of a few items keeps the fast small-map path.
const minIdle = 4

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
	// least minIdle). A queue that never delays keeps minIdle. When idle
	// entries exceed idleLimit, sweep deletes them all.
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
	c.idleLimit = minIdle
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

func (c *core[T]) alloc(item T) *entry[T] {
	var e *entry[T]
	if n := len(c.free); n > 0 {
		e = c.free[n-1]
		c.free[n-1] = nil
		c.free = c.free[:n-1]
	} else if x, ok := c.spill.Get().(*entry[T]); ok {
		e = x
	} else {
		// Allocate a small slab; the rest goes to the free list.
		slab := make([]entry[T], 16)
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

// retire makes e, which has nothing pending any more, idle.
func (c *core[T]) retire(e *entry[T]) {
	e.prio = 0
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
	c.idleLimit = max(minIdle, c.peak)
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

// notePrio switches the core to clocked mode when aging and a second
// priority shows up. Entries queued before that count as enqueued now.
func (c *core[T]) notePrio(p int, now *int64) {
	if c.clocked || c.aging <= 0 {
		return
	}
	if !c.havePrio {
		c.havePrio = true
		c.firstPrio = p
		return
	}
	if p == c.firstPrio {
		return
	}
	c.clocked = true
	c.clockedHint.Store(true)
	t := c.stamp(now)
	for _, l := range c.active {
		for e := l.head; e != nil; e = e.next {
			e.stamp = t
			e.at = c.keyFor(l.prio, t)
		}
	}
	// Keys changed: restore the heap order.
	for i := len(c.active)/2 - 1; i >= 0; i-- {
		c.down(i)
	}
}

// stamp reads the time for a queued entry, never going backwards.
func (c *core[T]) stamp(now *int64) int64 {
	t := max(c.clock(now), c.lastT)
	c.lastT = t
	return t
}

func (c *core[T]) keyFor(p int, t int64) int64 {
	if c.aging <= 0 {
		return -clampInt64(p)
	}
	return agedKey(t, p, c.aging)
}

// push appends e to the ready queue at its priority.
func (c *core[T]) push(e *entry[T], now int64) {
	c.notePrio(e.prio, &now)
	var t int64
	if c.clocked {
		t = c.stamp(&now)
		e.stamp = t
	}
	c.link(e, c.keyFor(e.prio, t))
	c.ready++
	if c.metered {
		c.m.Depth.Set(float64(c.ready))
	}
}

// raise moves queued e to priority p > e.prio. Under aging an entry keeps
// the better of its current key and the key a fresh entry of priority p
// gets, so raising never makes an item wait longer.
func (c *core[T]) raise(e *entry[T], p int, now int64) {
	c.notePrio(p, &now)
	var key int64
	if c.aging > 0 {
		key = agedKey(c.stamp(&now), p, c.aging)
		if key >= e.at {
			e.prio = p
			return
		}
	} else {
		key = -clampInt64(p)
	}
	c.unlink(e)
	e.prio = p
	c.link(e, key)
}

// link appends e to the tail of its priority's level with the given key.
func (c *core[T]) link(e *entry[T], key int64) {
	l := c.cache
	if l == nil || l.prio != e.prio {
		l = c.levels[e.prio]
		if l == nil {
			l = &level[T]{prio: e.prio, idx: -1}
			c.levels[e.prio] = l
		}
		c.cache = l
	}
	c.seq++
	e.at = key
	e.seq = c.seq
	e.state |= stQueued
	e.lvl = l
	e.next = nil
	e.prev = l.tail
	if l.tail != nil {
		l.tail.next = e
	} else {
		l.head = e
	}
	l.tail = e
	l.n++
	if l.n == 1 {
		l.idx = len(c.active)
		c.active = append(c.active, l)
		c.up(l.idx)
	}
}

// unlink removes queued e from its level. It leaves c.ready alone: raise
// links the entry again, pop accounts for it.
func (c *core[T]) unlink(e *entry[T]) {
	l := e.lvl
	wasHead := l.head == e
	if e.prev != nil {
		e.prev.next = e.next
	} else {
		l.head = e.next
	}
	if e.next != nil {
		e.next.prev = e.prev
	} else {
		l.tail = e.prev
	}
	e.prev, e.next, e.lvl = nil, nil, nil
	e.state &^= stQueued
	l.n--
	switch {
	case l.n == 0:
		c.removeLevel(l)
	case wasHead:
		c.down(l.idx)
	}
}

func (c *core[T]) removeLevel(l *level[T]) {
	i := l.idx
	last := len(c.active) - 1
	if i != last {
		c.swap(i, last)
	}
	c.active[last] = nil
	c.active = c.active[:last]
	l.idx = -1
	if i != last {
		c.down(i)
		c.up(i)
	}
	if len(c.levels) > maxIdleLevels {
		delete(c.levels, l.prio)
		if c.cache == l {
			c.cache = nil
		}
	}
}

func (c *core[T]) lessLevel(i, j int) bool {
	a, b := c.active[i].head, c.active[j].head
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (c *core[T]) swap(i, j int) {
	a := c.active
	a[i], a[j] = a[j], a[i]
	a[i].idx = i
	a[j].idx = j
}

func (c *core[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !c.lessLevel(i, p) {
			return
		}
		c.swap(i, p)
		i = p
	}
}

func (c *core[T]) down(i int) {
	n := len(c.active)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && c.lessLevel(r, l) {
			m = r
		}
		if !c.lessLevel(m, i) {
			return
		}
		c.swap(i, m)
		i = m
	}
}

// agedKey is t - p*a, saturating instead of overflowing.
func agedKey(t int64, p int, a int64) int64 {
	lim := math.MaxInt64 / a
	var pa int64
	switch p64 := int64(p); {
	case p64 > lim:
		pa = math.MaxInt64
	case p64 < -lim:
		pa = -math.MaxInt64
	default:
		pa = p64 * a
	}
	if pa < 0 && t > math.MaxInt64+pa {
		return math.MaxInt64
	}
	return t - pa
}

func clampInt64(p int) int64 {
	return max(int64(p), -math.MaxInt64)
}

// satAdd is t + d, saturating at math.MaxInt64.
func satAdd(t, d int64) int64 {
	if d > 0 && t > math.MaxInt64-d {
		return math.MaxInt64
	}
	return t + d
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }
