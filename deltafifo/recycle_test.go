package deltafifo

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRetainedDeltasSurviveRecycling: process owns the Deltas it is
// handed. Keeping them while the FIFO recycles its per-key records for
// thousands of later keys (single and multiple deltas, deletes collapsing)
// must leave them exactly as they were handed out.
func TestRetainedDeltasSurviveRecycling(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	ctx := context.Background()
	type kept struct {
		ds   Deltas[*obj]
		want Deltas[*obj]
	}
	var all []kept
	// popAll leaves leave keys queued: a FIFO that drains completely
	// after a large backlog lets go of its free list (see
	// TestIdleFIFOReleasesItsMemory).
	popAll := func(leave int) {
		for f.Len() > leave {
			require.NoError(t, f.Pop(ctx, func(ds Deltas[*obj], _ bool) error {
				all = append(all, kept{ds: ds, want: append(Deltas[*obj](nil), ds...)})
				return nil
			}))
		}
	}
	rv := 0
	next := func() string { rv++; return strconv.Itoa(rv) }
	for round := range 4 {
		for i := range 3 * freeMax {
			x := o("k"+strconv.Itoa(i), round)
			require.NoError(t, f.Add(x, next()))
			if i%3 == 1 {
				require.NoError(t, f.Update(x, next()))
			}
			if i%3 == 2 {
				require.NoError(t, f.Delete(x, next()))
				require.NoError(t, f.Delete(x, next()))
			}
		}
		popAll(min(round/3, 1))
	}
	require.Len(t, all, 4*3*freeMax-1)
	for i, k := range all {
		require.Equal(t, k.want, k.ds, "deltas %d changed after being handed out", i)
		newest, ok := k.ds.Newest()
		require.True(t, ok)
		switch key := newest.Object.Key; {
		case len(k.ds) == 1:
			require.Equal(t, Added, newest.Type, key)
		case len(k.ds) == 2 && newest.Type == Updated:
		case len(k.ds) == 2 && newest.Type == Deleted:
			require.Equal(t, strconv.Itoa(mustAtoi(t, k.ds[0].ResourceVersion)+1), newest.ResourceVersion, "the older delete is kept")
		default:
			t.Fatalf("unexpected deltas for %s: %v", key, k.ds)
		}
	}
	// The free list stays bounded.
	f.mu.Lock()
	defer f.mu.Unlock()
	require.LessOrEqual(t, len(f.free), freeMax)
	require.Positive(t, len(f.free))
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// TestEntrySlabsGrowWithUse: a FIFO of a few keys holds a few entries;
// chunks double up to entrySlab and no further; finished entries are
// reused before anything new is allocated.
func TestEntrySlabsGrowWithUse(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	ctx := context.Background()
	rv := 0
	next := func() string { rv++; return strconv.Itoa(rv) }
	popAll := func() {
		for f.Len() > 0 {
			require.NoError(t, f.Pop(ctx, func(Deltas[*obj], bool) error { return nil }))
		}
	}
	slabbed := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.slabbed
	}
	for i := range 1000 {
		for k := range idleKeys + 1 {
			require.NoError(t, f.Add(o("k"+strconv.Itoa(k), i), next()))
		}
		popAll()
	}
	require.Equal(t, 2*entrySlabMin, slabbed(), "a few keys at a time fit in the first chunks, reused")

	last := slabbed()
	for i := range 1000 {
		require.NoError(t, f.Add(o("k"+strconv.Itoa(i), 0), next()))
		if now := slabbed(); now != last {
			require.Equal(t, min(entrySlab, last), now-last, "each chunk is as large as the earlier ones together, up to entrySlab")
			last = now
		}
	}
	require.Less(t, last, 1000+entrySlab, "at most one chunk of slack")
	popAll()
}

// TestIdleFIFOReleasesItsMemory: a FIFO that went idle after holding at
// most idleKeys keys (a kubelet's, between two events about its pods)
// holds no map, ring or entries, and works as before on the next change;
// one that held more keeps them for its next burst.
func TestIdleFIFOReleasesItsMemory(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	ctx := context.Background()
	rv := 0
	next := func() string { rv++; return strconv.Itoa(rv) }
	released := func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.items == nil && f.queue.buf == nil && f.inflight == nil && f.free == nil && f.slab == nil && f.slabbed == 0
	}
	require.True(t, released(), "a new FIFO allocates nothing")
	for round := range 3 {
		for k := range idleKeys {
			require.NoError(t, f.Add(o("k"+strconv.Itoa(k), round), next()))
		}
		for k := range idleKeys {
			require.NoError(t, f.Pop(ctx, func(ds Deltas[*obj], _ bool) error {
				newest, ok := ds.Newest()
				require.True(t, ok)
				require.Equal(t, "k"+strconv.Itoa(k), newest.Object.Key)
				require.Equal(t, round, newest.Object.Val)
				require.False(t, released(), "not idle while process runs")
				return nil
			}))
		}
		require.True(t, released(), "round %d: idle again", round)
	}
	for k := range idleKeys + 1 {
		require.NoError(t, f.Add(o("k"+strconv.Itoa(k), 9), next()))
	}
	for f.Len() > 0 {
		require.NoError(t, f.Pop(ctx, func(Deltas[*obj], bool) error { return nil }))
	}
	require.False(t, released(), "a FIFO that held more than idleKeys keys keeps its memory")
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Len(t, f.free, idleKeys+1)
}
