package events

import "container/list"

// lru is a map that forgets its least recently used entry beyond a size.
// Not safe for concurrent use.
type lru[K comparable, V any] struct {
	size  int
	order *list.List // of *lruEntry, most recent first
	m     map[K]*list.Element
}

type lruEntry[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](size int) *lru[K, V] {
	return &lru[K, V]{size: size, order: list.New(), m: make(map[K]*list.Element)}
}

func (c *lru[K, V]) get(k K) (V, bool) {
	if e, ok := c.m[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*lruEntry[K, V]).val, true
	}
	var zero V
	return zero, false
}

func (c *lru[K, V]) put(k K, v V) {
	if e, ok := c.m[k]; ok {
		e.Value.(*lruEntry[K, V]).val = v
		c.order.MoveToFront(e)
		return
	}
	c.m[k] = c.order.PushFront(&lruEntry[K, V]{k, v})
	if c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.m, last.Value.(*lruEntry[K, V]).key)
	}
}
