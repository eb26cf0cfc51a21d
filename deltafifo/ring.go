package deltafifo

// ring is a growable FIFO deque over a power-of-two buffer. It never
// allocates in steady state and gives back memory when it drains far
// below its capacity. The zero value is empty and ready to use.
type ring[E any] struct {
	buf  []E
	head int
	n    int
}

const ringMinCap = 16

func (r *ring[E]) len() int { return r.n }

func (r *ring[E]) mask() int { return len(r.buf) - 1 }

// at returns the i-th element from the front; 0 <= i < len().
func (r *ring[E]) at(i int) E { return r.buf[(r.head+i)&r.mask()] }

// front returns a pointer to the first element; len() > 0.
func (r *ring[E]) front() *E { return &r.buf[r.head] }

func (r *ring[E]) push(e E) {
	if r.n == len(r.buf) {
		r.resize(max(ringMinCap, 2*len(r.buf)))
	}
	r.buf[(r.head+r.n)&r.mask()] = e
	r.n++
}

func (r *ring[E]) popFront() E {
	var zero E
	e := r.buf[r.head]
	r.buf[r.head] = zero
	r.head = (r.head + 1) & r.mask()
	r.n--
	r.maybeShrink()
	return e
}

// removeAt removes and returns the i-th element from the front by moving
// the i elements before it one slot back: O(i).
func (r *ring[E]) removeAt(i int) E {
	if i == 0 {
		return r.popFront()
	}
	m := r.mask()
	e := r.buf[(r.head+i)&m]
	for j := i; j > 0; j-- {
		r.buf[(r.head+j)&m] = r.buf[(r.head+j-1)&m]
	}
	var zero E
	r.buf[r.head] = zero
	r.head = (r.head + 1) & m
	r.n--
	r.maybeShrink()
	return e
}

// maybeShrink halves the buffer when it is at most 1/8 full, so a queue
// that once held a large relist does not pin that memory forever.
func (r *ring[E]) maybeShrink() {
	if c := len(r.buf); c > 1024 && r.n <= c/8 {
		r.resize(c / 2)
	}
}

func (r *ring[E]) resize(c int) {
	nb := make([]E, c)
	for i := 0; i < r.n; i++ {
		nb[i] = r.buf[(r.head+i)&r.mask()]
	}
	r.buf, r.head = nb, 0
}
