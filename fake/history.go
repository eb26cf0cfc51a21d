package fake

import "github.com/ctrlkit/ctrlkit/source"

// record is one write in the history.
type record[T any] struct {
	rev int64
	rv  string
	typ source.EventType
	key string
	// obj is the new state (Added, Modified) or the last state (Deleted).
	obj T
	// prev is the state before a Modified write.
	prev T
	// hidden writes are never delivered to watchers (MissNextEvents).
	hidden bool
}

// before reports the state of the key just before this write.
func (r *record[T]) before() (obj T, exists bool) {
	switch r.typ {
	case source.Modified:
		return r.prev, true
	case source.Deleted:
		return r.obj, true
	}
	return obj, false
}

// event is the watch event for this write.
func (r *record[T]) event() source.Event[T] {
	return source.Event[T]{Type: r.typ, Object: r.obj, ResourceVersion: r.rv}
}

// history is a ring buffer of records that grows on demand up to a bound.
type history[T any] struct {
	buf   []record[T]
	start int // index of the oldest record
	n     int // number of records
}

// push appends r; when the history already holds limit records it drops
// the oldest one and reports true.
func (h *history[T]) push(r record[T], limit int) (dropped bool) {
	if h.n == len(h.buf) {
		if len(h.buf) < limit {
			h.grow(min(limit, max(16, 2*len(h.buf))))
		} else {
			h.buf[h.start] = r
			h.start = (h.start + 1) % len(h.buf)
			return true
		}
	}
	h.buf[(h.start+h.n)%len(h.buf)] = r
	h.n++
	return false
}

func (h *history[T]) grow(size int) {
	nb := make([]record[T], size)
	k := copy(nb, h.buf[h.start:])
	copy(nb[k:], h.buf[:h.start])
	h.buf, h.start = nb, 0
}

// at returns the i-th oldest record.
func (h *history[T]) at(i int) *record[T] {
	return &h.buf[(h.start+i)%len(h.buf)]
}

// reset forgets every record (and the objects they reference).
func (h *history[T]) reset() {
	clear(h.buf)
	h.start, h.n = 0, 0
}
