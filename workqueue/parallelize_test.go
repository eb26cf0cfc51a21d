package workqueue

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

func TestParallelizeUntilRunsEveryPieceOnce(t *testing.T) {
	for _, tc := range []struct{ workers, pieces int }{{1, 10}, {4, 100}, {16, 3}, {3, 1}} {
		seen := make([]atomic.Int32, tc.pieces)
		var running, peak atomic.Int32
		err := ParallelizeUntil(context.Background(), tc.workers, tc.pieces, func(p int) {
			n := running.Add(1)
			for {
				old := peak.Load()
				if n <= old || peak.CompareAndSwap(old, n) {
					break
				}
			}
			seen[p].Add(1)
			running.Add(-1)
		})
		require.NoError(t, err)
		for p := range seen {
			require.Equal(t, int32(1), seen[p].Load(), "piece %d of %+v", p, tc)
		}
		require.LessOrEqual(t, int(peak.Load()), min(tc.workers, tc.pieces))
	}
}

func TestParallelizeUntilUsesAllWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		err := ParallelizeUntil(context.Background(), 4, 8, func(int) { time.Sleep(time.Second) })
		require.NoError(t, err)
		require.Equal(t, 2*time.Second, time.Since(start))
	})
}

func TestParallelizeUntilStopsWhenContextEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
		defer cancel()
		var ran atomic.Int32
		err := ParallelizeUntil(ctx, 2, 100, func(int) {
			ran.Add(1)
			time.Sleep(time.Second)
		})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, int32(4), ran.Load(), "two rounds of two started before the deadline")
	})
}

func TestParallelizeUntilReportsPanic(t *testing.T) {
	var mu sync.Mutex
	var ran []int
	err := ParallelizeUntil(context.Background(), 1, 10, func(p int) {
		mu.Lock()
		ran = append(ran, p)
		mu.Unlock()
		if p == 3 {
			panic("boom")
		}
	})
	require.ErrorIs(t, err, ErrPanicked)
	require.ErrorContains(t, err, "piece 3: boom")
	require.Equal(t, []int{0, 1, 2, 3}, ran, "no piece after the panic")
}

func TestParallelizeUntilRejectsBadArguments(t *testing.T) {
	fn := func(int) { t.Fatal("ran") }
	ctx := context.Background()
	require.ErrorContains(t, ParallelizeUntil(ctx, 0, 1, fn), "workqueue: ParallelizeUntil: workers must be at least 1")
	require.ErrorContains(t, ParallelizeUntil(ctx, 1, -1, fn), "pieces must not be negative")
	require.ErrorContains(t, ParallelizeUntil(ctx, 1, 1, nil), "nil fn")
	//nolint:staticcheck // a nil context is the mistake under test
	require.ErrorContains(t, ParallelizeUntil(nil, 1, 1, fn), "workqueue: ParallelizeUntil: context is nil")
	require.NoError(t, ParallelizeUntil(ctx, 1, 0, fn))
}
