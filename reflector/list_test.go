package reflector_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

func TestNewRejectsBadInput(t *testing.T) {
	lw, store := newLW(nil, nil), newStore()
	cases := map[string]struct {
		lw    source.ListWatcher[item]
		store reflector.Store[item]
		opts  reflector.Options
		want  string
	}{
		"nil lw":                {nil, store, reflector.Options{}, "ListWatcher is nil"},
		"nil store":             {lw, nil, reflector.Options{}, "Store is nil"},
		"negative page size":    {lw, store, reflector.Options{PageSize: -1}, "PageSize"},
		"negative resync":       {lw, store, reflector.Options{ResyncPeriod: -1}, "ResyncPeriod"},
		"negative list timeout": {lw, store, reflector.Options{WatchListTimeout: -1}, "WatchListTimeout"},
		"negative min watch":    {lw, store, reflector.Options{MinWatchTimeout: -1}, "MinWatchTimeout"},
		"negative max watch":    {lw, store, reflector.Options{MaxWatchTimeout: -1}, "MaxWatchTimeout"},
		"max below min":         {lw, store, reflector.Options{MinWatchTimeout: time.Hour, MaxWatchTimeout: time.Minute}, "below MinWatchTimeout"},
		"negative initial":      {lw, store, reflector.Options{Backoff: reflector.Backoff{Initial: -1}}, "Backoff.Initial"},
		"factor below one":      {lw, store, reflector.Options{Backoff: reflector.Backoff{Factor: 0.5}}, "Backoff.Factor"},
		"factor NaN":            {lw, store, reflector.Options{Backoff: reflector.Backoff{Factor: math.NaN()}}, "Backoff.Factor"},
		"cap below initial":     {lw, store, reflector.Options{Backoff: reflector.Backoff{Initial: time.Second, Cap: time.Millisecond}}, "Backoff.Cap"},
		"negative cap":          {lw, store, reflector.Options{Backoff: reflector.Backoff{Cap: -1}}, "Backoff.Cap"},
		"jitter above one":      {lw, store, reflector.Options{Backoff: reflector.Backoff{Jitter: 1.5}}, "Backoff.Jitter"},
		"negative reset":        {lw, store, reflector.Options{Backoff: reflector.Backoff{ResetAfter: -1}}, "Backoff.ResetAfter"},
		"nil lw and nil store":  {nil, nil, reflector.Options{}, "Store is nil"},
		"all errors joined":     {nil, plainStore{}, reflector.Options{PageSize: -5}, "PageSize"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := reflector.New(c.lw, c.store, c.opts)
			require.Error(t, err)
			assert.Nil(t, r)
			assert.True(t, strings.HasPrefix(err.Error(), "reflector: "), err.Error())
			assert.Contains(t, err.Error(), c.want)
		})
	}
	r, err := reflector.New[item](lw, store, reflector.Options{})
	require.NoError(t, err)
	assert.Empty(t, r.LastSyncResourceVersion())
	assert.Empty(t, lw.Calls(), "New must not call the source")
}

// Semantic 1: first sync lists the latest, replaces, then watches from the
// list's version with bookmarks.
func TestFirstSyncListsReplacesThenWatchesFromListRV(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10, "a", "b")}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []string{"replace [a b] @10"}, store.Ops())
		assert.Equal(t, "10", h.r.LastSyncResourceVersion())
		assert.Equal(t, 1, h.metrics.Replaces.get())
		h.stop(t)
	})
}

func TestPaginatedListFollowsContinueTokens(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The first page's slice has spare capacity: the reflector must
		// not append into the source's memory.
		backing := make([]item, 2, 10)
		copy(backing, items("a", "b"))
		lw := newLW([]listResp{
			{list: source.List[item]{Items: backing, ResourceVersion: "10", Continue: "c1"}},
			{list: source.List[item]{Items: items("c", "d"), ResourceVersion: "10", Continue: "c2"}},
			{list: source.List[item]{Items: items("e"), ResourceVersion: "10"}},
		}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{PageSize: 2})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=2 continue=""`,
			`list rv="" limit=2 continue="c1"`,
			`list rv="" limit=2 continue="c2"`,
			`watch rv="10" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []string{"replace [a b c d e] @10"}, store.Ops())
		assert.Equal(t, item{}, backing[:3][2], "reflector wrote into the source's page")
		assert.Equal(t, 3, h.metrics.Lists.get())
		h.stop(t)
	})
}

// A paginated relist asks the first page at the last synced version and
// later pages with the token alone.
func TestPaginatedRelistAsksLaterPagesByToken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{
			listOK(10),
			{list: source.List[item]{Items: items("a"), ResourceVersion: "12", Continue: "c1"}},
			{list: source.List[item]{Items: items("b"), ResourceVersion: "12"}},
		}, []watchResp{{events: []ev{added("a", 11), errEvent(errExpired)}}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{PageSize: 1})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=1 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`list rv="11" limit=1 continue=""`,
			`list rv="" limit=1 continue="c1"`,
			`watch rv="12" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []string{"replace [] @10", "add a @11", "replace [a b] @12"}, store.Ops())
		h.stop(t)
	})
}

func TestExpiredContinueTokenFallsBackToFullList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{
			{list: source.List[item]{Items: items("a", "b"), ResourceVersion: "10", Continue: "c1"}},
			{err: errExpired},
			listOK(12, "a", "b", "c"),
		}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{PageSize: 2})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=2 continue=""`,
			`list rv="" limit=2 continue="c1"`,
			`list rv="" limit=0 continue=""`,
			`watch rv="12" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []string{"replace [a b c] @12"}, store.Ops())
		assert.Equal(t, 1, h.metrics.Expired.get())
		assert.Zero(t, h.metrics.Backoffs.get())
		assert.Empty(t, h.errs.all())
		h.stop(t)
	})
}

// Semantic 4: ErrExpired mid-stream relists at once, at the last synced
// version (never older).
func TestExpiredErrorEventRelistsAtLastSyncedRV(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(
			[]listResp{listOK(10, "a"), listOK(15, "a", "b")},
			[]watchResp{{events: []ev{added("b", 11), errEvent(errExpired)}, open: true}},
		)
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`list rv="11" limit=0 continue=""`,
			`watch rv="15" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []time.Duration{0, 0, 0, 0}, lw.CallTimes(h.t0), "expiry relists without backoff")
		assert.Equal(t, []string{"replace [a] @10", "add b @11", "replace [a b] @15"}, store.Ops())
		require.Len(t, h.errs.all(), 1)
		assert.ErrorIs(t, h.errs.all()[0], source.ErrExpired)
		assert.Equal(t, 1, h.metrics.Expired.get())
		assert.Zero(t, h.metrics.Backoffs.get())
		h.stop(t)
	})
}

func TestExpiredWatchCallRelistsAtLastSyncedRV(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(
			[]listResp{listOK(10, "a"), listOK(15)},
			[]watchResp{{events: []ev{added("b", 11)}}, {err: errExpired}},
		)
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`watch rv="11" bookmarks=true initial=false`,
			`list rv="11" limit=0 continue=""`,
			`watch rv="15" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, []time.Duration{0, 0, 0, 0, 0}, lw.CallTimes(h.t0))
		assert.Zero(t, h.metrics.Backoffs.get())
		h.stop(t)
	})
}

// A relist whose version is gone (expired, or the source was reset and
// the version is in its future) retries at once with the latest.
func TestRelistAtExpiredVersionRetriesWithLatest(t *testing.T) {
	for name, listErr := range map[string]error{
		"expired": errExpired,
		"future":  source.ErrFutureVersion,
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(
					[]listResp{listOK(10), {err: listErr}, listOK(30, "z")},
					[]watchResp{{events: []ev{added("a", 11), errEvent(errExpired)}}},
				)
				store := newStore()
				h := start(t, lw, store, reflector.Options{})
				synctest.Wait()
				assert.Equal(t, []string{
					`list rv="" limit=0 continue=""`,
					`watch rv="10" bookmarks=true initial=false`,
					`list rv="11" limit=0 continue=""`,
					`list rv="" limit=0 continue=""`,
					`watch rv="30" bookmarks=true initial=false`,
				}, lw.Calls())
				assert.Equal(t, []time.Duration{0, 0, 0, 0, 0}, lw.CallTimes(h.t0))
				assert.Equal(t, []string{"replace [] @10", "add a @11", "replace [z] @30"}, store.Ops())
				assert.Equal(t, "30", h.r.LastSyncResourceVersion())
				h.stop(t)
			})
		})
	}
}

// ErrExpired with no progress since the list means the source expires
// versions faster than we can list: back off instead of a hot loop.
func TestExpiredRightAfterListBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(
			[]listResp{listOK(10), {err: errExpired}, listOK(20)},
			[]watchResp{{err: errExpired}},
		)
		store := newStore()
		h := start(t, lw, store, reflector.Options{Backoff: noJitter})
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
		}, lw.Calls(), "no relist before the backoff")
		time.Sleep(800 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`list rv="10" limit=0 continue=""`,
			`list rv="" limit=0 continue=""`,
			`watch rv="20" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, 1, h.metrics.Backoffs.get())
		h.stop(t)
	})
}

// A list failing with ErrExpired even at "" must back off, not spin.
func TestListExpiredAtLatestBacksOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{{err: errExpired}, {err: errExpired}, listOK(5)}, nil)
		h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
		synctest.Wait()
		time.Sleep(time.Minute)
		assert.Equal(t, []time.Duration{0, 800 * time.Millisecond, 2400 * time.Millisecond, 2400 * time.Millisecond},
			lw.CallTimes(h.t0))
		h.stop(t)
	})
}

func TestListErrorBacksOffThenRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{{err: errBoom}, listOK(7, "a")}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{Backoff: noJitter})
		synctest.Wait()
		time.Sleep(time.Second)
		assert.Equal(t, []time.Duration{0, 800 * time.Millisecond, 800 * time.Millisecond}, lw.CallTimes(h.t0))
		assert.Equal(t, []string{"replace [a] @7"}, store.Ops())
		require.Len(t, h.errs.all(), 1)
		assert.ErrorIs(t, h.errs.all()[0], errBoom)
		assert.True(t, strings.HasPrefix(h.errs.all()[0].Error(), "reflector: "))
		h.stop(t)
	})
}

// With a VersionComparer, a relist that returns a list older than the
// version already synced is refused: no time travel.
func TestRelistNeverTimeTravels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(
			[]listResp{listOK(10), listOK(9, "old"), listOK(12, "new")},
			[]watchResp{{events: []ev{added("a", 11), errEvent(errExpired)}}},
		)
		store := newStore()
		h := start(t, orderedLW{lw}, store, reflector.Options{Backoff: noJitter})
		synctest.Wait()
		time.Sleep(time.Second)
		assert.Equal(t, []string{"replace [] @10", "add a @11", "replace [new] @12"}, store.Ops())
		assert.Equal(t, 1, h.metrics.BadSource.get())
		require.Len(t, h.errs.all(), 2)
		assert.ErrorIs(t, h.errs.all()[1], reflector.ErrBadSource)
		h.stop(t)
	})
}

func TestRunErrorsCarryPackagePrefix(t *testing.T) {
	// Every error handed to WatchErrorHandler starts with "reflector: ".
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{{err: errBoom}, {list: source.List[item]{}}, listOK(3)},
			[]watchResp{{}, {err: errBoom}, {events: []ev{errEvent(errBoom)}}})
		store := newStore()
		store.failNext("replace", errBoom)
		h := start(t, lw, store, reflector.Options{Backoff: noJitter})
		time.Sleep(5 * time.Minute)
		all := h.errs.all()
		require.GreaterOrEqual(t, len(all), 5)
		for _, err := range all {
			assert.True(t, strings.HasPrefix(err.Error(), "reflector: "), err.Error())
			assert.False(t, errors.Is(err, source.ErrExpired))
		}
		h.stop(t)
	})
}
