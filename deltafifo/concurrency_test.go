package deltafifo

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// popAsync starts a Pop that sends its rendered deltas (or its error) on
// the returned channel.
func popAsync(ctx context.Context, f *DeltaFIFO[*obj], s *store) <-chan string {
	out := make(chan string, 1)
	go func() {
		var got string
		err := f.Pop(ctx, func(ds Deltas[*obj], _ bool) error {
			got = fmtDeltas(ds)
			if s != nil {
				s.apply(ds)
			}
			return nil
		})
		if err != nil {
			got = "error: " + err.Error()
		}
		out <- got
	}()
	return out
}

func ready(ch <-chan string) (string, bool) {
	select {
	case s := <-ch:
		return s, true
	default:
		return "", false
	}
}

func TestPopBlocksUntilAKeyIsReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(t, Options[*obj]{})
		got := popAsync(context.Background(), f, nil)
		synctest.Wait()
		_, done := ready(got)
		require.False(t, done, "Pop returned with nothing queued")
		require.NoError(t, f.Add(o("a", 1), "1"))
		assert.Equal(t, "Added:a=1@1", <-got)
	})
}

func TestCloseWakesEveryBlockedPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(t, Options[*obj]{})
		var pops []<-chan string
		for range 3 {
			pops = append(pops, popAsync(context.Background(), f, nil))
		}
		synctest.Wait()
		f.Close()
		for _, p := range pops {
			assert.Equal(t, "error: "+ErrClosed.Error(), <-p)
		}
	})
}

func TestContextEndWakesOnlyItsPop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(t, Options[*obj]{})
		ctx, cancel := context.WithCancel(context.Background())
		tctx, tcancel := context.WithTimeout(context.Background(), time.Minute)
		defer tcancel()
		cancelled := popAsync(ctx, f, nil)
		timed := popAsync(tctx, f, nil)
		plain := popAsync(context.Background(), f, nil)
		synctest.Wait()

		cancel()
		assert.Equal(t, "error: "+context.Canceled.Error(), <-cancelled)
		time.Sleep(time.Minute)
		assert.Equal(t, "error: "+context.DeadlineExceeded.Error(), <-timed)
		synctest.Wait()
		_, done := ready(plain)
		require.False(t, done)
		require.NoError(t, f.Add(o("a", 1), "1"))
		assert.Equal(t, "Added:a=1@1", <-plain)
	})
}

// A key being processed is not handed to a second Pop; its new changes
// wait in the queue while other keys flow past.
func TestKeyBeingProcessedIsNotPoppedTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(t, Options[*obj]{})
		require.NoError(t, f.Add(o("a", 1), "1"))

		release := make(chan struct{})
		first := make(chan string, 1)
		go func() {
			_ = f.Pop(context.Background(), func(ds Deltas[*obj], _ bool) error {
				<-release
				first <- fmtDeltas(ds)
				return nil
			})
		}()
		synctest.Wait() // a is in flight, process blocked

		// Writers are not blocked by the slow process.
		require.NoError(t, f.Update(o("a", 2), "2"))
		require.NoError(t, f.Add(o("b", 1), "3"))
		assert.Equal(t, 2, f.Len())

		assert.Equal(t, "Added:b=1@3", <-popAsync(context.Background(), f, nil), "b overtakes the blocked a")
		second := popAsync(context.Background(), f, nil)
		synctest.Wait()
		_, done := ready(second)
		require.False(t, done, "a was popped while its first process still ran")

		close(release)
		assert.Equal(t, "Added:a=1@1", <-first)
		assert.Equal(t, "Updated:a=2@2", <-second)
	})
}

// A delete that arrives while the object's Added delta is being
// processed (and is not in the cache yet) is queued, not ignored.
func TestDeleteWhileAddIsBeingProcessed(t *testing.T) {
	known := newStore()
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Add(o("b", 1), "2"))
	require.NoError(t, f.Delete(o("b", 1), "3"))
	popWith := func(during func()) {
		err := f.Pop(context.Background(), func(ds Deltas[*obj], _ bool) error {
			during()
			known.apply(ds)
			return nil
		})
		require.NoError(t, err)
	}
	popWith(func() { require.NoError(t, f.Delete(o("a", 1), "4")) })
	// b's newest popped delta is a delete: a second delete is ignored.
	popWith(func() { require.NoError(t, f.Delete(o("b", 1), "5")) })
	assert.Equal(t, []string{"Deleted:a=1@4"}, popAll(t, f, known))
	assert.Empty(t, known.m)
}

// Replace and Resync judge a key being processed by the delta being
// processed, not by the (stale) cache.
func TestReplaceAndResyncWhileKeysAreBeingProcessed(t *testing.T) {
	known := newStore(o("d", 1))
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Delete(o("d", 1), "2"))

	err := f.Pop(context.Background(), func(dsA Deltas[*obj], _ bool) error {
		err := f.Pop(context.Background(), func(dsD Deltas[*obj], _ bool) error {
			// a (Added, not cached yet) and d (Deleted, still cached) are
			// in flight.
			require.NoError(t, f.Resync())
			assert.Equal(t, 0, f.Len(), "no Sync for keys being processed")
			require.NoError(t, f.Replace(nil, "3"))
			known.apply(dsD)
			return nil
		})
		require.NoError(t, err)
		known.apply(dsA)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"Deleted:a=1@3!"}, popAll(t, f, known))
	assert.Empty(t, known.m)
}

// Producers and poppers at full speed under -race: per key, deltas arrive
// in order and never to two process funcs at once; every change is
// delivered exactly once; ProcessedResourceVersion never runs ahead of
// the process funcs that have returned.
func TestProducersAndPoppers(t *testing.T) {
	const (
		producers = 3
		poppers   = 3
		keysEach  = 20
		opsEach   = 2000
	)
	known := newStore()
	f := newFIFO(t, Options[*obj]{KnownObjects: known})

	// Calls are serialized like a reflector's, so that rvs are handed in
	// in order; done[rv] is set when the change with that rv has been
	// applied by a process func.
	var (
		writeMu sync.Mutex
		rv      int
		rvOf    = map[string][]int{} // key -> rvs of its changes, in order
		done    [producers*opsEach + 2]atomic.Bool
	)
	write := func(op func(string) error, key string) {
		writeMu.Lock()
		defer writeMu.Unlock()
		rv++
		rvOf[key] = append(rvOf[key], rv)
		assert.NoError(t, op(strconv.Itoa(rv)))
	}

	var (
		seenMu     sync.Mutex
		seen       = map[string][]int{} // key -> rvs delivered, in order
		processing sync.Map
		syncs      atomic.Int64
	)
	process := func(ds Deltas[*obj], _ bool) error {
		key := ds[0].Object.Key
		if _, busy := processing.LoadOrStore(key, true); busy {
			t.Errorf("key %s processed concurrently", key)
		}
		seenMu.Lock()
		for _, d := range ds {
			if d.Type == Sync {
				syncs.Add(1)
				continue
			}
			n, _ := strconv.Atoi(d.ResourceVersion)
			seen[key] = append(seen[key], n)
		}
		seenMu.Unlock()
		known.apply(ds)
		for _, d := range ds {
			if n, err := strconv.Atoi(d.ResourceVersion); err == nil {
				done[n].Store(true)
			}
		}
		processing.Delete(key)
		return nil
	}

	var wg sync.WaitGroup
	var popped atomic.Int64
	for range poppers {
		wg.Go(func() {
			for {
				err := f.Pop(context.Background(), process)
				if errors.Is(err, ErrClosed) || !assert.NoError(t, err) {
					return
				}
				popped.Add(1)
			}
		})
	}
	// A checker: whenever the processed version moves, every change up
	// to it has been applied.
	checkerDone := make(chan struct{})
	wg.Go(func() {
		for {
			rvs, changed := f.ProcessedResourceVersion()
			if rvs != "" {
				n, _ := strconv.Atoi(rvs)
				for i := 1; i <= n; i++ {
					if !done[i].Load() {
						t.Errorf("processed version %d but change %d not applied", n, i)
						return
					}
				}
			}
			select {
			case <-changed:
			case <-checkerDone:
				return
			}
		}
	})

	var producing sync.WaitGroup
	for p := range producers {
		producing.Go(func() {
			// Per key: Add, then alternately Update or Delete and re-Add,
			// so no change is ever ignored or collapsed.
			live := map[string]bool{}
			for i := range opsEach {
				key := fmt.Sprintf("p%d-k%d", p, i%keysEach)
				x := o(key, i)
				switch {
				case !live[key]:
					write(func(rv string) error { return f.Add(x, rv) }, key)
					live[key] = true
				case i%3 == 0:
					write(func(rv string) error { return f.Delete(x, rv) }, key)
					live[key] = false
				default:
					write(func(rv string) error { return f.Update(x, rv) }, key)
				}
			}
		})
	}
	var stopResync atomic.Bool
	resyncing := make(chan struct{})
	go func() {
		defer close(resyncing)
		for !stopResync.Load() {
			assert.NoError(t, f.Resync())
			runtime.Gosched()
		}
	}()
	producing.Wait()
	stopResync.Store(true)
	<-resyncing

	// A last resync, with every key known and none queued, then a
	// bookmark; wait until everything is processed, then close.
	require.NoError(t, f.Resync())
	done[producers*opsEach+1].Store(true)
	final := strconv.Itoa(producers*opsEach + 1)
	f.Bookmark(final)
	for {
		rvs, changed := f.ProcessedResourceVersion()
		if rvs == final {
			break
		}
		<-changed
	}
	f.Close()
	close(checkerDone)
	wg.Wait()

	assert.Equal(t, rvOf, seen, "every change delivered once, in order per key")
	assert.Positive(t, popped.Load())
	assert.Positive(t, syncs.Load())
	t.Logf("pops %d, sync deltas %d", popped.Load(), syncs.Load())
}

// lateCtx reports an error before its Done channel closes, which is what
// a real context does for an instant while it is being cancelled: Err is
// already set but its AfterFuncs have not started yet.
type lateCtx struct {
	context.Context
	failed atomic.Bool
	done   chan struct{}
}

func (c *lateCtx) Done() <-chan struct{} { return c.done }

func (c *lateCtx) Err() error {
	if c.failed.Load() {
		return context.Canceled
	}
	return nil
}

// A Pop woken by a Signal whose context has ended passes the Signal on,
// so a ready key never waits while another Pop sleeps.
func TestEndedPopPassesItsWakeupOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFIFO(t, Options[*obj]{})
		ctx := &lateCtx{Context: context.Background(), done: make(chan struct{})}
		first := popAsync(ctx, f, nil) // waits first: the Signal wakes it
		synctest.Wait()
		second := popAsync(context.Background(), f, nil)
		synctest.Wait()

		ctx.failed.Store(true)
		require.NoError(t, f.Add(o("a", 1), "1"))
		assert.Equal(t, "error: "+context.Canceled.Error(), <-first)
		assert.Equal(t, "Added:a=1@1", <-second)
		close(ctx.done) // lets the AfterFunc's watcher goroutine exit
	})
}
