package indexer

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkTable verifies the control bytes and counts of t.
func checkTable[T any](tb testing.TB, t *table[T]) {
	tb.Helper()
	n, used := 0, 0
	for s, c := range t.cells {
		b := uint8(t.ctrl[s/8] >> (s % 8 * 8))
		switch {
		case b&0x80 != 0:
			n++
			used++
			if c == nil || b != tag(t.hash(c.key)) {
				tb.Fatalf("slot %d: control %#x does not match its cell", s, b)
			}
		case b == ctrlDeleted:
			used++
			fallthrough
		default:
			if c != nil {
				tb.Fatalf("slot %d: control %#x but a cell", s, b)
			}
		}
	}
	if n != t.n || used != t.used {
		tb.Fatalf("table counts %d full, %d used; holds %d, %d", t.n, t.used, n, used)
	}
	if used > len(t.cells)*7/8 {
		tb.Fatalf("table over its load: %d used of %d", used, len(t.cells))
	}
}

func TestMatchByte(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for range 10000 {
		w := r.Uint64()
		if r.IntN(2) == 0 { // make some bytes equal
			w &= 0x00ff00ff00ff00ff * uint64(r.IntN(2))
		}
		b := uint8(r.Uint32())
		if r.IntN(3) == 0 {
			b = uint8(w >> (8 * r.IntN(8)))
		}
		var want uint64
		for i := range 8 {
			if uint8(w>>(8*i)) == b {
				want |= 0x80 << (8 * i)
			}
		}
		require.Equal(t, want, matchByte(w, b), "w=%#x b=%#x", w, b)
	}
	require.Equal(t, 64, bits.Len64(matchFree(0)))
}

// TestTableAgainstMap drives a table with random inserts and removes,
// enough to grow it and to fill it with tombstones, and compares it with a
// map after every step.
func TestTableAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	tab := newTable[int](0)
	model := map[string]int{}
	for step := range 20000 {
		k := fmt.Sprint("key-", r.IntN(300))
		h := tab.hash(k)
		s := tab.find(k, h)
		_, inModel := model[k]
		require.Equal(t, inModel, s >= 0, "step %d: find(%s)", step, k)
		if r.IntN(2) == 0 {
			if s < 0 {
				tab.insert(&cell[int]{key: k, obj: step}, h)
			} else {
				tab.cells[s].obj = step
			}
			model[k] = step
		} else if s >= 0 {
			tab.remove(s)
			delete(model, k)
		}
		if step%500 == 0 {
			checkTable(t, tab)
		}
	}
	checkTable(t, tab)
	require.Equal(t, len(model), tab.n)
	for k, v := range model {
		c, ok := tab.get(k)
		require.True(t, ok)
		require.Equal(t, v, c.obj)
	}
	_, ok := tab.get("absent")
	require.False(t, ok)
	// Sized for n, a table holds n without growing.
	sized := newTable[int](1000)
	groups := len(sized.ctrl)
	for i := range 1000 {
		k := fmt.Sprint(i)
		sized.insert(&cell[int]{key: k}, sized.hash(k))
	}
	require.Equal(t, groups, len(sized.ctrl))
	checkTable(t, sized)
}
