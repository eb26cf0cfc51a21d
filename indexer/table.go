package indexer

import (
	"hash/maphash"
	"math/bits"
)

// cell is one stored object with its key. The hash table, the store and
// every index entry of the key point at the same cell, so that the key's
// string header is stored once and an update that changes no index value
// writes only obj.
//
// A cell whose gen is older than its Indexer's is reachable from a
// snapshot and never changes again: a write to its key replaces it.
type cell[T any] struct {
	key string
	obj T
	gen uint64
}

// table is an open-addressing hash table of cells by key: the Indexer's
// primary store, which Get, Len and every write use. Slots come in groups
// of eight with one control byte each (empty, deleted, or full with seven
// bits of the hash), matched eight at a time, as in Go's own maps; a slot
// costs nine bytes, against twenty-five for a map[string]*cell
// (measured against one in the package doc).
//
// A table is not safe for concurrent use; the Indexer's lock guards it.
type table[T any] struct {
	seed  maphash.Seed
	ctrl  []uint64 // one control word per group, byte i for slot i
	cells []*cell[T]
	mask  uint64 // number of groups - 1
	n     int    // full slots
	used  int    // full and deleted slots
}

const (
	ctrlEmpty   = 0x00
	ctrlDeleted = 0x7f
	lsbs        = 0x0101010101010101
	msbs        = 0x8080808080808080
)

// newTable returns a table with room for n cells before it grows.
func newTable[T any](n int) *table[T] {
	t := &table[T]{seed: maphash.MakeSeed()}
	t.init(groupsFor(n))
	return t
}

// groupsFor returns the number of groups (a power of two) that hold n
// cells at a load of at most 7/8.
func groupsFor(n int) int {
	g := (n*8/7 + 7) / 8
	if g < 1 {
		g = 1
	}
	return 1 << bits.Len(uint(g-1))
}

func (t *table[T]) init(groups int) {
	t.ctrl = make([]uint64, groups)
	t.cells = make([]*cell[T], groups*8)
	t.mask = uint64(groups - 1)
	t.n, t.used = 0, 0
}

func (t *table[T]) hash(key string) uint64 { return maphash.String(t.seed, key) }

// matchByte returns a mask with the high bit set in every byte of w that
// equals b.
func matchByte(w uint64, b uint8) uint64 {
	x := w ^ (lsbs * uint64(b))
	return ^(((x & ^uint64(msbs)) + ^uint64(msbs)) | x | ^uint64(msbs))
}

// matchFree returns a mask with the high bit set in every empty or
// deleted byte of w (full bytes have the high bit set).
func matchFree(w uint64) uint64 { return ^w & msbs }

// tag is the control byte of a full slot whose key hashes to h.
func tag(h uint64) uint8 { return uint8(h>>57) | 0x80 }

// find returns the slot holding key (h is its hash), or -1.
func (t *table[T]) find(key string, h uint64) int {
	g, tg := h&t.mask, tag(h)
	for i := uint64(1); ; i++ {
		w := t.ctrl[g]
		for m := matchByte(w, tg); m != 0; m &= m - 1 {
			s := int(g*8) + bits.TrailingZeros64(m)>>3
			if c := t.cells[s]; c.key == key {
				return s
			}
		}
		if matchByte(w, ctrlEmpty) != 0 {
			return -1
		}
		g = (g + i) & t.mask // triangular probing visits every group
	}
}

// get returns the cell stored under key.
func (t *table[T]) get(key string) (*cell[T], bool) {
	if s := t.find(key, t.hash(key)); s >= 0 {
		return t.cells[s], true
	}
	return nil, false
}

// insert adds c, whose key (hashing to h) the table does not hold.
func (t *table[T]) insert(c *cell[T], h uint64) {
	if t.used >= len(t.cells)*7/8 {
		t.grow()
	}
	g := h & t.mask
	for i := uint64(1); ; i++ {
		if m := matchFree(t.ctrl[g]); m != 0 {
			b := bits.TrailingZeros64(m) >> 3
			if uint8(t.ctrl[g]>>(b*8)) == ctrlEmpty {
				t.used++
			}
			t.setCtrl(g, b, tag(h))
			t.cells[int(g*8)+b] = c
			t.n++
			return
		}
		g = (g + i) & t.mask
	}
}

// remove empties slot s.
func (t *table[T]) remove(s int) {
	g, b := uint64(s/8), s%8
	t.cells[s] = nil
	t.n--
	// A group that still has an empty slot never overflowed since the
	// last rehash, so no probe sequence passes through it: its slot can
	// be empty again. Otherwise it must stay a tombstone.
	if matchByte(t.ctrl[g], ctrlEmpty) != 0 {
		t.setCtrl(g, b, ctrlEmpty)
		t.used--
	} else {
		t.setCtrl(g, b, ctrlDeleted)
	}
}

func (t *table[T]) setCtrl(g uint64, b int, v uint8) {
	shift := uint(b) * 8
	t.ctrl[g] = t.ctrl[g]&^(0xff<<shift) | uint64(v)<<shift
}

// grow rehashes into a table twice as large, or as large when most of
// the used slots are tombstones.
func (t *table[T]) grow() {
	old := t.cells
	groups := len(t.ctrl)
	if t.n >= len(t.cells)*7/16 {
		groups *= 2
	}
	t.init(groups)
	for _, c := range old {
		if c != nil {
			t.insert(c, t.hash(c.key))
		}
	}
}
