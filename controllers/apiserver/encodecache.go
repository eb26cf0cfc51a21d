package apiserver

import (
	"encoding/json"
	"sync"
)

// The bounds of a Server's encode cache.
const (
	// encodeCacheBytes bounds the encoded bytes the cache holds.
	encodeCacheBytes = 64 << 20
	// encodeCacheEntries bounds its entries.
	encodeCacheEntries = 8192
)

// encodeKey names one encoding of one version of one object: a
// resourceVersion names one state of an object, so every watch of it
// sends the same bytes.
type encodeKey struct {
	resource, key, rv string
	mode              as
}

// encodeEntry is one encoding, made once by the first watch that needs it.
type encodeEntry struct {
	once sync.Once
	b    []byte
	err  error
	// size is what the entry counts in encodeCache.bytes, set under its
	// lock once b is made.
	size int64
}

// encodeCache shares the JSON encoding of watched objects among the
// watches of a Server, so that an event sent to a thousand watchers is
// encoded once, not a thousand times. It keeps the newest entries within
// a byte and an entry bound, evicting the oldest first; an evicted entry
// is encoded again by the next watch that needs it.
type encodeCache struct {
	maxBytes   int64
	maxEntries int

	mu      sync.Mutex
	entries map[encodeKey]*encodeEntry
	order   []encodeKey // oldest first
	bytes   int64
}

func newEncodeCache(maxBytes int64, maxEntries int) *encodeCache {
	return &encodeCache{maxBytes: maxBytes, maxEntries: maxEntries, entries: map[encodeKey]*encodeEntry{}}
}

// get returns the JSON encoding of v under k, encoding it (once, however
// many callers ask at the same time) when the cache does not hold it.
func (c *encodeCache) get(k encodeKey, v any) ([]byte, error) {
	if k.rv == "" {
		return json.Marshal(v)
	}
	c.mu.Lock()
	e, ok := c.entries[k]
	if !ok {
		e = &encodeEntry{}
		c.entries[k] = e
		c.order = append(c.order, k)
	}
	c.mu.Unlock()
	e.once.Do(func() {
		b, err := json.Marshal(v)
		e.b, e.err = b, err
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.entries[k] == e {
			e.size = int64(len(b))
			c.bytes += e.size
		}
		c.evict()
	})
	return e.b, e.err
}

// evict drops the oldest entries beyond the bounds; c.mu is held.
func (c *encodeCache) evict() {
	for len(c.order) > 0 && (c.bytes > c.maxBytes || len(c.order) > c.maxEntries) {
		k := c.order[0]
		c.order = c.order[1:]
		if e, ok := c.entries[k]; ok {
			c.bytes -= e.size
			delete(c.entries, k)
		}
	}
}
