package reflector_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// Semantic 9: Run returns ctx.Err(), calls nothing after cancel, and
// leaves no goroutine behind (the bubble fails if one is left).
func TestCancelBeforeRunCallsNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(nil, nil)
		store := newStore()
		r, err := reflector.New[item](lw, store, reflector.Options{Logger: quiet})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		assert.ErrorIs(t, r.Run(ctx), context.Canceled)
		assert.Empty(t, lw.Calls())
		assert.Empty(t, store.Ops())
	})
}

func TestCancelDuringList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{{block: true}}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		h.stop(t)
		synctest.Wait()
		assert.Equal(t, []string{`list rv="" limit=0 continue=""`}, lw.Calls())
		assert.Empty(t, store.Ops())
		assert.Empty(t, h.errs.all(), "cancellation is not reported as an error")
	})
}

// A source that ignores cancellation and answers anyway: no further List
// or Watch call and no store call follow.
func TestCancelInsideListCallsNothingMore(t *testing.T) {
	for name, first := range map[string]source.List[item]{
		"between pages": {Items: items("a"), ResourceVersion: "5", Continue: "c"},
		"last page":     {Items: items("a"), ResourceVersion: "5"},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cancelRun := make(chan context.CancelFunc, 1)
				lw := newLW([]listResp{{list: first, then: func() { (<-cancelRun)() }}}, nil)
				store := newStore()
				h := start(t, lw, store, reflector.Options{PageSize: 1})
				cancelRun <- h.cancel
				require.ErrorIs(t, <-h.done, context.Canceled)
				time.Sleep(time.Hour)
				assert.Equal(t, []string{`list rv="" limit=1 continue=""`}, lw.Calls())
				assert.Empty(t, store.Ops())
			})
		})
	}
}

func TestCancelDuringWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{ResyncPeriod: time.Minute})
		time.Sleep(30 * time.Second)
		h.stop(t)
		time.Sleep(time.Hour)
		calls := lw.rawCalls()
		require.Len(t, calls, 2)
		assert.Equal(t, h.t0.Add(30*time.Second), calls[1].ended, "the watch's context ends with Run")
		assert.Equal(t, []string{"replace [] @10"}, store.Ops(), "no resync after cancel")
		assert.Empty(t, h.errs.all())
	})
}

func TestCancelDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{{err: errBoom}}, nil)
		h := start(t, lw, newStore(), reflector.Options{})
		synctest.Wait()
		h.stop(t)
		time.Sleep(time.Hour)
		assert.Len(t, lw.Calls(), 1)
	})
}

func TestCancelDuringWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(nil, []watchResp{{events: []ev{added("a", 1)}, open: true}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{UseWatchList: true})
		synctest.Wait()
		h.stop(t)
		time.Sleep(time.Hour)
		assert.Equal(t, []string{watchListCall}, lw.Calls())
		assert.Empty(t, store.Ops())
	})
}

func TestRunTwiceIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, nil)
		h := start(t, lw, newStore(), reflector.Options{})
		synctest.Wait()
		err := h.r.Run(t.Context())
		require.Error(t, err)
		assert.Contains(t, err.Error(), "reflector: Run called more than once")
		h.stop(t)
		assert.Len(t, lw.Calls(), 2)
	})
}

func TestLastSyncResourceVersionIsSafeConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		feed := make(chan ev)
		lw := newLW([]listResp{listOK(1)}, []watchResp{{feed: feed}})
		h := start(t, lw, newStore(), reflector.Options{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range 1000 {
				_ = h.r.LastSyncResourceVersion()
			}
		}()
		for i := 2; i < 200; i++ {
			feed <- added("a", i)
		}
		<-done
		synctest.Wait()
		assert.Equal(t, "199", h.r.LastSyncResourceVersion())
		h.stop(t)
	})
}
