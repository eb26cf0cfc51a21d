package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// kv is an object of the fake-backed tests.
type kv struct{ K, V string }

func kvKey(o kv) string { return o.K }

// mapStore is a Store that keeps the state, so tests can compare it with
// the source. reject, if set, refuses an Add or Update of matching
// objects, as an informer refuses an object its key func cannot take.
type mapStore struct {
	mu     sync.Mutex
	m      map[string]string
	reject func(kv) bool
}

func (s *mapStore) put(o kv) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reject != nil && s.reject(o) {
		return fmt.Errorf("cannot take %s=%s", o.K, o.V)
	}
	s.m[o.K] = o.V
	return nil
}
func (s *mapStore) Add(o kv, _ string) error    { return s.put(o) }
func (s *mapStore) Update(o kv, _ string) error { return s.put(o) }
func (s *mapStore) Delete(o kv, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, o.K)
	return nil
}
func (s *mapStore) Replace(l []kv, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m = map[string]string{}
	for _, o := range l {
		if s.reject == nil || !s.reject(o) {
			s.m[o.K] = o.V
		}
	}
	return nil
}
func (s *mapStore) Resync() error { return nil }
func (s *mapStore) state() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.m)
}

func sourceState(t *testing.T, src *fake.Source[kv]) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, o := range src.Items() {
		out[o.K] = o.V
	}
	return out
}

func runKV(t *testing.T, src *fake.Source[kv], store reflector.Store[kv], m *counts) (*reflector.Reflector[kv], func()) {
	t.Helper()
	r, err := reflector.New[kv](src, store, reflector.Options{Logger: quiet, Metrics: m})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	return r, func() {
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	}
}

// Issue 12.1: after events were lost and the watch then failed (no
// compaction), the relist must serve the latest state, not the snapshot
// at the last synced version — or the cache stays stale for good.
func TestRelistRepairsLostEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src, err := fake.NewSource(kvKey, fake.Options[kv]{})
		require.NoError(t, err)
		_, err = src.Create(ctx, kv{"a", "1"})
		require.NoError(t, err)
		_, err = src.Create(ctx, kv{"b", "1"})
		require.NoError(t, err)
		store := &mapStore{}
		m := &counts{}
		r, stop := runKV(t, src, store, m)
		defer stop()
		synctest.Wait()
		require.Equal(t, sourceState(t, src), store.state())

		src.MissNextEvents(2)
		_, err = src.Update(ctx, kv{"a", "2"}, "")
		require.NoError(t, err)
		_, err = src.Delete(ctx, "b", "")
		require.NoError(t, err)
		synctest.Wait()
		require.Equal(t, map[string]string{"a": "1", "b": "1"}, store.state(), "the events were lost")

		src.CutWatches(errors.New("stream broke"))
		time.Sleep(time.Minute)
		assert.Equal(t, map[string]string{"a": "2"}, store.state())
		assert.Equal(t, src.ResourceVersion(), r.LastSyncResourceVersion())
	})
}

// Issue 12.1: one version the store rejects, fixed by the very next
// write, must not trap the reflector in relist → watch from the old
// version → same bad event → relist.
func TestRejectedVersionDoesNotLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src, err := fake.NewSource(kvKey, fake.Options[kv]{})
		require.NoError(t, err)
		_, err = src.Create(ctx, kv{"a", "1"})
		require.NoError(t, err)
		store := &mapStore{reject: func(o kv) bool { return o.V == "poison" }}
		m := &counts{}
		r, stop := runKV(t, src, store, m)
		defer stop()
		synctest.Wait()

		_, err = src.Create(ctx, kv{"x", "poison"})
		require.NoError(t, err)
		_, err = src.Update(ctx, kv{"x", "good"}, "")
		require.NoError(t, err)
		time.Sleep(5 * time.Minute)
		assert.Equal(t, map[string]string{"a": "1", "x": "good"}, store.state())
		assert.Equal(t, src.ResourceVersion(), r.LastSyncResourceVersion())
		assert.LessOrEqual(t, m.Lists.get(), 2, "one list to start, at most one to recover")
	})
}

// Issue 12.3: a watch failure marked transient is retried from the last
// version after a backoff, without a relist; an unmarked one relists.
func TestTransientWatchErrorsRewatch(t *testing.T) {
	transient := fmt.Errorf("429 too many requests: %w", source.ErrTransient)
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, []watchResp{
			{err: transient},
			{events: []ev{added("a", 11), errEvent(transient)}},
			{err: transient},
			{err: transient},
			{open: true},
		})
		store := newStore()
		h := start(t, lw, store, reflector.Options{Backoff: noJitter})
		time.Sleep(time.Minute)
		assert.Equal(t, []string{
			`list rv="" limit=0 continue=""`,
			`watch rv="10" bookmarks=true initial=false`,
			`watch rv="10" bookmarks=true initial=false`,
			`watch rv="11" bookmarks=true initial=false`,
			`watch rv="11" bookmarks=true initial=false`,
			`watch rv="11" bookmarks=true initial=false`,
		}, lw.Calls())
		assert.Equal(t, 1, h.metrics.Lists.get(), "client-go lists once too")
		assert.Equal(t, 4, h.metrics.Backoffs.get(), "each retry waits")
		assert.Equal(t, 4, h.metrics.TransientErrors.get())
		assert.Len(t, h.errs.all(), 4, "the WatchErrorHandler hears of each")
		h.stop(t)
	})
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10), listOK(12)}, []watchResp{{err: errBoom}, {open: true}})
		h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
		time.Sleep(time.Minute)
		assert.Equal(t, 2, h.metrics.Lists.get(), "an unmarked watch error relists")
		h.stop(t)
	})
}

// A relist asks for a state not older than the last synced version.
func TestRelistIsNotOlderThan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10), listOK(12)}, []watchResp{{events: []ev{added("a", 11), errEvent(errBoom)}}})
		h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
		time.Sleep(time.Minute)
		calls := lw.rawCalls()
		var lists []source.ListOptions
		for _, c := range calls {
			if c.list != nil {
				lists = append(lists, *c.list)
			}
		}
		require.Len(t, lists, 2)
		assert.Equal(t, source.ListOptions{ResourceVersion: "11", ResourceVersionMatch: source.NotOlderThan}, lists[1])
		h.stop(t)
	})
}

// Issue 12.6: bad arguments are errors, a panicking source is a bad
// source, and pages of one list must agree on the version.
func TestBadInputNeverPanics(t *testing.T) {
	t.Run("NilContext", func(t *testing.T) {
		r, err := reflector.New[item](newLW(nil, nil), newStore(), reflector.Options{Logger: quiet})
		require.NoError(t, err)
		//lint:ignore SA1012 a nil context is the input under test
		err = r.Run(nil) //nolint:staticcheck
		require.ErrorContains(t, err, "reflector: context is nil")
	})
	t.Run("TypedNil", func(t *testing.T) {
		var lw *scriptLW
		var store *recStore
		_, err := reflector.New[item](lw, newStore(), reflector.Options{})
		require.ErrorContains(t, err, "ListWatcher is nil")
		_, err = reflector.New[item](newLW(nil, nil), store, reflector.Options{})
		require.ErrorContains(t, err, "Store is nil")
	})
	t.Run("PanickingSource", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			var lists, watches int
			lw := source.ListWatchFuncs[item]{
				ListFunc: func(context.Context, source.ListOptions) (source.List[item], error) {
					lists++
					if lists == 1 {
						panic("list exploded")
					}
					return source.List[item]{ResourceVersion: "5"}, nil
				},
				WatchFunc: func(ctx context.Context, _ source.WatchOptions) (<-chan ev, error) {
					watches++
					if watches == 1 {
						panic("watch exploded")
					}
					ch := make(chan ev)
					go func() { <-ctx.Done(); close(ch) }()
					return ch, nil
				},
			}
			h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
			time.Sleep(time.Minute)
			assert.Equal(t, 2, h.metrics.BadSource.get())
			errs := h.errs.all()
			require.Len(t, errs, 2)
			assert.ErrorIs(t, errs[0], reflector.ErrBadSource)
			assert.ErrorContains(t, errs[0], "List panicked: list exploded")
			assert.ErrorContains(t, errs[1], "Watch panicked: watch exploded")
			assert.Equal(t, "5", h.r.LastSyncResourceVersion())
			h.stop(t)
		})
	})
	t.Run("PagesAtDifferentVersions", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			lw := newLW([]listResp{
				{list: source.List[item]{Items: items("a"), ResourceVersion: "10", Continue: "p2"}},
				{list: source.List[item]{Items: items("b"), ResourceVersion: "11"}},
				listOK(12, "a", "b"),
			}, nil)
			store := newStore()
			h := start(t, lw, store, reflector.Options{PageSize: 1, Backoff: noJitter})
			time.Sleep(time.Minute)
			errs := h.errs.all()
			require.NotEmpty(t, errs)
			assert.ErrorIs(t, errs[0], reflector.ErrBadSource)
			assert.ErrorContains(t, errs[0], `page 2 of a list is at resourceVersion "11", the first page at "10"`)
			assert.Equal(t, "replace [a b] @12", store.Ops()[0], "the mixed list never reached the store")
			h.stop(t)
		})
	})
}
