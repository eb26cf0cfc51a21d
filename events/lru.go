package events

import "math"

// lru is a map that forgets its least recently used entry beyond a size.
// Its entries live in one slice, linked by index, and the map holds an
// index: no allocation per entry, and no key or value boxed in an
// interface. A full cache reuses the slot of the entry it forgets. Not
// safe for concurrent use.
type lru[K comparable, V any] struct {
	size  int
	index map[K]int32
	slots []lruSlot[K, V]
	// head is the most recently used slot, tail the least; -1 when
	// empty.
	head, tail int32
}

// lruSlot is one entry of an lru, in the list from most to least
// recently used.
type lruSlot[K comparable, V any] struct {
	key        K
	val        V
	prev, next int32 // -1 at the ends
}

// newLRU returns an empty lru of at most size entries (at most
// math.MaxInt32); size must be positive.
func newLRU[K comparable, V any](size int) *lru[K, V] {
	return &lru[K, V]{size: min(size, math.MaxInt32), index: make(map[K]int32), head: -1, tail: -1}
}

// len returns how many entries c holds.
func (c *lru[K, V]) len() int { return len(c.index) }

// get returns the value of k, made the most recently used, as a pointer
// into c that stays valid until the next put.
func (c *lru[K, V]) get(k K) (*V, bool) {
	i, ok := c.index[k]
	if !ok {
		return nil, false
	}
	c.toFront(i)
	return &c.slots[i].val, true
}

// put sets the value of k, made the most recently used, forgetting the
// least recently used entry if c holds more than its size. It returns a
// pointer to the value in c, valid until the next put.
func (c *lru[K, V]) put(k K, v V) *V {
	if i, ok := c.index[k]; ok {
		c.slots[i].val = v
		c.toFront(i)
		return &c.slots[i].val
	}
	var i int32
	if len(c.slots) < c.size {
		if len(c.slots) == cap(c.slots) {
			// Grow by doubling, but never past size: a full cache
			// holds no spare slots.
			grown := make([]lruSlot[K, V], len(c.slots), min(max(2*cap(c.slots), 8), c.size))
			copy(grown, c.slots)
			c.slots = grown
		}
		i = int32(len(c.slots))
		c.slots = append(c.slots, lruSlot[K, V]{prev: -1, next: -1})
	} else {
		// Full: the least recently used entry gives up its slot.
		i = c.tail
		c.unlink(i)
		delete(c.index, c.slots[i].key)
	}
	c.slots[i] = lruSlot[K, V]{key: k, val: v, prev: -1, next: c.head}
	if c.head >= 0 {
		c.slots[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
	c.index[k] = i
	return &c.slots[i].val
}

// toFront makes slot i, which is linked, the most recently used.
func (c *lru[K, V]) toFront(i int32) {
	if c.head == i {
		return
	}
	c.unlink(i)
	s := &c.slots[i]
	s.prev, s.next = -1, c.head
	if c.head >= 0 {
		c.slots[c.head].prev = i
	}
	c.head = i
	if c.tail < 0 {
		c.tail = i
	}
}

// unlink takes slot i out of the list.
func (c *lru[K, V]) unlink(i int32) {
	s := &c.slots[i]
	if s.prev >= 0 {
		c.slots[s.prev].next = s.next
	} else {
		c.head = s.next
	}
	if s.next >= 0 {
		c.slots[s.next].prev = s.prev
	} else {
		c.tail = s.prev
	}
	s.prev, s.next = -1, -1
}
