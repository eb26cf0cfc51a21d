package kube

import (
	"container/list"
	"maps"
	"reflect"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// absent marks a member missing from a JSON object in merge3.
var absent = &struct{ absent bool }{}

// merge3 merges three JSON values (decoded with UseNumber): raw, the
// server's; orig, ctrlkit's typed view of raw (raw decoded into the Go
// type and encoded again); next, ctrlkit's encoding of the object to
// write. What ctrlkit did not change (orig equals next) comes from raw
// verbatim, with every field ctrlkit does not model; what it changed
// comes from next, recursively:
//
//   - objects: raw's members, those of orig and next merged member by
//     member, those next dropped (orig has them, next not) removed;
//   - arrays of the same length in orig and next: element by element;
//     of other lengths: each element of next merged with the element of
//     orig it is (the same "name", "type" or "uid", else an equal
//     element), or taken from next when none is;
//   - anything else: next.
func merge3(raw, orig, next any) any {
	if reflect.DeepEqual(orig, next) {
		return raw
	}
	if next == absent {
		return absent
	}
	switch n := next.(type) {
	case map[string]any:
		rm, ok := raw.(map[string]any)
		if !ok {
			return next
		}
		om, _ := orig.(map[string]any)
		out := maps.Clone(rm)
		for _, side := range []map[string]any{om, n} {
			for k := range side {
				v := merge3(member(rm, k), member(om, k), member(n, k))
				if v == absent {
					delete(out, k)
				} else {
					out[k] = v
				}
			}
		}
		return out
	case []any:
		ra, ok := raw.([]any)
		oa, _ := orig.([]any)
		if !ok || len(ra) != len(oa) {
			return next
		}
		out := make([]any, len(n))
		if len(oa) == len(n) {
			for i := range n {
				out[i] = merge3(ra[i], oa[i], n[i])
			}
			return out
		}
		used := make([]bool, len(oa))
		for i, e := range n {
			j := sameElement(oa, used, e)
			if j < 0 {
				out[i] = e
				continue
			}
			used[j] = true
			out[i] = merge3(ra[j], oa[j], e)
		}
		return out
	}
	return next
}

func member(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return absent
}

// sameElement returns the index of the unused element of a that e is:
// the same identity key, else equal; -1 if none.
func sameElement(a []any, used []bool, e any) int {
	if em, ok := e.(map[string]any); ok {
		for _, key := range []string{"name", "type", "uid"} {
			id, ok := em[key].(string)
			if !ok {
				continue
			}
			for j, x := range a {
				if xm, ok := x.(map[string]any); ok && !used[j] && xm[key] == id {
					return j
				}
			}
			return -1
		}
	}
	for j, x := range a {
		if !used[j] && reflect.DeepEqual(x, e) {
			return j
		}
	}
	return -1
}

// rawCache remembers the server's JSON of the last version read of each
// object (by uid), least recently used first out, within a bound on the
// bytes held.
type rawCache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	lru   *list.List // of *rawEntry, most recent at the front
	byUID map[api.UID]*list.Element
}

type rawEntry struct {
	uid api.UID
	rv  string
	raw []byte
}

func newRawCache(max int64) *rawCache {
	return &rawCache{max: max, lru: list.New(), byUID: map[api.UID]*list.Element{}}
}

// put remembers raw as the JSON of uid at rv, replacing an older version.
func (c *rawCache) put(uid api.UID, rv string, raw []byte) {
	if uid == "" || rv == "" || c.max <= 0 || int64(len(raw)) > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byUID[uid]; ok {
		c.remove(el)
	}
	e := &rawEntry{uid: uid, rv: rv, raw: raw}
	c.byUID[uid] = c.lru.PushFront(e)
	c.bytes += int64(len(raw))
	for c.bytes > c.max {
		c.remove(c.lru.Back())
	}
}

// get returns the JSON of uid at rv, if remembered.
func (c *rawCache) get(uid api.UID, rv string) ([]byte, bool) {
	if uid == "" || rv == "" {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byUID[uid]
	if !ok || el.Value.(*rawEntry).rv != rv {
		return nil, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*rawEntry).raw, true
}

// drop forgets uid (the object is gone).
func (c *rawCache) drop(uid api.UID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byUID[uid]; ok {
		c.remove(el)
	}
}

func (c *rawCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*rawEntry)
	delete(c.byUID, e.uid)
	c.bytes -= int64(len(e.raw))
}

// len returns the number of objects and bytes held.
func (c *rawCache) size() (objects int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.byUID), c.bytes
}
