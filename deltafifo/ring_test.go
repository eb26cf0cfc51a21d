package deltafifo

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// The ring agrees with a plain slice through growth, wrap-around,
// removal from the middle and shrinking.
func TestRingAgreesWithASlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var r ring[int]
	var want []int
	next, peak := 0, 0
	for step := range 60_000 {
		// Phases of growth and of draining, so the buffer grows past
		// 1024 and shrinks again.
		growing := (step/6_000)%2 == 0
		switch op := rng.IntN(10); {
		case op < 6 == growing || len(want) == 0:
			r.push(next)
			want = append(want, next)
			next++
		case op < 8:
			require.Equal(t, want[0], r.popFront())
			want = want[1:]
		default:
			i := rng.IntN(min(len(want), 4))
			require.Equal(t, want[i], r.removeAt(i))
			want = slices.Delete(want, i, i+1)
		}
		if r.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, r.len(), len(want))
		}
		if len(want) > 0 {
			i := rng.IntN(len(want))
			if *r.front() != want[0] || r.at(i) != want[i] {
				t.Fatalf("step %d: front %d at(%d) %d, want %d and %d", step, *r.front(), i, r.at(i), want[0], want[i])
			}
		}
		if len(r.buf) > max(1024, 16*len(want)+16) {
			t.Fatalf("step %d: capacity %d for %d elements: memory not given back", step, len(r.buf), len(want))
		}
		peak = max(peak, len(r.buf))
	}
	require.Greater(t, peak, 1024, "the buffer grew past the shrink threshold")
}
