package workqueue

// slot is one entry of the delay heap. A slot is live while its entry is
// waiting and still carries the slot's seq; moving an entry to an earlier
// time or out of the heap leaves the old slot behind as stale, to be
// skipped when it surfaces (lazy deletion keeps every update O(log n)
// without back-pointers from entries into the heap).
type slot[T comparable] struct {
	at  int64
	seq uint64
	e   *entry[T]
}

func live[T comparable](s slot[T]) bool {
	return s.e.state&stWaiting != 0 && s.e.seq == s.seq
}

func slotLess[T comparable](a, b slot[T]) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// delayHeap is a 4-ary min-heap of slots by (at, seq). Slots are stored
// inline so comparisons touch no entry; a 4-ary heap halves the depth of
// a binary one and its four children share a cache line or two.
type delayHeap[T comparable] struct {
	s     []slot[T]
	stale int // stale slots in s
}

const minCompact = 64

func (h *delayHeap[T]) push(x slot[T]) {
	h.s = append(h.s, x)
	h.up(len(h.s) - 1)
}

// pop removes and returns the minimum. The caller ensures len(h.s) > 0.
func (h *delayHeap[T]) pop() slot[T] {
	s := h.s
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = slot[T]{}
	h.s = s[:n]
	if n > 0 {
		h.down(0)
	}
	return top
}

func (h *delayHeap[T]) up(i int) {
	s := h.s
	x := s[i]
	for i > 0 {
		p := (i - 1) / 4
		if !slotLess(x, s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
}

func (h *delayHeap[T]) down(i int) {
	s := h.s
	n := len(s)
	x := s[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j, end := c+1, min(c+4, n); j < end; j++ {
			if slotLess(s[j], s[m]) {
				m = j
			}
		}
		if !slotLess(s[m], x) {
			break
		}
		s[i] = s[m]
		i = m
	}
	s[i] = x
}

// maybeCompact drops stale slots once they outnumber live ones, so that
// the heap stays O(waiting items) however often items move.
func (h *delayHeap[T]) maybeCompact() {
	if h.stale < minCompact || h.stale*2 < len(h.s) {
		return
	}
	s := h.s[:0]
	for _, x := range h.s {
		if live(x) {
			s = append(s, x)
		}
	}
	clear(h.s[len(s):])
	h.s = s
	h.stale = 0
	if len(s) > 1 {
		for i := (len(s) - 2) / 4; i >= 0; i-- {
			h.down(i)
		}
	}
}
