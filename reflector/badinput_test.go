package reflector_test

import (
	"bytes"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// Semantic 10: bad input from a source is logged, counted, and handled by
// a backoff and a relist; never a panic.
func TestBadWatchInputRelists(t *testing.T) {
	cases := map[string]struct {
		resp    watchResp
		ordered bool
		applied []string // store ops after the first Replace, before the relist
	}{
		"Error event without Err": {resp: watchResp{events: []ev{{Type: source.Error}}, open: true}},
		"unknown event type":      {resp: watchResp{events: []ev{{Type: source.EventType(42), ResourceVersion: "11"}}, open: true}},
		"zero event type":         {resp: watchResp{events: []ev{{ResourceVersion: "11"}}, open: true}},
		"event without rv":        {resp: watchResp{events: []ev{{Type: source.Added, Object: item{Name: "a"}}}, open: true}},
		"bookmark without rv":     {resp: watchResp{events: []ev{{Type: source.Bookmark}}, open: true}},
		"nil channel":             {resp: watchResp{nilCh: true}},
		"event older than one seen": {
			resp:    watchResp{events: []ev{added("a", 12), modified("a", 11)}, open: true},
			ordered: true, applied: []string{"add a @12"},
		},
		"event older than the list": {
			resp: watchResp{events: []ev{added("a", 9)}, open: true}, ordered: true,
		},
		"bookmark older than one seen": {
			resp:    watchResp{events: []ev{added("a", 12), bookmark(11)}, open: true},
			ordered: true, applied: []string{"add a @12"},
		},
		"malformed rv": {resp: watchResp{events: []ev{{Type: source.Added, ResourceVersion: "x"}}, open: true}, ordered: true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW([]listResp{listOK(10), listOK(20)}, []watchResp{c.resp})
				var src source.ListWatcher[item] = lw
				if c.ordered {
					src = orderedLW{lw}
				}
				store := newStore()
				var logs bytes.Buffer
				h := start(t, src, store, reflector.Options{Backoff: noJitter,
					Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				synctest.Wait()
				want := append([]string{"replace [] @10"}, c.applied...)
				assert.Equal(t, want, store.Ops())
				time.Sleep(time.Second)
				synctest.Wait()
				assert.Equal(t, append(want, "replace [] @20"), store.Ops(), "relisted after the backoff")
				times := lw.CallTimes(h.t0)
				require.Greater(t, len(times), 2)
				assert.Equal(t, 800*time.Millisecond, times[2])
				assert.Equal(t, 1, h.metrics.BadSource.get())
				require.Len(t, h.errs.all(), 1)
				assert.ErrorIs(t, h.errs.all()[0], reflector.ErrBadSource)
				assert.Contains(t, logs.String(), "source misbehaved")
				assert.Contains(t, logs.String(), "reflector=reflector[reflector_test.item]")
				h.stop(t)
			})
		})
	}
}

// Without a VersionComparer, ordering is not checked: versions are opaque.
func TestOlderEventAcceptedWithoutComparer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, []watchResp{{events: []ev{added("a", 12), modified("a", 11)}, open: true}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{"replace [] @10", "add a @12", "update a @11"}, store.Ops())
		assert.Zero(t, h.metrics.BadSource.get())
		h.stop(t)
	})
}

// Equal versions are not time travel (several changes may share one).
func TestEqualVersionsAccepted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, []watchResp{{events: []ev{added("a", 10), added("b", 11), added("c", 11), bookmark(11)}, open: true}})
		store := newStore()
		h := start(t, orderedLW{lw}, store, reflector.Options{})
		synctest.Wait()
		assert.Equal(t, []string{"replace [] @10", "add a @10", "add b @11", "add c @11", "bookmark @11"}, store.Ops())
		assert.Zero(t, h.metrics.BadSource.get())
		h.stop(t)
	})
}

func TestBadListInputRelists(t *testing.T) {
	cases := map[string][]listResp{
		"list without rv": {{list: source.List[item]{Items: items("a")}}},
		"repeated continue token": {
			{list: source.List[item]{ResourceVersion: "5", Continue: "c"}},
			{list: source.List[item]{ResourceVersion: "5", Continue: "c"}},
		},
	}
	for name, lists := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW(append(lists, listOK(20, "z")), nil)
				store := newStore()
				h := start(t, lw, store, reflector.Options{Backoff: noJitter, PageSize: 10})
				time.Sleep(time.Second)
				assert.Equal(t, []string{"replace [z] @20"}, store.Ops())
				assert.Equal(t, 1, h.metrics.BadSource.get())
				require.Len(t, h.errs.all(), 1)
				assert.ErrorIs(t, h.errs.all()[0], reflector.ErrBadSource)
				h.stop(t)
			})
		})
	}
}

// A store error is logged and counted; the reflector backs off and
// relists, and the last synced version only moves when the store accepted
// the change.
func TestStoreErrorRelists(t *testing.T) {
	for _, kind := range []string{"add", "update", "delete", "resync", "replace"} {
		t.Run(kind, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := newLW([]listResp{listOK(10), listOK(20)},
					[]watchResp{{events: []ev{added("a", 11), modified("a", 12), deleted("a", 13)}, open: true}})
				store := newStore()
				store.failNext(kind, errBoom)
				var logs bytes.Buffer
				h := start(t, lw, store, reflector.Options{Backoff: noJitter, ResyncPeriod: time.Minute,
					Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				time.Sleep(90 * time.Second)
				require.Len(t, h.errs.all(), 1)
				err := h.errs.all()[0]
				assert.ErrorIs(t, err, reflector.ErrStore)
				assert.ErrorIs(t, err, errBoom)
				assert.Equal(t, 1, h.metrics.StoreErrors.get())
				assert.Equal(t, 1, h.metrics.Backoffs.get())
				assert.Contains(t, logs.String(), "store failed")
				assert.Contains(t, store.Ops(), "replace [] @20", "relisted after the failure")
				h.stop(t)
			})
		})
	}
}

// The RV of a change the store rejected is not recorded.
func TestStoreErrorKeepsLastSyncedRV(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10), {block: true}},
			[]watchResp{{events: []ev{added("a", 11), modified("a", 12)}, open: true}})
		store := newStore()
		store.failNext("update", errBoom)
		h := start(t, lw, store, reflector.Options{Backoff: noJitter})
		time.Sleep(time.Second)
		assert.Equal(t, "11", h.r.LastSyncResourceVersion())
		calls := lw.Calls()
		require.Greater(t, len(calls), 2)
		assert.Equal(t, `list rv="11" limit=0 continue=""`, calls[2])
		h.stop(t)
	})
}
