package informer

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/deltafifo"
)

var errPoison = errors.New("poison")

// poisonTransform fails for objects whose Val is 13.
func poisonTransform(o *obj) (*obj, error) {
	if o.Val == 13 {
		return nil, errPoison
	}
	return o, nil
}

// badLog collects what OnBadObject receives.
type badLog struct {
	mu   sync.Mutex
	errs []error
}

func (b *badLog) add(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errs = append(b.errs, err)
}

// keys returns the keys of the collected errors (each must wrap a
// *deltafifo.BadObjectError) and forgets them.
func (b *badLog) keys(t *testing.T) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, err := range b.errs {
		var bad *deltafifo.BadObjectError
		require.ErrorAs(t, err, &bad)
		out = append(out, bad.Key+"@"+bad.ResourceVersion)
	}
	b.errs = nil
	return out
}

// TestBadObjectInListIsQuarantined: one object whose Transform fails in
// the initial list no longer fails the whole Replace (which kept the
// informer from ever syncing or watching): it is left out, counted and
// reported, everything else is cached, and its next good version is
// taken normally.
func TestBadObjectInListIsQuarantined(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "bad", 13)
		listRV := create(t, src, "c", 3)
		m := &countingMetrics{}
		var bad badLog
		inf := newInformer(t, src, Options[*obj]{Transform: poisonTransform, Metrics: m, OnBadObject: bad.add})
		rec := &recorder{t: t}
		_, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		require.True(t, inf.HasSynced())
		require.ElementsMatch(t, []string{"add a 1 true", "add c 3 true"}, rec.take())
		require.Equal(t, []string{"bad@" + listRV}, bad.keys(t))
		require.Equal(t, 1, m.get("quarantined", ""))
		_, ok := inf.Lister().Get("bad")
		require.False(t, ok)

		rv := update(t, src, "bad", 4)
		require.NoError(t, inf.WaitForResourceVersion(context.Background(), rv))
		got, ok := inf.Lister().Get("bad")
		require.True(t, ok)
		require.Equal(t, 4, got.Val)
		synctest.Wait()
		require.Equal(t, []string{"add bad 4 false"}, rec.take())
		require.Equal(t, 1, src.ListCalls(), "one list: the informer watched from it")
	})
}

// TestBadWatchEventDoesNotRelist: a watch event the informer cannot take
// is quarantined instead of being returned to the reflector as a store
// error (which relisted at the version before it, met it again and
// looped); the cache keeps the object's last good state and the next
// good version is taken without any relist.
func TestBadWatchEventDoesNotRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		m := &countingMetrics{}
		var bad badLog
		inf := newInformer(t, src, Options[*obj]{Transform: poisonTransform, Metrics: m, OnBadObject: bad.add})
		rec := &recorder{t: t}
		_, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		require.Equal(t, []string{"add a 1 true"}, rec.take())

		badRV := update(t, src, "a", 13)
		require.NoError(t, inf.WaitForResourceVersion(context.Background(), badRV))
		got, _ := inf.Lister().Get("a")
		require.Equal(t, 1, got.Val, "the last good state is kept")
		time.Sleep(time.Minute) // any backoff
		synctest.Wait()
		require.Equal(t, 1, src.ListCalls(), "a bad event does not relist")
		require.Equal(t, []string{"a@" + badRV}, bad.keys(t))
		require.Equal(t, 1, m.get("quarantined", ""))

		rv := update(t, src, "a", 2)
		require.NoError(t, inf.WaitForResourceVersion(context.Background(), rv))
		got, _ = inf.Lister().Get("a")
		require.Equal(t, 2, got.Val)
		synctest.Wait()
		require.Equal(t, []string{"update a 1->2"}, rec.take())
		require.Equal(t, 1, src.ListCalls())

		// A delete whose Transform fails still deletes.
		_, err = src.Update(context.Background(), &obj{Key: "a", Val: 13}, "")
		require.NoError(t, err)
		rv = remove(t, src, "a")
		require.NoError(t, inf.WaitForResourceVersion(context.Background(), rv))
		_, ok := inf.Lister().Get("a")
		require.False(t, ok)
		synctest.Wait()
		require.Equal(t, []string{"delete a 2 false"}, rec.take())
		require.Equal(t, 1, src.ListCalls())
	})
}

// TestCacheRejectionIsReported: a delta the cache rejects (an index
// function fails) reaches OnBadObject too, after the informer's lock is
// released, and a panicking OnBadObject is recovered and counted.
func TestCacheRejectionIsReported(t *testing.T) {
	inf, l, m := newCore(t, newSource(t))
	var got []error
	inf.onBad = func(err error) {
		got = append(got, err)
		inf.mu.Lock() // would deadlock if called under mu
		inf.mu.Unlock()
		panic("callback")
	}
	require.NoError(t, inf.process(deltafifo.Deltas[*obj]{
		{Type: deltafifo.Added, Object: &obj{Key: "a", RV: "1", Node: "bad"}, ResourceVersion: "1"},
		d(deltafifo.Added, "b", "5"),
	}, false))
	require.Equal(t, []string{"add b@5 false"}, drainNotes(l))
	require.Len(t, got, 1)
	var bad *deltafifo.BadObjectError
	require.ErrorAs(t, got[0], &bad)
	require.Equal(t, "a", bad.Key)
	require.Equal(t, "1", bad.ResourceVersion)
	require.Equal(t, 1, m.get("cache_errors", ""))
	require.Equal(t, 1, m.get("callback_panics", ""))
}
