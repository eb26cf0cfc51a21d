package informer

// kind says which Handler method a notification is for.
type kind uint8

const (
	kindAdd kind = iota + 1
	kindUpdate
	kindDelete
)

// notification is one pending Handler call.
type notification[T any] struct {
	kind kind
	// flag is isInInitialList for kindAdd and finalStateUnknown for
	// kindDelete; unused for kindUpdate.
	flag bool
	// old is the previous state (kindUpdate only).
	old T
	// obj is the new state (add, update) or the last state (delete).
	obj T
}

// slot holds the pending notifications of one key: at most two. When
// there are two, the first is a delete and the second an add (the key was
// deleted and created again) or a delete (an object was created and
// deleted again after an earlier one was deleted). n == 0 means empty.
type slot[T any] struct {
	n     uint8
	first notification[T]
	last  notification[T]
}

// initial reports whether s holds an add from an initial list.
func (s *slot[T]) initial() bool {
	for i := range s.n {
		nt := s.at(i)
		if nt.kind == kindAdd && nt.flag {
			return true
		}
	}
	return false
}

func (s *slot[T]) at(i uint8) *notification[T] {
	if i == 0 {
		return &s.first
	}
	return &s.last
}

// top returns the newest pending notification; s.n must be > 0.
func (s *slot[T]) top() *notification[T] { return s.at(s.n - 1) }

// push coalesces x into s. The rules keep, per key, what a handler must
// see to reach the same final state in the same order, and never swallow
// a delete (a controller waiting for an object it created must hear of
// it even if it was deleted before the handler got to it):
//
//	add(a)            + update(_, b) = add(b)             (initial-list flag kept)
//	add(a)            + delete(d)    = delete(d)
//	update(o,a)       + update(_, b) = update(o, b)
//	update(o,a)       + delete(d)    = delete(d)
//	delete(d)         + add(a)       = delete(d), add(a)
//	delete(d), add(a) + update(_, b) = delete(d), add(b)
//	delete(d), add(a) + delete(e)    = delete(d), delete(e)
//	delete(d), delete(e) + add(a)    = delete(e), add(a)  (the older delete is dropped)
//
// So a delete always carries the last object of its incarnation, and when
// two deletes must merge to keep the slot at two the newest wins. The
// flag of a delete (finalStateUnknown) is the delete's own. Sequences a
// well-formed stream never produces (add after add or update, update
// after delete, delete right after delete) are folded in the same spirit:
// the newest object wins and the shape stays one of the above.
func (s *slot[T]) push(x notification[T]) {
	if s.n == 0 {
		s.first = x
		s.n = 1
		return
	}
	t := s.top()
	switch t.kind {
	case kindAdd:
		switch x.kind {
		case kindAdd, kindUpdate:
			t.obj = x.obj
			if x.kind == kindAdd {
				t.flag = t.flag || x.flag
			}
		case kindDelete:
			*t = x
		}
	case kindUpdate:
		switch x.kind {
		case kindAdd, kindUpdate:
			t.obj = x.obj
		case kindDelete:
			*t = x
		}
	case kindDelete:
		var next notification[T]
		switch x.kind {
		case kindAdd, kindUpdate:
			next = notification[T]{kind: kindAdd, obj: x.obj, flag: x.kind == kindAdd && x.flag}
		case kindDelete:
			next = x
		}
		if s.n == 2 {
			// delete, delete + x: drop the older delete.
			s.first = s.last
		}
		s.last = next
		s.n = 2
	}
}

// pslot is a queued key and its slot. The buffer's map and ring point at
// the same pslot, so that a push to a queued key changes it in place and
// a pop finds it without a lookup; a popped pslot is recycled.
type pslot[T any] struct {
	key string
	slot[T]
}

// pendingBuffer is the per-registration queue of pending notifications:
// keys in the order their pending work began, and per key a coalesced
// slot. Its size is bounded by the number of distinct keys, whatever the
// number of events. It is not safe for concurrent use; listener guards it.
//
// A notification to a key not queued costs a map lookup and an insert, one
// to a queued key a lookup, a pop a delete.
type pendingBuffer[T any] struct {
	// slots holds every queued key's pslot.
	slots map[string]*pslot[T]
	// queue is a ring of the queued pslots; each appears exactly once.
	queue []*pslot[T]
	head  int
	size  int
	// free holds popped, cleared pslots for reuse; chunk is the unused
	// tail of the last block of pslots allocated at once, and allocated
	// counts the pslots allocated since the buffer last let go of them
	// (the next block's size; see alloc).
	free      []*pslot[T]
	chunk     []pslot[T]
	allocated int
	// initial counts the slots that hold an initial-list add.
	initial int
	// peak is the largest size since the buffer was last empty; a buffer
	// that drained after a large backlog gives its memory back.
	peak int
}

// shrinkAbove is the backlog size above which a drained buffer releases
// its map and ring instead of keeping them for reuse; idleBelow the one
// at or below which it does too. Between them — a registration that keeps
// a steady backlog of a few dozen keys — the buffer keeps its memory for
// the next burst. The common small case is a kubelet's registration,
// which has a key or two pending now and then: thousands of them each
// holding a map, a ring and a block of pslots between two events would
// cost more than the few allocations the next event makes.
const (
	shrinkAbove = 1024
	idleBelow   = 2
)

// pslotChunkMin and pslotChunk bound how many pslots are allocated at
// once: the first block is small and each next one as large as all the
// earlier ones together, up to pslotChunk. A registration that never has
// more than a few keys pending (a kubelet's, watching its own pods) so
// holds a few pslots, not a full block.
const (
	pslotChunkMin = 4
	pslotChunk    = 64
)

// newPendingBuffer returns an empty buffer; it allocates on its first
// push.
func newPendingBuffer[T any]() *pendingBuffer[T] { return &pendingBuffer[T]{} }

// release lets go of the memory of an empty buffer.
func (b *pendingBuffer[T]) release() {
	b.slots = nil
	b.queue, b.head, b.peak = nil, 0, 0
	b.free, b.chunk, b.allocated = nil, nil, 0
}

// len is the number of queued keys.
func (b *pendingBuffer[T]) len() int { return b.size }

// push records x for key.
func (b *pendingBuffer[T]) push(key string, x notification[T]) {
	p := b.slots[key]
	if p == nil {
		if b.slots == nil {
			b.slots = make(map[string]*pslot[T])
		}
		p = b.alloc()
		p.key = key
		b.slots[key] = p
		b.enqueue(p)
	}
	before := p.initial()
	p.push(x)
	if after := p.initial(); after != before {
		if after {
			b.initial++
		} else {
			b.initial--
		}
	}
}

// alloc returns a cleared pslot.
func (b *pendingBuffer[T]) alloc() *pslot[T] {
	if n := len(b.free); n > 0 {
		p := b.free[n-1]
		b.free[n-1] = nil
		b.free = b.free[:n-1]
		return p
	}
	if len(b.chunk) == 0 {
		n := min(pslotChunk, max(pslotChunkMin, b.allocated))
		b.chunk = make([]pslot[T], n)
		b.allocated += n
	}
	p := &b.chunk[0]
	b.chunk = b.chunk[1:]
	return p
}

// pop removes the oldest key and returns its slot; ok is false when the
// buffer is empty.
func (b *pendingBuffer[T]) pop() (key string, s slot[T], ok bool) {
	if b.size == 0 {
		return "", s, false
	}
	p := b.queue[b.head]
	b.queue[b.head] = nil
	b.head++
	if b.head == len(b.queue) {
		b.head = 0
	}
	b.size--
	key, s = p.key, p.slot
	delete(b.slots, key)
	if s.initial() {
		b.initial--
	}
	*p = pslot[T]{} // drop the references to the objects
	if b.size == 0 && (b.peak > shrinkAbove || b.peak <= idleBelow) {
		b.release()
		return key, s, true
	}
	b.free = append(b.free, p)
	return key, s, true
}

func (b *pendingBuffer[T]) enqueue(p *pslot[T]) {
	if b.size == len(b.queue) {
		grown := make([]*pslot[T], max(16, 2*len(b.queue)))
		n := copy(grown, b.queue[b.head:])
		copy(grown[n:], b.queue[:b.head])
		b.queue = grown
		b.head = 0
	}
	b.queue[(b.head+b.size)%len(b.queue)] = p
	b.size++
	b.peak = max(b.peak, b.size)
}

// reset drops everything.
func (b *pendingBuffer[T]) reset() {
	clear(b.slots)
	clear(b.queue)
	b.head, b.size, b.initial = 0, 0, 0
	b.free, b.chunk, b.allocated = nil, nil, 0
}
