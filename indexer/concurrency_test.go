package indexer

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// checkConsistent verifies that a snapshot is internally consistent: the
// indexes hold exactly the entries its objects compute, with the same
// objects, in key order.
func checkConsistent(t *testing.T, s *Snapshot[*obj]) {
	keys := s.ListKeys()
	list := s.List()
	if len(keys) != s.Len() || len(list) != len(keys) || !slices.IsSorted(keys) {
		t.Errorf("store: %d keys, %d objects, Len %d, sorted %v", len(keys), len(list), s.Len(), slices.IsSorted(keys))
		return
	}
	want := map[string][]*obj{}
	for _, v := range list {
		vals, _ := byLabel(v)
		for i, l := range vals {
			if !dup(vals, i) {
				want[l] = append(want[l], v)
			}
		}
	}
	values, err := s.IndexValues("label")
	if err != nil || len(values) != len(want) {
		t.Errorf("IndexValues = %v, %v; want %d values", values, err, len(want))
		return
	}
	for _, l := range values {
		got, _ := s.ByIndex("label", l)
		if !slices.Equal(got, want[l]) {
			t.Errorf("ByIndex(label, %s): %d objects, want %d", l, len(got), len(want[l]))
		}
	}
	n := 0
	for k, v := range s.All() {
		if k != keys[n] || v != list[n] {
			t.Errorf("All()[%d] = %s, want %s", n, k, keys[n])
			return
		}
		n++
	}
}

// TestConcurrentReadersAndWriters: snapshots iterated while writers run
// stay consistent, and nothing races (run with -race).
func TestConcurrentReadersAndWriters(t *testing.T) {
	x := newTuned(t, smallTuning()) // many leaves, so writers keep copying shared ones
	const writers, readers, rounds = 2, 2, 300
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			ns := fmt.Sprint("w", w)
			for i := range rounds {
				name := fmt.Sprint(i % 37)
				var err error
				switch i % 4 {
				case 0, 1:
					err = x.Add(o(ns, name, i, fmt.Sprint("l", i%5), fmt.Sprint("m", i%3)))
				case 2:
					err = x.Update(o(ns, name, i, fmt.Sprint("l", i%7)))
				case 3:
					err = x.Delete(o(ns, fmt.Sprint((i/4)%37), i))
				}
				if err != nil {
					t.Error(err)
					return
				}
				if i%50 == 0 {
					x.Bookmark(fmt.Sprint(i))
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for i := range rounds / 3 {
				checkConsistent(t, x.Snapshot())
				// Live reads and iterators run beside the writers too.
				for k, v := range x.Range("w0/") {
					if k != objKey(v) {
						t.Errorf("Range: %s holds %s", k, objKey(v))
					}
				}
				if _, err := x.ByIndex("label", fmt.Sprint("l", i%5)); err != nil {
					t.Error(err)
				}
				_, _ = x.Get("w1/3")
				_ = x.LastSyncResourceVersion()
			}
		})
	}
	wg.Wait()
	checkConsistent(t, x.Snapshot())
	require.Equal(t, x.Len(), len(x.List()))
}

// TestReplaceRacesAddIndexers: Replace builds its indexes outside the
// lock; an index added meanwhile must still end up covering the replaced
// contents.
func TestReplaceRacesAddIndexers(t *testing.T) {
	x := newTest(t)
	items := make([]*obj, 200)
	for i := range items {
		items[i] = o(fmt.Sprint("ns", i%4), fmt.Sprint(i), i, fmt.Sprint("l", i%6))
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 30 {
			if err := x.Replace(items[:100+i*3], fmt.Sprint(i)); err != nil {
				t.Error(err)
			}
		}
	})
	wg.Go(func() {
		for i := range 10 {
			err := x.AddIndexers(Indexers[*obj]{fmt.Sprint("extra", i): byNS})
			if err != nil {
				t.Error(err)
			}
		}
	})
	wg.Wait()
	require.Equal(t, "29", x.LastSyncResourceVersion())
	require.Equal(t, 100+29*3, x.Len())
	want, err := x.IndexKeys("ns", "ns1")
	require.NoError(t, err)
	require.Len(t, want, 47) // i%4 == 1 for i < 187
	for i := range 10 {
		got, err := x.IndexKeys(fmt.Sprint("extra", i), "ns1")
		require.NoError(t, err)
		require.Equal(t, want, got, "extra%d", i)
	}
}
