package deltafifo

import (
	"context"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// liveHeap returns the live heap after a full collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A FIFO that held many keys (an initial list) and was drained gives the
// room of its key map back, instead of keeping tens of bytes per key of
// that list for the life of the informer; and it keeps working after.
func TestDrainedFIFOGivesBackMapRoom(t *testing.T) {
	const n = 50_000
	objs := make([]*obj, n)
	for i := range objs {
		objs[i] = o("ns/obj-"+strconv.Itoa(i), i)
	}
	ctx := context.Background()
	f, err := New(keyOf, Options[*obj]{})
	require.NoError(t, err)
	base := liveHeap()

	require.NoError(t, f.Replace(objs, "1"))
	full := liveHeap()
	popped := 0
	for f.Len() > 0 {
		require.NoError(t, f.Pop(ctx, func(Deltas[*obj], bool) error { popped++; return nil }))
	}
	require.Equal(t, n, popped)
	drained := liveHeap()
	runtime.KeepAlive(f)

	grown := float64(full) - float64(base)
	left := float64(drained) - float64(base)
	// The map alone took more than 24 bytes per key; what is left is a
	// small fraction of the full queue.
	require.Greater(t, grown, 24.0*n)
	require.Less(t, left, grown/10, "drained FIFO still holds %.0f of %.0f bytes", left, grown)

	// Keys queue and pop as before, below and above the threshold.
	for _, m := range []int{3, shrinkMinKeys + 1} {
		for _, x := range objs[:m] {
			require.NoError(t, f.Update(x, "2"))
		}
		var got []string
		for range m {
			require.NoError(t, f.Pop(ctx, func(d Deltas[*obj], _ bool) error {
				got = append(got, d[0].Object.Key)
				require.Equal(t, Updated, d[0].Type)
				return nil
			}))
		}
		require.Len(t, got, m)
		require.Equal(t, objs[0].Key, got[0])
		require.Equal(t, objs[m-1].Key, got[m-1])
		require.Zero(t, f.Len())
	}
}
