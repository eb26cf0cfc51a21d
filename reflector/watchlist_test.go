package reflector_test

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

const watchListCall = `watch rv="" bookmarks=true initial=true`

// Semantic 6: one Watch with SendInitialEvents, buffered until the end
// bookmark, one Replace, and the same stream goes on as the watch.
func TestWatchListHappyPath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		feed := make(chan ev)
		lw := newLW(nil, []watchResp{{
			events: []ev{added("a", 5), added("b", 7), bookmark(8), endOfInitial(9)},
			feed:   feed,
		}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{UseWatchList: true})
		synctest.Wait()
		assert.Equal(t, []string{"replace [a b] @9"}, store.Ops(), "buffered until the end bookmark")
		assert.Equal(t, "9", h.r.LastSyncResourceVersion())
		feed <- modified("a", 10)
		synctest.Wait()
		assert.Equal(t, []string{"replace [a b] @9", "update a @10"}, store.Ops())
		assert.Equal(t, []string{watchListCall}, lw.Calls(), "no List, one Watch")
		assert.Equal(t, 1, h.metrics.Replaces.get())
		assert.Equal(t, 1, h.metrics.Events.get())
		// When the stream closes cleanly, the reflector resumes a plain
		// watch from the last version.
		close(feed)
		synctest.Wait()
		assert.Equal(t, []string{watchListCall, `watch rv="10" bookmarks=true initial=false`}, lw.Calls())
		h.stop(t)
	})
}

// An empty source: the end bookmark alone syncs.
func TestWatchListEmpty(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(nil, []watchResp{{events: []ev{endOfInitial(3)}, open: true}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{UseWatchList: true})
		synctest.Wait()
		assert.Equal(t, []string{"replace [] @3"}, store.Ops())
		h.stop(t)
	})
}

func TestWatchListFallsBackWhenUnsupported(t *testing.T) {
	unsupported := fmt.Errorf("source: no watch-list: %w", source.ErrUnsupported)
	for name, resp := range map[string]watchResp{
		"returned by Watch": {err: unsupported},
		"Error event":       {events: []ev{errEvent(unsupported)}, open: true},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW([]listResp{listOK(10, "a"), listOK(20)},
					[]watchResp{resp, {events: []ev{added("b", 11), errEvent(errExpired)}}})
				store := newStore()
				h := start(t, lw, store, reflector.Options{UseWatchList: true})
				synctest.Wait()
				assert.Equal(t, []string{
					watchListCall,
					`list rv="" limit=0 continue=""`,
					`watch rv="10" bookmarks=true initial=false`,
					// After the fallback, relists stay List+Watch.
					`list rv="11" limit=0 continue=""`,
					`watch rv="20" bookmarks=true initial=false`,
				}, lw.Calls())
				assert.Equal(t, []time.Duration{0, 0, 0, 0, 0}, lw.CallTimes(h.t0), "fallback is immediate")
				assert.Equal(t, 1, h.metrics.WatchListFallbacks.get())
				require.NotEmpty(t, h.errs.all())
				assert.ErrorIs(t, h.errs.all()[0], source.ErrUnsupported)
				h.stop(t)
			})
		})
	}
}

func TestWatchListFallsBackWithoutEndMarker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10, "a")}, []watchResp{{events: []ev{added("a", 5)}, open: true}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{UseWatchList: true, WatchListTimeout: 30 * time.Second})
		time.Sleep(29 * time.Second)
		assert.Equal(t, []string{watchListCall}, lw.Calls())
		assert.Empty(t, store.Ops(), "nothing applied before the end marker")
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, []string{
			watchListCall,
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []string{"replace [a] @10"}, store.Ops())
		calls := lw.rawCalls()
		assert.Equal(t, calls[1].at, calls[0].ended, "the watch-list stream was cancelled")
		assert.Equal(t, 1, h.metrics.WatchListFallbacks.get())
		h.stop(t)
	})
}

func TestWatchListDefaultTimeoutIsOneMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(nil, []watchResp{{open: true}})
		h := start(t, lw, newStore(), reflector.Options{UseWatchList: true})
		time.Sleep(2 * time.Minute)
		assert.Equal(t, []time.Duration{0, time.Minute, time.Minute}, lw.CallTimes(h.t0))
		h.stop(t)
	})
}

// Failures of a watch-list that are not refusals back off and try the
// watch-list again.
func TestWatchListErrorsRetryWatchList(t *testing.T) {
	for name, c := range map[string]struct {
		resp watchResp
		want error
	}{
		"closed before end": {watchResp{events: []ev{added("a", 5)}, gap: 2 * time.Second}, nil},
		"error event":       {watchResp{events: []ev{added("a", 5), errEvent(errBoom)}}, errBoom},
		"Watch error":       {watchResp{err: errBoom}, errBoom},
		"Modified in initial events": {watchResp{events: []ev{added("a", 5), modified("a", 6)}, open: true},
			reflector.ErrBadSource},
		"end without rv": {watchResp{events: []ev{{Type: source.Bookmark, InitialEventsEnd: true}}, open: true},
			reflector.ErrBadSource},
		"nil channel": {watchResp{nilCh: true}, reflector.ErrBadSource},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(nil, []watchResp{c.resp, {events: []ev{added("b", 1), endOfInitial(7)}, open: true}})
				store := newStore()
				h := start(t, lw, store, reflector.Options{UseWatchList: true, Backoff: noJitter})
				time.Sleep(time.Minute)
				assert.Equal(t, []string{watchListCall, watchListCall}, lw.Calls())
				assert.Equal(t, []string{"replace [b] @7"}, store.Ops())
				assert.Zero(t, h.metrics.WatchListFallbacks.get())
				assert.Equal(t, 1, h.metrics.Backoffs.get())
				require.Len(t, h.errs.all(), 1)
				if c.want != nil {
					assert.ErrorIs(t, h.errs.all()[0], c.want)
				}
				h.stop(t)
			})
		})
	}
}

// Store.Replace failing on a watch-list sync: backoff, retry.
func TestWatchListStoreError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(nil, []watchResp{{events: []ev{endOfInitial(5)}, open: true}, {events: []ev{endOfInitial(6)}, open: true}})
		store := newStore()
		store.failNext("replace", errBoom)
		h := start(t, lw, store, reflector.Options{UseWatchList: true, Backoff: noJitter})
		time.Sleep(time.Second)
		assert.Equal(t, []string{"replace [] @6"}, store.Ops())
		assert.Equal(t, "6", h.r.LastSyncResourceVersion())
		assert.Equal(t, 1, h.metrics.StoreErrors.get())
		h.stop(t)
	})
}
