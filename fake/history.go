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
	// size is the Options.Size of the state before the write (0 for
	// Added): the bytes that forgetting this record lets go, since the
	// record is the newest that holds that state.
	size int64
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
	start int   // index of the oldest record
	n     int   // number of records
	bytes int64 // sum of the records' size
}

// push appends r, first dropping the oldest record when the history
// already holds limit records. It reports how many records it dropped.
func (h *history[T]) push(r record[T], limit int) (dropped int) {
	if h.n >= limit {
		h.pop()
		dropped++
	}
	if h.n == len(h.buf) {
		h.grow(min(limit, max(16, 2*len(h.buf))))
	}
	h.buf[(h.start+h.n)%len(h.buf)] = r
	h.n++
	h.bytes += r.size
	return dropped
}

// trim drops the oldest records until their sizes sum to at most limit.
// It reports how many it dropped.
func (h *history[T]) trim(limit int64) (dropped int) {
	for h.n > 0 && h.bytes > limit {
		h.pop()
		dropped++
	}
	return dropped
}

// pop drops the oldest record, releasing the objects it references.
func (h *history[T]) pop() {
	h.bytes -= h.buf[h.start].size
	h.buf[h.start] = record[T]{}
	h.start = (h.start + 1) % len(h.buf)
	h.n--
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
	h.start, h.n, h.bytes = 0, 0, 0
}
