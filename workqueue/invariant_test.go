package workqueue

import (
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// history records, per item, windows of global tickets around each call:
// a ticket taken just before a call and one taken just after bracket the
// instant the queue acted on it.
type history struct {
	tick  atomic.Uint64
	mu    sync.Mutex
	adds  map[int][][2]uint64 // before, after
	gets  map[int][][3]uint64 // before Get, after Get, before Done
	held  []atomic.Int32
	fails atomic.Int32
}

func (h *history) add(item int, f func()) {
	before := h.tick.Add(1)
	f()
	after := h.tick.Add(1)
	h.mu.Lock()
	h.adds[item] = append(h.adds[item], [2]uint64{before, after})
	h.mu.Unlock()
}

// TestConcurrentInvariant hammers one queue with producers and workers
// that use every kind of add, then drains it, and checks from the
// recorded history that
//   - no item was ever held by two workers at once,
//   - no add was lost: each item's last add is followed by a Get that
//     returned after it began,
//   - dedup holds: every Get after an item's first is justified by an
//     add that may have happened after the previous Get took it,
//   - the queue ends empty with every entry retired.
//
// Fixed seeds in CI; CTRLKIT_SOAK=1 runs many more and longer.
func TestConcurrentInvariant(t *testing.T) {
	seeds, ops := 6, 2000
	if os.Getenv("CTRLKIT_SOAK") != "" {
		seeds, ops = 200, 20000
	}
	for seed := range seeds {
		t.Run(strconv.Itoa(seed), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runInvariant(t, uint64(seed), ops) })
		})
	}
}

func runInvariant(t *testing.T, seed uint64, ops int) {
	const (
		items     = 24
		producers = 6
		workers   = 6
	)
	h := &history{adds: map[int][][2]uint64{}, gets: map[int][][3]uint64{}, held: make([]atomic.Int32, items)}
	q := New(Options[int]{
		RateLimiter:   NewItemExponentialFailureRateLimiter[int](time.Microsecond, 10*time.Millisecond),
		AgingInterval: time.Millisecond,
	})
	var producing atomic.Bool
	producing.Store(true)

	// randomAdd performs one random kind of add of a random item.
	randomAdd := func(r *rand.Rand, item int) {
		switch r.IntN(6) {
		case 0, 1:
			h.add(item, func() { q.Add(item) })
		case 2:
			d := time.Duration(r.IntN(3000)) * time.Microsecond
			h.add(item, func() { q.AddAfter(item, d) })
		case 3:
			h.add(item, func() { q.AddRateLimited(item) })
		case 4:
			o := AddOptions{Priority: r.IntN(5) - 2, After: time.Duration(r.IntN(2)) * time.Millisecond, RateLimited: r.IntN(4) == 0}
			h.add(item, func() { q.AddWithOptions(item, o) })
		default:
			q.Forget(item)
		}
	}

	var ws sync.WaitGroup
	for w := range workers {
		r := rand.New(rand.NewPCG(seed, uint64(100+w)))
		ws.Go(func() {
			for {
				before := h.tick.Add(1)
				item, shutdown := q.Get()
				after := h.tick.Add(1)
				if shutdown {
					return
				}
				if !h.held[item].CompareAndSwap(0, 1) {
					h.fails.Add(1)
					t.Errorf("item %d handed to two workers at once", item)
				}
				switch r.IntN(4) {
				case 0:
					time.Sleep(time.Duration(r.IntN(200)) * time.Microsecond)
				case 1:
					if producing.Load() {
						randomAdd(r, item) // a worker re-adding its own item
					}
				}
				h.held[item].Store(0)
				done := h.tick.Add(1)
				h.mu.Lock()
				h.gets[item] = append(h.gets[item], [3]uint64{before, after, done})
				h.mu.Unlock()
				q.Done(item)
			}
		})
	}
	var ps sync.WaitGroup
	for p := range producers {
		r := rand.New(rand.NewPCG(seed, uint64(p)))
		ps.Go(func() {
			for range ops {
				randomAdd(r, r.IntN(items))
				if r.IntN(8) == 0 {
					time.Sleep(time.Duration(r.IntN(100)) * time.Microsecond)
				}
			}
		})
	}
	ps.Wait()
	producing.Store(false)
	time.Sleep(time.Second) // every delay (at most ~12ms) has expired
	q.ShutDownWithDrain()
	ws.Wait()

	require.Zero(t, h.fails.Load())
	require.Zero(t, q.Len())
	require.Zero(t, q.c.live(), "every entry retired")
	require.Zero(t, q.c.busy)

	total := 0
	for item := range items {
		adds, gets := h.adds[item], h.gets[item]
		total += len(gets)
		if len(adds) == 0 {
			require.Empty(t, gets, "item %d handed out without an add", item)
			continue
		}
		slices.SortFunc(gets, func(a, b [3]uint64) int { return int(a[1]) - int(b[1]) })
		lastAdd := slices.MaxFunc(adds, func(a, b [2]uint64) int { return int(a[0]) - int(b[0]) })
		require.NotEmpty(t, gets, "item %d: adds lost", item)
		require.Greater(t, gets[len(gets)-1][1], lastAdd[0], "item %d: its last add was never processed", item)
		for i := 1; i < len(gets); i++ {
			prev, cur := gets[i-1], gets[i]
			require.Less(t, prev[2], cur[1], "item %d: Get %d returned before the previous Done", item, i)
			justified := slices.ContainsFunc(adds, func(a [2]uint64) bool { return a[1] > prev[0] && a[0] < cur[1] })
			require.True(t, justified, "item %d: Get %d not justified by any add (dedup broken)", item, i)
		}
	}
	require.Positive(t, total)
	t.Logf("seed %d: %d gets of %d items", seed, total, items)
}

// TestConcurrentAddsDedup: many goroutines adding the same item while it
// is queued yield one Get.
func TestConcurrentAddsDedup(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() {
				for range 100 {
					q.Add("x")
				}
			})
		}
		wg.Wait()
		require.Equal(t, 1, q.Len())
		require.Equal(t, "x", mustGet(t, q))
		q.Done("x")
		require.Zero(t, q.Len())
		q.ShutDown()
	})
}
