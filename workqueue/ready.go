package workqueue

// This file: the ready queue — one FIFO level per priority, a heap of
// levels by their heads, and the aging keys that order them.

import "math"

// level is the FIFO of queued entries that were linked with one priority.
// Within a level, (key, seq) never decreases from head to tail, so the
// head is the level's best entry.
type level[T comparable] struct {
	prio       int
	head, tail *entry[T]
	n          int
	idx        int // position in core.active, -1 when empty
}

// maxIdleLevels bounds how many empty levels are kept for reuse.
const maxIdleLevels = 8

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
