package reflector_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// Semantic 2: every event goes to the store with its resourceVersion and
// becomes the last synced version.
func TestEventsCarryTheirRVToTheStore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		feed := make(chan ev)
		lw := newLW([]listResp{listOK(10)}, []watchResp{{feed: feed}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		for _, e := range []ev{added("a", 11), modified("a", 12), deleted("a", 13)} {
			feed <- e
			synctest.Wait()
			assert.Equal(t, e.ResourceVersion, h.r.LastSyncResourceVersion())
		}
		assert.Equal(t, []string{"replace [] @10", "add a @11", "update a @12", "delete a @13"}, store.Ops())
		assert.Equal(t, 3, h.metrics.Events.get())
		h.stop(t)
	})
}

func TestBookmarkAdvancesRVWithoutStoreChange(t *testing.T) {
	for _, withBookmarkStore := range []bool{true, false} {
		name := "BookmarkStore"
		if !withBookmarkStore {
			name = "plain Store"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW([]listResp{listOK(10)},
					[]watchResp{{events: []ev{added("a", 11), bookmark(20)}, gap: 2 * time.Second}})
				rec := newStore()
				var store reflector.Store[item] = rec
				if !withBookmarkStore {
					store = plainStore{rec}
				}
				h := start(t, lw, store, reflector.Options{})
				time.Sleep(10 * time.Second)
				want := []string{"replace [] @10", "add a @11"}
				if withBookmarkStore {
					want = append(want, "bookmark @20")
				}
				assert.Equal(t, want, rec.Ops())
				assert.Equal(t, "20", h.r.LastSyncResourceVersion())
				// The next watch resumes from the bookmark.
				calls := lw.Calls()
				assert.Equal(t, `watch rv="20" bookmarks=true initial=false`, calls[len(calls)-1])
				h.stop(t)
			})
		})
	}
}

// Semantic 3: a clean close resumes from the last version without a list.
func TestCleanCloseRewatchesWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)},
			[]watchResp{{events: []ev{added("a", 11)}}, {events: []ev{modified("a", 12)}}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`watch rv="11" bookmarks=true initial=false`,
			`watch rv="12" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []time.Duration{0, 0, 0, 0}, lw.CallTimes(h.t0), "no backoff")
		assert.Equal(t, []string{"replace [] @10", "add a @11", "update a @12"}, store.Ops())
		assert.Empty(t, h.errs.all())
		h.stop(t)
	})
}

// A watch that closes at once without an event is an error: backoff, then
// relist — a broken source cannot make the reflector spin.
func TestShortWatchCountsAsError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10), listOK(10)}, []watchResp{{}, {}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{Backoff: noJitter})
		time.Sleep(10 * time.Second)
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`list rv="10" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`list rv="10" limit=0 continue=""`,
			`watch rv="100" bookmarks=true initial=false`,
		}, lw.Calls())
		ms := time.Millisecond
		assert.Equal(t, []time.Duration{0, 0, 800 * ms, 800 * ms, 2400 * ms, 2400 * ms}, lw.CallTimes(h.t0))
		assert.Equal(t, 2, h.metrics.ShortWatches.get())
		require.Len(t, h.errs.all(), 2)
		assert.ErrorIs(t, h.errs.all()[0], reflector.ErrShortWatch)
		h.stop(t)
	})
}

// A watch that lasted past the short-watch threshold, even without events,
// is a clean close.
func TestSlowCloseWithoutEventsIsNotShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, []watchResp{{gap: 2 * time.Second}})
		h := start(t, lw, newStore(), reflector.Options{})
		time.Sleep(3 * time.Second)
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`watch rv="10" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []time.Duration{0, 0, 2 * time.Second}, lw.CallTimes(h.t0))
		assert.Empty(t, h.errs.all())
		h.stop(t)
	})
}

// Semantic 5 for watches: other errors back off, then relist.
func TestWatchErrorsBackOffThenRelist(t *testing.T) {
	cases := map[string]struct {
		resp watchResp
		want error
	}{
		"returned by Watch": {watchResp{err: errBoom}, errBoom},
		"Error event":       {watchResp{events: []ev{added("a", 11), errEvent(errBoom)}, open: true}, errBoom},
		"ErrUnsupported":    {watchResp{err: source.ErrUnsupported}, source.ErrUnsupported},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW([]listResp{listOK(10), listOK(12)}, []watchResp{c.resp})
				h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
				synctest.Wait()
				assert.Len(t, lw.Calls(), 2, "nothing before the backoff ends")
				time.Sleep(time.Second)
				calls := lw.Calls()
				require.Len(t, calls, 4)
				assert.Equal(t, `watch rv="12" bookmarks=true initial=false`, calls[3])
				assert.Equal(t, 800*time.Millisecond, lw.CallTimes(h.t0)[2])
				require.Len(t, h.errs.all(), 1)
				assert.ErrorIs(t, h.errs.all()[0], c.want)
				h.stop(t)
			})
		})
	}
}

// After an Error event the reflector stops reading the stream: later
// events are not applied.
func TestEventsAfterErrorAreIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)},
			[]watchResp{{events: []ev{errEvent(errBoom), added("ghost", 20)}, open: true}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{"replace [] @10"}, store.Ops())
		assert.Equal(t, "10", h.r.LastSyncResourceVersion())
		h.stop(t)
	})
}

// Semantic 8: each watch gets a random lifetime in [Min, Max], after which
// its context is cancelled and a new watch resumes from the last version.
func TestWatchLifetimeIsRandomizedWithinBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, nil)
		h := start(t, lw, newStore(), reflector.Options{})
		time.Sleep(3 * time.Hour)
		calls := lw.rawCalls()
		require.Greater(t, len(calls), 18)
		require.NotNil(t, calls[0].list)
		lifetimes := map[time.Duration]bool{}
		for i, c := range calls[1 : len(calls)-1] {
			require.NotNil(t, c.watch, "call %d: no relist", i+1)
			assert.Equal(t, "10", c.watch.ResourceVersion)
			d := c.ended.Sub(c.at)
			assert.GreaterOrEqual(t, d, 5*time.Minute)
			assert.LessOrEqual(t, d, 10*time.Minute)
			assert.Equal(t, c.ended, calls[i+2].at, "next watch starts when the last one ends")
			lifetimes[d] = true
		}
		assert.Greater(t, len(lifetimes), 1, "lifetimes are randomized")
		assert.Empty(t, h.errs.all())
		h.stop(t)
	})
}

func TestWatchLifetimeHonoursOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, nil)
		h := start(t, lw, newStore(), reflector.Options{MinWatchTimeout: time.Minute, MaxWatchTimeout: time.Minute})
		time.Sleep(150 * time.Second)
		assert.Equal(t, []time.Duration{0, 0, time.Minute, 2 * time.Minute}, lw.CallTimes(h.t0))
		h.stop(t)
	})
}
