package informer

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/source"
)

func TestInitialListThenEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		inf := newInformer(t, src, Options[*obj]{})
		rec := &recorder{t: t}
		reg, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		require.False(t, reg.HasSynced())
		start(t, inf)
		synctest.Wait()

		require.True(t, inf.HasSynced())
		require.True(t, reg.HasSynced())
		require.Equal(t, []string{"add a 1 true", "add b 2 true"}, rec.take())

		update(t, src, "a", 10)
		create(t, src, "c", 3)
		rv := remove(t, src, "b")
		synctest.Wait()
		require.Equal(t, []string{"update a 1->10", "add c 3 false", "delete b 2 false"}, rec.take())

		require.Equal(t, rv, inf.LastSyncResourceVersion())
		got, ok := inf.Lister().Get("a")
		require.True(t, ok)
		require.Equal(t, 10, got.Val)
		_, ok = inf.Lister().Get("b")
		require.False(t, ok)
		require.Len(t, inf.Lister().List(nil), 2)
	})
}

func TestRunTwiceAndAddAfterStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inf := newInformer(t, newSource(t), Options[*obj]{})
		stop := start(t, inf)
		synctest.Wait()
		require.ErrorIs(t, inf.Run(context.Background()), ErrAlreadyStarted)
		stop()
		select {
		case <-inf.Done():
		default:
			t.Fatal("Done not closed after Run returned")
		}
		_, err := inf.AddEventHandler(&recorder{t: t}, HandlerOptions{})
		require.ErrorIs(t, err, ErrStopped)
		require.ErrorIs(t, inf.WaitForResourceVersion(context.Background(), "1000"), ErrStopped)
	})
}

func TestNewRejectsBadInput(t *testing.T) {
	_, err := New[*obj](nil, nil, Options[*obj]{ResyncPeriod: -1, PageSize: -1})
	require.ErrorContains(t, err, "ListWatcher is nil")
	require.ErrorContains(t, err, "key func is nil")
	require.ErrorContains(t, err, "ResyncPeriod")
	require.ErrorContains(t, err, "PageSize")

	inf := newInformer(t, newSource(t), Options[*obj]{})
	_, err = inf.AddEventHandler(nil, HandlerOptions{})
	require.Error(t, err)
	require.Error(t, inf.RemoveEventHandler(nil))
	other := newInformer(t, newSource(t), Options[*obj]{})
	reg, err := other.AddEventHandler(&recorder{t: t}, HandlerOptions{})
	require.NoError(t, err)
	require.ErrorContains(t, inf.RemoveEventHandler(reg), "another informer")
}

func TestLateHandlerGetsCacheThenLiveEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		inf := newInformer(t, src, Options[*obj]{})
		start(t, inf)
		synctest.Wait()
		require.True(t, inf.HasSynced())

		// The late handler blocks on its first call, so that live events
		// pile up behind its initial batch.
		rec := &recorder{t: t, gate: make(chan struct{})}
		reg, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		synctest.Wait()
		require.False(t, reg.HasSynced(), "initial batch not handled yet")
		update(t, src, "a", 11)
		update(t, src, "a", 12)
		remove(t, src, "b")
		create(t, src, "c", 3)
		synctest.Wait()
		close(rec.gate)
		synctest.Wait()
		require.True(t, reg.HasSynced())
		// The initial batch (a, b) was taken by the handler's goroutine
		// before the live events came; those follow it, a's two updates
		// coalesced into one.
		require.Equal(t, []string{"add a 1 true", "add b 2 true", "update a 1->12", "delete b 2 false", "add c 3 false"},
			rec.take())
	})
}

func TestRegistrationHasSyncedWaitsForItsHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		for i := range 5 {
			create(t, src, string(rune('a'+i)), i)
		}
		inf := newInformer(t, src, Options[*obj]{})
		slow := &recorder{t: t, gate: make(chan struct{})}
		fast := &recorder{t: t}
		slowReg, err := inf.AddEventHandler(slow, HandlerOptions{Name: "slow"})
		require.NoError(t, err)
		fastReg, err := inf.AddEventHandler(fast, HandlerOptions{Name: "fast"})
		require.NoError(t, err)
		require.Equal(t, "slow", slowReg.Name())
		start(t, inf)
		synctest.Wait()
		require.True(t, inf.HasSynced())
		require.True(t, fastReg.HasSynced())
		require.False(t, slowReg.HasSynced())
		require.Equal(t, 5, slowReg.Pending(), "one call in flight, four to go")
		require.Equal(t, 5, fast.count())

		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.False(t, WaitForCacheSync(ctx, inf.HasSynced, slowReg.HasSynced))
		for range 4 {
			slow.gate <- struct{}{}
		}
		synctest.Wait()
		require.False(t, slowReg.HasSynced(), "the last initial call has not returned")
		slow.gate <- struct{}{}
		require.True(t, WaitForCacheSync(context.Background(), inf.HasSynced, slowReg.HasSynced))
		require.Zero(t, slowReg.Pending())
	})
}

func TestRemoveEventHandlerWhileEventsFlow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, Options[*obj]{})
		blocked := &recorder{t: t, gate: make(chan struct{})}
		other := &recorder{t: t}
		reg, err := inf.AddEventHandler(blocked, HandlerOptions{})
		require.NoError(t, err)
		_, err = inf.AddEventHandler(other, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()

		create(t, src, "a", 1)
		create(t, src, "b", 2)
		synctest.Wait() // blocked is inside OnAdd(a)
		removed := make(chan struct{})
		go func() {
			require.NoError(t, inf.RemoveEventHandler(reg))
			close(removed)
		}()
		synctest.Wait()
		select {
		case <-removed:
			t.Fatal("RemoveEventHandler returned while the handler was still running")
		default:
		}
		close(blocked.gate) // the call in progress returns
		<-removed
		require.Equal(t, []string{"add a 1 false"}, blocked.take(), "pending b dropped, nothing after removal")

		create(t, src, "c", 3)
		synctest.Wait()
		require.Zero(t, blocked.count())
		require.Equal(t, []string{"add a 1 false", "add b 2 false", "add c 3 false"}, other.take())
		require.False(t, reg.HasSynced())
		require.NoError(t, inf.RemoveEventHandler(reg), "removing twice is fine")
	})
}

func TestRemoveBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		inf := newInformer(t, src, Options[*obj]{})
		rec := &recorder{t: t}
		reg, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		require.NoError(t, inf.RemoveEventHandler(reg))
		start(t, inf)
		synctest.Wait()
		require.Zero(t, rec.count())
	})
}

func TestPanickingHandlerKeepsReceiving(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		m := &countingMetrics{}
		inf := newInformer(t, src, Options[*obj]{Metrics: m})
		bad := &recorder{t: t, panicIf: func(c call) bool { return c.Op == "add" }}
		good := &recorder{t: t}
		badReg, err := inf.AddEventHandler(bad, HandlerOptions{Name: "bad"})
		require.NoError(t, err)
		_, err = inf.AddEventHandler(good, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		create(t, src, "a", 1)
		synctest.Wait()
		create(t, src, "b", 2)
		synctest.Wait()
		update(t, src, "a", 3)
		synctest.Wait()
		require.Equal(t, []string{"add a 1 false", "add b 2 false", "update a 1->3"}, bad.take())
		require.Equal(t, []string{"add a 1 false", "add b 2 false", "update a 1->3"}, good.take())
		require.EqualValues(t, 2, badReg.Panics())
		require.Equal(t, 2, m.get("handler_panics", "bad"))
	})
}

func TestWaitForResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, Options[*obj]{})
		gate := make(chan struct{})
		// A handler cannot hold the cache back: WaitForResourceVersion is
		// about the cache, not about handlers.
		_, err := inf.AddEventHandler(&recorder{t: t, gate: gate}, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)

		rv := create(t, src, "a", 1)
		require.NoError(t, inf.WaitForResourceVersion(context.Background(), rv))
		got, ok := inf.Lister().Get("a")
		require.True(t, ok)
		require.Equal(t, rv, got.RV)

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.ErrorIs(t, inf.WaitForResourceVersion(ctx, "999"), context.DeadlineExceeded)
		require.Error(t, inf.WaitForResourceVersion(context.Background(), "not-a-version"))
		close(gate)
	})
}

func TestWaitForResourceVersionNeedsComparer(t *testing.T) {
	src := newSource(t)
	lw := source.ListWatchFuncs[*obj]{ListFunc: src.List, WatchFunc: src.Watch}
	inf := newInformer(t, lw, Options[*obj]{})
	err := inf.WaitForResourceVersion(context.Background(), "1")
	require.ErrorIs(t, err, source.ErrUnsupported)
	require.ErrorContains(t, err, "VersionComparer")
}

func TestWaitForCacheSyncEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		began := time.Now()
		require.False(t, WaitForCacheSync(ctx, func() bool { return false }))
		require.Equal(t, 10*time.Second, time.Since(began))
		ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
		defer cancel2()
		require.False(t, WaitForCacheSync(ctx2, nil), "nil never syncs")
		require.True(t, WaitForCacheSync(context.Background()))
		n := 0
		require.True(t, WaitForCacheSync(context.Background(), func() bool { n++; return n > 3 }))
	})
}

func TestOptionsReachTheReflector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		for i := range 5 {
			create(t, src, string(rune('a'+i)), i)
		}
		boom := errors.New("boom")
		src.FailLists(1, boom)
		var mu sync.Mutex
		var seen []error
		inf := newInformer(t, src, Options[*obj]{
			PageSize:          2,
			WatchErrorHandler: func(err error) { mu.Lock(); seen = append(seen, err); mu.Unlock() },
		})
		start(t, inf)
		require.True(t, WaitForCacheSync(context.Background(), inf.HasSynced))
		mu.Lock()
		require.Len(t, seen, 1)
		require.ErrorIs(t, seen[0], boom)
		mu.Unlock()
		require.Equal(t, 1+3, src.ListCalls(), "one failed call, then three pages")
		require.Equal(t, 5, inf.Lister().Len())
	})
}

func TestLateHandlerBeforeSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		src.DelayLists(time.Minute)
		inf := newInformer(t, src, Options[*obj]{})
		start(t, inf)
		synctest.Wait()
		require.False(t, inf.HasSynced())
		rec := &recorder{t: t}
		reg, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		synctest.Wait()
		require.False(t, reg.HasSynced())
		require.Zero(t, rec.count())
		require.True(t, WaitForCacheSync(context.Background(), reg.HasSynced))
		require.Equal(t, []string{"add a 1 true"}, rec.take())
	})
}
