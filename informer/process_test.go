package informer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/deltafifo"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/source"
)

// TestRelistFindsMissedChanges: changes whose events were missed are
// found by the relist: a real change becomes an update for every handler,
// a vanished object an OnDelete with finalStateUnknown, and an unchanged
// object (same resourceVersion) no notification at all.
func TestRelistFindsMissedChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		create(t, src, "c", 3)
		inf := newInformer(t, src, Options[*obj]{})
		rec := &recorder{t: t}
		_, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		require.Len(t, rec.take(), 3)
		lists := src.ListCalls()

		src.MissNextEvents(2)
		update(t, src, "a", 10)
		remove(t, src, "b")
		synctest.Wait()
		require.Zero(t, rec.count(), "missed events are not seen")
		// A later visible write moves the informer's version past the
		// missed ones, so the relist (at that version) contains them.
		create(t, src, "d", 4)
		synctest.Wait()
		require.Equal(t, []string{"add d 4 false"}, rec.take())
		require.Equal(t, 1, src.CutWatches(fmt.Errorf("test: %w", source.ErrExpired)))
		time.Sleep(time.Minute) // any backoff
		synctest.Wait()
		require.Greater(t, src.ListCalls(), lists, "relisted")
		require.Equal(t, []string{"update a 1->10", "delete b 2 true"}, rec.take())
		_, ok := inf.Lister().Get("b")
		require.False(t, ok)
	})
}

// newCore returns an informer that is not run: the tests drive process
// directly with hand-made deltas (the pure core of the informer).
func newCore(t *testing.T, lw source.ListWatcher[*obj]) (*Informer[*obj], *listener[*obj], *countingMetrics) {
	t.Helper()
	m := &countingMetrics{}
	inf := newInformer(t, lw, Options[*obj]{Metrics: m, Indexers: indexer.Indexers[*obj]{
		"node": byNode,
		"fails": func(o *obj) ([]string, error) {
			if o.Node == "bad" {
				return nil, errors.New("bad node")
			}
			return nil, nil
		},
	}})
	l := newListener[*obj](inf, "probe", &recorder{t: t}, quiet, m.HandlerMetrics("", "probe"), func() bool { return true })
	inf.listeners = append(inf.listeners, l)
	return inf, l, m
}

// drainNotes formats and removes what the listener has buffered.
func drainNotes(l *listener[*obj]) []string {
	var out []string
	for {
		key, s, ok := l.buf.pop()
		if !ok {
			return out
		}
		for i := range s.n {
			n := s.at(i)
			switch n.kind {
			case kindAdd:
				out = append(out, fmt.Sprintf("add %s@%s %v", key, n.obj.RV, n.flag))
			case kindUpdate:
				out = append(out, fmt.Sprintf("update %s@%s->%s", key, n.old.RV, n.obj.RV))
			case kindDelete:
				out = append(out, fmt.Sprintf("delete %s@%s %v", key, n.obj.RV, n.flag))
			}
		}
	}
}

func d(typ deltafifo.DeltaType, key, rv string) deltafifo.Delta[*obj] {
	return deltafifo.Delta[*obj]{Type: typ, Object: &obj{Key: key, RV: rv}, ResourceVersion: rv}
}

func TestProcessTable(t *testing.T) {
	src := newSource(t)
	noCmp := source.ListWatchFuncs[*obj]{ListFunc: src.List, WatchFunc: src.Watch}
	tests := []struct {
		name    string
		lw      source.ListWatcher[*obj]
		initial []deltafifo.Delta[*obj]
		deltas  []deltafifo.Delta[*obj]
		want    string
		cache   string
	}{
		{name: "added", deltas: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			want: "add a@5 false", cache: "a@5"},
		{name: "replaced new key", deltas: []deltafifo.Delta[*obj]{d(deltafifo.Replaced, "a", "5")},
			want: "add a@5 false", cache: "a@5"},
		{name: "updated", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Updated, "a", "7")},
			want:   "update a@5->7", cache: "a@7"},
		{name: "replaced same version is no change", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Replaced, "a", "5")},
			want:   "", cache: "a@5"},
		{name: "replaced newer version is an update", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Replaced, "a", "9")},
			want:   "update a@5->9", cache: "a@9"},
		{name: "older version is stale", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Updated, "a", "4")},
			want:   "", cache: "a@5"},
		{name: "without a comparer an older version is an update", lw: noCmp,
			initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas:  []deltafifo.Delta[*obj]{d(deltafifo.Updated, "a", "4")},
			want:    "update a@5->4", cache: "a@4"},
		{name: "sync of cached key is silent", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Sync, "a", "5")},
			want:   "", cache: "a@5"},
		{name: "deleted", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Deleted, "a", "8")},
			want:   "delete a@8 false", cache: ""},
		{name: "inferred delete", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{{Type: deltafifo.Deleted, Object: &obj{Key: "a", RV: "5"}, FinalStateUnknown: true}},
			want:   "delete a@5 true", cache: ""},
		{name: "delete carrying an older object reports the cached one", initial: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "5")},
			deltas: []deltafifo.Delta[*obj]{{Type: deltafifo.Deleted, Object: &obj{Key: "a", RV: "3"}, FinalStateUnknown: true}},
			want:   "delete a@5 true", cache: ""},
		{name: "delete of an uncached key is silent",
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Deleted, "a", "8")},
			want:   "", cache: ""},
		{name: "empty key is rejected",
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Added, "", "8")},
			want:   "", cache: ""},
		{name: "failing index func rejects the write",
			deltas: []deltafifo.Delta[*obj]{{Type: deltafifo.Added, Object: &obj{Key: "a", RV: "1", Node: "bad"}}},
			want:   "", cache: ""},
		{name: "add, update, delete in one pop",
			deltas: []deltafifo.Delta[*obj]{d(deltafifo.Added, "a", "1"), d(deltafifo.Updated, "a", "2"), d(deltafifo.Deleted, "a", "3")},
			want:   "delete a@3 false", cache: ""}, // add+delete coalesces to the delete
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lw := tt.lw
			if lw == nil {
				lw = src
			}
			inf, l, _ := newCore(t, lw)
			require.NoError(t, inf.process(tt.initial, false))
			drainNotes(l)
			require.NoError(t, inf.process(tt.deltas, false))
			require.Equal(t, tt.want, strings.Join(drainNotes(l), "; "))
			var cache []string
			for k, o := range inf.idx.All() {
				cache = append(cache, k+"@"+o.RV)
			}
			require.Equal(t, tt.cache, strings.Join(cache, " "))
		})
	}
}

func TestProcessCountsRejectedAndStaleDeltas(t *testing.T) {
	inf, l, m := newCore(t, newSource(t))
	require.NoError(t, inf.process(deltafifo.Deltas[*obj]{
		{Type: deltafifo.Added, Object: &obj{Key: "a", RV: "1", Node: "bad"}},
		d(deltafifo.Added, "b", "5"),
		d(deltafifo.Updated, "b", "3"),
	}, true))
	require.Equal(t, []string{"add b@5 true"}, drainNotes(l))
	require.Equal(t, 1, m.get("cache_errors", ""))
	require.Equal(t, 1, m.get("stale_deltas", ""))
}

func TestTransformAppliesBeforeCacheAndHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		inf := newInformer(t, src, Options[*obj]{Transform: func(o *obj) (*obj, error) {
			c := *o
			c.Node = "n-" + fmt.Sprint(o.Val)
			return &c, nil
		}})
		rec := &recorder{t: t}
		_, err := inf.AddEventHandler(rec, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		update(t, src, "a", 2)
		synctest.Wait()
		got, err := inf.Lister().ByIndex("node", "n-2")
		require.NoError(t, err)
		require.Len(t, got, 1)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		require.Len(t, rec.calls, 2)
		require.Equal(t, "n-1", rec.calls[0].Obj.Node)
		require.Equal(t, "n-2", rec.calls[1].Obj.Node)
	})
}

func TestStopDropsPendingAndLeaksNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		for i := range 20 {
			create(t, src, fmt.Sprint("k", i), i)
		}
		inf := newInformer(t, src, Options[*obj]{ResyncPeriod: time.Second, MutationCheck: &MutationCheck[*obj]{}})
		gate := make(chan struct{})
		slow := &recorder{t: t, gate: gate}
		_, err := inf.AddEventHandler(slow, HandlerOptions{})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Run returned while a handler call was in progress")
		default:
		}
		gate <- struct{}{}
		require.ErrorIs(t, <-done, context.Canceled)
		require.Equal(t, 1, slow.count(), "pending notifications were dropped")
		// The bubble's end checks that no goroutine is left.
	})
}
