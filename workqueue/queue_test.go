package workqueue

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/stretchr/testify/require"
)

// queueGoroutines counts the goroutines of the process that run code of
// this package other than the tests themselves. (runtime.NumGoroutine
// counts every goroutine of the process, including those of tests that are
// still finishing, so it cannot tell this queue's goroutines apart.)
func queueGoroutines() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	// The first goroutine in the dump is the caller itself.
	for _, g := range strings.Split(string(buf), "\n\n")[1:] {
		for _, line := range strings.Split(g, "\n") {
			// Frames name their function; "created by" lines name the parent.
			if strings.HasPrefix(line, "github.com/ctrlkit/ctrlkit/workqueue.") &&
				!strings.HasPrefix(line, "github.com/ctrlkit/ctrlkit/workqueue.Test") {
				count++
				break
			}
		}
	}
	return count
}

// getAsync starts a Get and returns a channel that yields its result.
func getAsync[T comparable](q *Queue[T]) <-chan T {
	ch := make(chan T, 1)
	go func() {
		item, shutdown := q.Get()
		if !shutdown {
			ch <- item
		}
		close(ch)
	}()
	return ch
}

func mustGet[T comparable](t *testing.T, q *Queue[T]) T {
	t.Helper()
	require.Positive(t, q.Len(), "nothing ready")
	item, shutdown := q.Get()
	require.False(t, shutdown)
	return item
}

func TestGetBlocksUntilAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		ch := getAsync(q)
		synctest.Wait()
		select {
		case <-ch:
			t.Fatal("Get returned on an empty queue")
		default:
		}
		q.Add("a")
		synctest.Wait()
		require.Equal(t, "a", <-ch)
		q.Done("a")
		q.ShutDown()
	})
}

// TestAddWakesExactlyOneGet: each parked Get gets its own item.
func TestAddWakesExactlyOneGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{})
		var got atomic.Int32
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if _, shutdown := q.Get(); !shutdown {
					got.Add(1)
				}
			})
		}
		synctest.Wait()
		q.Add(1)
		synctest.Wait()
		require.Equal(t, int32(1), got.Load())
		q.Add(2)
		synctest.Wait()
		require.Equal(t, int32(2), got.Load())
		q.ShutDown()
		wg.Wait()
		require.Equal(t, int32(2), got.Load(), "the third Get saw shutdown")
	})
}

func TestAddWhileProcessingIsHandedOutAgainAfterDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		item := mustGet(t, q)
		q.Add("a")
		ch := getAsync(q)
		synctest.Wait()
		select {
		case <-ch:
			t.Fatal("item handed to a second worker while processing")
		default:
		}
		q.Done(item)
		synctest.Wait()
		require.Equal(t, "a", <-ch)
		q.Done("a")
		require.Zero(t, q.Len())
		q.ShutDown()
	})
}

func TestShutDownHandsOutRemainingItems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		q.Add("b")
		q.ShutDown()
		require.True(t, q.ShuttingDown())
		q.Add("c") // ignored
		require.Equal(t, 2, q.Len())
		require.Equal(t, "a", mustGet(t, q))
		require.Equal(t, "b", mustGet(t, q))
		_, shutdown := q.Get()
		require.True(t, shutdown)
		q.Done("a")
		q.Done("b")
	})
}

func TestShutDownWakesParkedGets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		var wg sync.WaitGroup
		var shut atomic.Int32
		for range 4 {
			wg.Go(func() {
				if _, s := q.Get(); s {
					shut.Add(1)
				}
			})
		}
		synctest.Wait()
		q.ShutDown()
		wg.Wait()
		require.Equal(t, int32(4), shut.Load())
	})
}

func TestAddAfterShutDownIsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.ShutDown()
		q.Add("a")
		q.AddAfter("b", time.Second)
		q.AddRateLimited("c")
		q.AddWithOptions("d", AddOptions{Priority: 1})
		q.AddWithOptions("e", AddOptions{RateLimited: true})
		time.Sleep(time.Hour)
		require.Zero(t, q.Len())
		require.Zero(t, q.NumRequeues("c"), "no failure recorded after shutdown")
		_, shutdown := q.Get()
		require.True(t, shutdown)
	})
}

// TestShutDownWithDrainWaitsForQueuedAndProcessing: unlike client-go, the
// drain waits for queued items too, and for items re-added while being
// processed.
func TestShutDownWithDrainWaitsForQueuedAndProcessing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("busy")
		q.Add("queued")
		busy := mustGet(t, q)
		q.Add("busy") // dirty: must be processed again
		var drained atomic.Bool
		go func() {
			q.ShutDownWithDrain()
			drained.Store(true)
		}()
		synctest.Wait()
		require.True(t, q.ShuttingDown())
		require.False(t, drained.Load())

		q.Done(busy)
		synctest.Wait()
		require.False(t, drained.Load(), "queued and dirty items not done yet")
		require.Equal(t, "queued", mustGet(t, q))
		q.Done("queued")
		synctest.Wait()
		require.False(t, drained.Load(), "dirty item not done yet")
		require.Equal(t, "busy", mustGet(t, q))
		time.Sleep(time.Minute)
		require.False(t, drained.Load())
		q.Done("busy")
		synctest.Wait()
		require.True(t, drained.Load())
	})
}

func TestShutDownWithDrainOfEmptyQueueReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddAfter("later", time.Hour) // waiting items are dropped
		q.ShutDownWithDrain()
		q.ShutDownWithDrain() // idempotent
		require.NoError(t, q.ShutDownWithDrainContext(context.Background()))
	})
}

func TestShutDownWithDrainFromSeveralGoroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		item := mustGet(t, q)
		var wg sync.WaitGroup
		var returned atomic.Int32
		for range 3 {
			wg.Go(func() {
				q.ShutDownWithDrain()
				returned.Add(1)
			})
		}
		synctest.Wait()
		require.Zero(t, returned.Load())
		q.Done(item)
		wg.Wait()
		require.Equal(t, int32(3), returned.Load())
	})
}

// TestShutDownEndsPendingDrain: as in client-go, a ShutDown after
// ShutDownWithDrain (a second SIGTERM) ends the drain at once, even though
// a worker never calls Done; a drain started afterwards waits again.
func TestShutDownEndsPendingDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("stuck")
		q.Add("queued")
		item := mustGet(t, q) // this worker never calls Done (yet)
		var returned atomic.Int32
		var ctxErr atomic.Value
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				q.ShutDownWithDrain()
				returned.Add(1)
			})
		}
		wg.Go(func() {
			ctxErr.Store(q.ShutDownWithDrainContext(context.Background()))
			returned.Add(1)
		})
		time.Sleep(time.Hour)
		synctest.Wait()
		require.Zero(t, returned.Load(), "a drain waits for the stuck worker")

		q.ShutDown() // the second SIGTERM
		wg.Wait()
		require.Equal(t, int32(3), returned.Load())
		require.ErrorIs(t, ctxErr.Load().(error), ErrDrainAborted)

		// The queue is shut down but still hands out what was queued.
		require.True(t, q.ShuttingDown())
		require.Equal(t, "queued", mustGet(t, q))

		// A drain started after the forcing ShutDown waits again.
		var again atomic.Bool
		go func() {
			q.ShutDownWithDrain()
			again.Store(true)
		}()
		synctest.Wait()
		require.False(t, again.Load())
		q.Done("queued")
		q.Done(item)
		synctest.Wait()
		require.True(t, again.Load())
		require.NoError(t, q.ShutDownWithDrainContext(context.Background()))
	})
}

// TestShutDownBeforeDrainDoesNotEndIt: a ShutDown that comes before the
// drain ends nothing; only one that comes while a drain waits does.
func TestShutDownBeforeDrainDoesNotEndIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		item := mustGet(t, q)
		q.ShutDown()
		var drained atomic.Bool
		go func() {
			q.ShutDownWithDrain()
			drained.Store(true)
		}()
		synctest.Wait()
		require.False(t, drained.Load())
		q.Done(item)
		synctest.Wait()
		require.True(t, drained.Load())
	})
}

func TestShutDownWithDrainContextHonoursDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		item := mustGet(t, q)
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		err := q.ShutDownWithDrainContext(ctx)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.Equal(t, time.Second, time.Since(start))
		q.Done(item)
		require.NoError(t, q.ShutDownWithDrainContext(context.Background()))
	})
}

func TestShutDownWithDrainContextRejectsNilContext(t *testing.T) {
	q := New(Options[string]{})
	//nolint:staticcheck // a nil context is the mistake under test
	require.ErrorContains(t, q.ShutDownWithDrainContext(nil), "workqueue: ShutDownWithDrainContext: context is nil")
	require.False(t, q.ShuttingDown())
	q.ShutDown()
}

func TestAddAfterReadyExactlyAfterDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		start := time.Now()
		q.AddAfter("a", 3*time.Second)
		item, _ := q.Get()
		require.Equal(t, "a", item)
		require.Equal(t, 3*time.Second, time.Since(start))
		q.Done(item)
		q.ShutDown()
	})
}

func TestAddAfterNonPositiveIsAdd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddAfter("a", 0)
		q.AddAfter("b", -time.Second)
		require.Equal(t, 2, q.Len())
		q.ShutDown()
	})
}

func TestAddAfterKeepsEarliestReadyTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		start := time.Now()
		q.AddAfter("a", 5*time.Second)
		q.AddAfter("a", 2*time.Second)
		q.AddAfter("a", 9*time.Second)
		item, _ := q.Get()
		require.Equal(t, 2*time.Second, time.Since(start))
		q.Done(item)
		time.Sleep(time.Minute)
		require.Zero(t, q.Len(), "later ready times were merged, not kept")
		q.ShutDown()
	})
}

func TestDelayedItemsInReadyOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{})
		for _, d := range []int{5, 1, 4, 2, 3} {
			q.AddAfter(d, time.Duration(d)*time.Second)
		}
		start := time.Now()
		for want := 1; want <= 5; want++ {
			item, _ := q.Get()
			require.Equal(t, want, item)
			require.Equal(t, time.Duration(want)*time.Second, time.Since(start))
			q.Done(item)
		}
		q.ShutDown()
	})
}

// TestNoGoroutineWhileWaiting: a queue with delayed items runs no
// goroutine until one comes due, and none after shutdown (the bubble
// would report it).
func TestNoGoroutineWhileWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddAfter("a", time.Hour)
		q.AddAfter("b", 2*time.Hour)
		synctest.Wait()
		require.Zero(t, queueGoroutines(), "goroutine running while items wait")
		time.Sleep(time.Hour + time.Second)
		synctest.Wait()
		require.Zero(t, queueGoroutines(), "timer goroutine exited after firing")
		require.Equal(t, 1, q.Len())
		q.ShutDown()
		time.Sleep(2 * time.Hour)
		require.Equal(t, 1, q.Len(), "waiting item dropped at shutdown")
	})
}

func TestAddWhileWaitingMakesItemReadyNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddAfter("a", time.Hour)
		q.Add("a")
		require.Equal(t, 1, q.Len())
		item := mustGet(t, q)
		q.Done(item)
		time.Sleep(2 * time.Hour)
		require.Zero(t, q.Len())
		q.ShutDown()
	})
}

func TestAddAfterWhileProcessingRunsAgainAfterDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		item := mustGet(t, q)
		q.AddAfter("a", time.Second)
		time.Sleep(2 * time.Second)
		require.Zero(t, q.Len(), "still processing: not handed out")
		q.Done(item)
		require.Equal(t, "a", mustGet(t, q))
		q.Done("a")
		q.ShutDown()
	})
}

// fixedLimiter is a RateLimiter that returns a scripted delay.
type fixedLimiter struct {
	mu     sync.Mutex
	d      time.Duration
	counts map[string]int
}

func (l *fixedLimiter) When(item string) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts = map[string]int{}
	}
	l.counts[item]++
	return l.d
}
func (l *fixedLimiter) Forget(item string) { l.mu.Lock(); delete(l.counts, item); l.mu.Unlock() }
func (l *fixedLimiter) NumRequeues(item string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.counts[item]
}

func TestAddRateLimitedBacksOffExponentially(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{
			RateLimiter: NewItemExponentialFailureRateLimiter[string](time.Second, time.Minute),
		})
		for n, want := range []time.Duration{1, 2, 4, 8} {
			start := time.Now()
			q.AddRateLimited("a")
			require.Equal(t, n+1, q.NumRequeues("a"))
			item, _ := q.Get()
			require.Equal(t, want*time.Second, time.Since(start))
			q.Done(item)
		}
		q.Forget("a")
		require.Zero(t, q.NumRequeues("a"))
		start := time.Now()
		q.AddRateLimited("a")
		item, _ := q.Get()
		require.Equal(t, time.Second, time.Since(start), "Forget reset the backoff")
		q.Done(item)
		q.ShutDown()
	})
}

func TestAddWithOptionsRateLimitedTakesLongerDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &fixedLimiter{d: 3 * time.Second}
		q := New(Options[string]{RateLimiter: l})
		start := time.Now()
		q.AddWithOptions("a", AddOptions{After: time.Second, RateLimited: true})
		item, _ := q.Get()
		require.Equal(t, 3*time.Second, time.Since(start))
		q.Done(item)
		start = time.Now()
		q.AddWithOptions("a", AddOptions{After: 5 * time.Second, RateLimited: true})
		item, _ = q.Get()
		require.Equal(t, 5*time.Second, time.Since(start))
		q.Done(item)
		require.Equal(t, 2, q.NumRequeues("a"))
		q.ShutDown()
	})
}

func TestGetWithPriorityOrderAndValue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddWithOptions("resync", AddOptions{Priority: LowPriority})
		q.Add("event")
		q.AddWithOptions("urgent", AddOptions{Priority: 10})
		for _, want := range []struct {
			item string
			prio int
		}{{"urgent", 10}, {"event", 0}, {"resync", LowPriority}} {
			item, prio, shutdown := q.GetWithPriority()
			require.False(t, shutdown)
			require.Equal(t, want.item, item)
			require.Equal(t, want.prio, prio)
			q.Done(item)
		}
		q.ShutDown()
	})
}

func TestAddWithOptionsDelayedPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.AddWithOptions("a", AddOptions{Priority: 1, After: time.Second})
		q.AddWithOptions("a", AddOptions{Priority: 7, After: time.Hour})
		q.Add("b")
		time.Sleep(time.Second)
		synctest.Wait() // let the timer move "a"
		item, prio, _ := q.GetWithPriority()
		require.Equal(t, "a", item)
		require.Equal(t, 7, prio, "highest priority and earliest time kept")
		q.Done(item)
		q.ShutDown()
	})
}

// TestAgingPreventsStarvation: under a steady stream of priority-0 items
// that outpaces the worker, a LowPriority item is served before every item
// enqueued more than -LowPriority × AgingInterval after it; without aging
// it starves.
func TestAgingPreventsStarvation(t *testing.T) {
	for _, tc := range []struct {
		name   string
		aging  time.Duration
		served time.Duration // 0: never within a minute
	}{
		// Two fresh items per 10ms, one served per 10ms: the backlog
		// enqueued before the low item's 10s mark is served first, so it
		// comes out at about 20s.
		{"aging", 100 * time.Millisecond, 20 * time.Second},
		{"strict", -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[int]{AgingInterval: tc.aging})
				start := time.Now()
				var mu sync.Mutex
				added := map[int]time.Duration{}
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				wg.Go(func() {
					for i := 0; ctx.Err() == nil; i += 2 {
						mu.Lock()
						added[i] = time.Since(start)
						added[i+1] = time.Since(start)
						mu.Unlock()
						q.Add(i)
						q.Add(i + 1)
						time.Sleep(10 * time.Millisecond)
					}
				})
				synctest.Wait()
				q.AddWithOptions(-1, AddOptions{Priority: LowPriority})
				bound := -LowPriority * tc.aging
				var served time.Duration
				for time.Since(start) < time.Minute {
					item, _ := q.Get()
					time.Sleep(10 * time.Millisecond) // work
					q.Done(item)
					if item == -1 {
						served = time.Since(start)
						break
					}
					mu.Lock()
					at := added[item]
					mu.Unlock()
					if tc.aging > 0 {
						require.LessOrEqual(t, at, bound, "item %d enqueued at %v overtook the aged low-priority item", item, at)
					}
				}
				cancel()
				wg.Wait()
				q.ShutDown()
				require.InDelta(t, float64(tc.served), float64(served), float64(50*time.Millisecond))
			})
		})
	}
}

func TestStrictPrioritiesWithoutAging(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[int]{AgingInterval: -1})
		q.AddWithOptions(-1, AddOptions{Priority: -1})
		time.Sleep(time.Hour)
		q.Add(1)
		require.Equal(t, 1, mustGet(t, q))
		q.ShutDown()
	})
}

func TestDoneOfUnknownItemIsNoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Done("nope")
		q.Add("a")
		q.Done("a") // queued, not processing
		require.Equal(t, 1, q.Len())
		q.ShutDown()
	})
}

// TestGarbageCollection: as client-go's, an item added, handed out and
// Done is no longer referenced by a queue that never delays.
func TestGarbageCollection(t *testing.T) {
	type bigObject struct{ data [64]byte }
	q := New(Options[*bigObject]{})
	var ptrs []weak.Pointer[bigObject]
	for i := range 3 { // fewer than the idle entries a delaying queue keeps
		o := &bigObject{data: [64]byte{byte(i)}}
		ptrs = append(ptrs, weak.Make(o))
		q.Add(o)
		q.Add(o) // dedup
		item, _ := q.Get()
		q.Add(o) // dirty: queued again on Done
		q.Done(item)
		item, _ = q.Get()
		q.Done(item)
	}
	runtime.GC()
	for i, p := range ptrs {
		require.True(t, p.Value() == nil, "item %d still referenced after Done", i)
	}
	runtime.KeepAlive(q)
}

// TestDelayingQueueForgetsIdleItemsAfterQuiet: a queue that delayed items
// may remember a few idle ones (see the package doc), but every item it
// holds is still referenced only while it is queued, waiting or
// processing once the delays stop and enough other items pass through.
func TestDelayingQueueForgetsIdleItemsAfterQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type obj struct {
			n int
			_ [64]byte // not tiny-allocated: no neighbour keeps it alive
		}
		q := New(Options[*obj]{})
		o := &obj{n: 1}
		p := weak.Make(o)
		q.AddAfter(o, time.Second)
		time.Sleep(time.Second)
		synctest.Wait()
		item, _ := q.Get()
		q.Done(item)
		o = nil
		for i := range 4 * minIdle { // other items, never delayed
			x := &obj{n: i}
			q.Add(x)
			item, _ := q.Get()
			q.Done(item)
		}
		runtime.GC()
		require.True(t, p.Value() == nil, "delayed item still referenced")
		q.ShutDown()
	})
}
