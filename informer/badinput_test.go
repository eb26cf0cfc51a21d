package informer

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNilContextNeverPanics: every call taking a ctx answers a nil one
// with an error wrapping ErrNilContext, or false, or (Factory.Start) a
// logged no-op; none panics.
func TestNilContextNeverPanics(t *testing.T) {
	src := newSource(t)
	inf := newInformer(t, src, Options[*obj]{})
	//nolint:staticcheck // SA1012: a nil context is the point of the test
	require.ErrorIs(t, inf.WaitForResourceVersion(nil, "1"), ErrNilContext)
	//nolint:staticcheck // SA1012
	require.ErrorIs(t, inf.Run(nil), ErrNilContext)
	//nolint:staticcheck // SA1012
	require.False(t, WaitForCacheSync(nil, func() bool { return true }))

	f := NewFactory(FactoryOptions{Logger: quiet})
	_, err := Shared(f, "objs", src, keyOf, Options[*obj]{Logger: quiet})
	require.NoError(t, err)
	f.Start(nil) //nolint:staticcheck // SA1012
	//nolint:staticcheck // SA1012
	require.False(t, f.WaitForCacheSync(nil))
	f.Shutdown()
}

// TestPanickingOnMutationIsRecovered: a MutationCheck.OnMutation that
// panics (sometimes called with the informer's lock held) is recovered,
// logged and counted instead of crashing the process, and the informer
// keeps working.
func TestPanickingOnMutationIsRecovered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		m := &countingMetrics{}
		inf := newInformer(t, src, Options[*obj]{Metrics: m, MutationCheck: &MutationCheck[*obj]{
			Period:     time.Second,
			OnMutation: func(string) { panic("on mutation") },
		}})
		start(t, inf)
		synctest.Wait()
		a, _ := inf.Lister().Get("a")
		a.Val = 99
		inf.mutations.mu.Lock()
		inf.mutations.mu.Unlock() //nolint:staticcheck // empty critical section: a happens-before edge
		time.Sleep(time.Second)   // the periodic check
		synctest.Wait()
		a.Node = "n" // caught again when the cache replaces it, under the lock
		rv := update(t, src, "a", 2)
		require.NoError(t, inf.WaitForResourceVersion(context.Background(), rv))
		require.Equal(t, 2, m.get("mutations", ""))
		require.Equal(t, 2, m.get("callback_panics", ""))
	})
}

// TestHandlerGoexitKeepsRegistration: a handler that calls
// runtime.Goexit (t.FailNow inside a handler) used to end its
// registration's goroutine silently, so it never heard of anything again.
// Now it is logged and counted like a panic, and the registration keeps
// receiving, from the very next notification.
func TestHandlerGoexitKeepsRegistration(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		m := &countingMetrics{}
		inf := newInformer(t, src, Options[*obj]{Metrics: m})
		var mu sync.Mutex
		var seen []string
		h := HandlerFuncs[*obj]{
			AddFunc: func(o *obj, _ bool) {
				mu.Lock()
				seen = append(seen, "add "+o.Key)
				mu.Unlock()
				if o.Key == "a" || o.Key == "c" {
					runtime.Goexit()
				}
			},
			UpdateFunc: func(_, o *obj) {
				mu.Lock()
				seen = append(seen, "update "+o.Key)
				mu.Unlock()
			},
		}
		reg, err := inf.AddEventHandler(h, HandlerOptions{Name: "exits"})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		require.True(t, reg.HasSynced(), "the initial batch counts as handled")
		create(t, src, "c", 3)
		synctest.Wait()
		update(t, src, "b", 4)
		synctest.Wait()
		mu.Lock()
		require.ElementsMatch(t, []string{"add a", "add b", "add c", "update b"}, seen)
		mu.Unlock()
		require.EqualValues(t, 2, reg.Panics())
		require.Equal(t, 2, m.get("handler_panics", "exits"))
		require.Zero(t, reg.Pending())
		require.NoError(t, inf.RemoveEventHandler(reg), "removal still works")
	})
}

// TestRemoveEventHandlerFromItsOwnHandler: removing a registration from
// inside its own handler used to wait for itself forever (and kept Run
// from returning); now it returns an error at once and the handler goes
// on, while removal from another goroutine still works.
func TestRemoveEventHandlerFromItsOwnHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, Options[*obj]{})
		var reg *Registration
		var mu sync.Mutex
		var errs []error
		var regReady sync.WaitGroup
		regReady.Add(1)
		h := HandlerFuncs[*obj]{AddFunc: func(o *obj, _ bool) {
			regReady.Wait()
			err := inf.RemoveEventHandler(reg)
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}}
		var err error
		reg, err = inf.AddEventHandler(h, HandlerOptions{Name: "self"})
		require.NoError(t, err)
		regReady.Done()
		stop := start(t, inf)
		synctest.Wait()
		create(t, src, "a", 1)
		synctest.Wait()
		create(t, src, "b", 2)
		synctest.Wait()
		mu.Lock()
		require.Len(t, errs, 2, "still registered: it heard of b too")
		for _, err := range errs {
			require.ErrorContains(t, err, `informer: RemoveEventHandler: called from inside the handler of "self"`)
		}
		mu.Unlock()
		require.NoError(t, inf.RemoveEventHandler(reg))
		stop() // Run returns
	})
}
