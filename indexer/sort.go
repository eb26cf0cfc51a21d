package indexer

import "strings"

// sortKeys sorts the changes of one group by key, keeping changes of one
// key in log order (the order they came in). It is a most-significant-
// digit radix sort whose digits are eight bytes of the key: each digit is
// sorted by a stable least-significant-byte radix sort (branch-free, and a
// byte that every key shares costs one counting pass), then every run of
// keys that agree so far goes on with the next eight bytes. Keys are read
// once per digit, so long common prefixes ("ns/pod-00…") cost little, and
// no input is quadratic.
//
// Changes logged in key order (a list from a source usually is) are
// recognized in one pass and not moved.
func sortKeys[T any](a []item[T]) { sortKeysTmp(a, nil) }

// sortKeysTmp is sortKeys with scratch: tmp is used when it holds at
// least len(a) items (a fold's pooled scratch), else one is allocated.
func sortKeysTmp[T any](a, tmp []item[T]) {
	sorted := true
	for i := 1; i < len(a) && sorted; i++ {
		sorted = a[i-1].c.key <= a[i].c.key // equal keys are in log order
	}
	if !sorted {
		if len(tmp) < len(a) {
			tmp = make([]item[T], len(a))
		}
		msd(a, tmp[:len(a)], 0)
	}
}

// window returns the eight bytes of key at d, big-endian, zero-padded.
func window(key string, d int) uint64 {
	if len(key) >= d+8 {
		k := key[d : d+8]
		return uint64(k[7]) | uint64(k[6])<<8 | uint64(k[5])<<16 | uint64(k[4])<<24 |
			uint64(k[3])<<32 | uint64(k[2])<<40 | uint64(k[1])<<48 | uint64(k[0])<<56
	}
	var w uint64
	for i := d; i < d+8; i++ {
		w <<= 8
		if i < len(key) {
			w |= uint64(key[i])
		}
	}
	return w
}

// cmpItem orders changes by key, then by log position.
func cmpItem[T any](a, b item[T]) int {
	if c := strings.Compare(a.c.key, b.c.key); c != 0 {
		return c
	}
	return int(a.pos) - int(b.pos)
}

// msd sorts a, whose keys agree before d, by key and log position; tmp is
// scratch of at least len(a).
func msd[T any](a, tmp []item[T], d int) {
	if len(a) < 24 {
		insertion(a)
		return
	}
	longer := false // some key goes on after this digit
	for i := range a {
		k := a[i].c.key
		a[i].w = window(k, d)
		longer = longer || len(k) > d+8
	}
	lsd(a, tmp)
	for i := 0; i < len(a); {
		j := i + 1
		for j < len(a) && a[j].w == a[i].w {
			j++
		}
		if j-i > 1 {
			if longer {
				msd(a[i:j], tmp, d+8)
			} else {
				// Every key ends here: equal digits mean equal keys
				// (already in log order), or keys that differ only in
				// trailing zero bytes.
				insertion(a[i:j])
			}
		}
		i = j
	}
}

// lsd sorts a by w, stably, one byte at a time from the lowest, skipping
// the bytes that every item shares.
func lsd[T any](a, tmp []item[T]) {
	var count [8][256]uint32
	for i := range a {
		w := a[i].w
		for b := range 8 {
			count[b][uint8(w>>(8*b))]++
		}
	}
	src, dst := a, tmp[:len(a)]
	for b := range 8 {
		c := &count[b]
		if c[uint8(src[0].w>>(8*b))] == uint32(len(src)) {
			continue
		}
		sum := uint32(0)
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for i := range src {
			d := uint8(src[i].w >> (8 * b))
			dst[c[d]] = src[i]
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}

// insertion sorts a small a by key and log position.
func insertion[T any](a []item[T]) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && cmpItem(a[j], a[j-1]) < 0; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}
