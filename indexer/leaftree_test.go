package indexer

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// smallTuning returns tiny leaves and a minimal fence tree, and folds logs
// early and often by both ways, so that a few dozen entries exercise
// splits, merges, fence lowering, several btree levels, chunked logs and
// the fold. Each call returns a fresh tuning that the test may change.
func smallTuning() *tuning {
	return &tuning{leafMax: 4, fenceDegree: 2, foldMin: 3, foldMul: 2, chunkMax: 5, mergeRatio: 4}
}

// mk returns a cell holding v under key.
func mk(key string, v int) *cell[int] { return &cell[int]{key: key, obj: v} }

// checkTree verifies the layout invariants of s and returns its entries'
// objects.
func checkTree[T comparable](tb testing.TB, s *leafTree[T]) map[[2]string]T {
	tb.Helper()
	out := map[[2]string]T{}
	var prev fence[T]
	first := true
	s.fences.Ascend(func(f fence[T]) bool {
		cs := f.l.cs
		switch {
		case len(cs) == 0:
			tb.Fatalf("empty leaf at %q/%q", f.grp, f.lo)
		case len(cs) > s.tune.leafMax:
			tb.Fatalf("leaf at %q/%q holds %d > %d", f.grp, f.lo, len(cs), s.tune.leafMax)
		case f.lo > cs[0].key:
			tb.Fatalf("fence %q/%q above its first key %q", f.grp, f.lo, cs[0].key)
		case !first && prev.grp == f.grp && prev.l.cs[len(prev.l.cs)-1].key >= f.lo:
			tb.Fatalf("leaf at %q/%q overlaps the next fence %q", prev.grp, prev.lo, f.lo)
		}
		for i, c := range cs {
			if i > 0 && cs[i-1].key >= c.key {
				tb.Fatalf("leaf at %q/%q unsorted at %q", f.grp, f.lo, c.key)
			}
			out[[2]string{f.grp, c.key}] = c.obj
		}
		prev, first = f, false
		return true
	})
	if len(out) != s.n {
		tb.Fatalf("tree counts %d entries, holds %d", s.n, len(out))
	}
	return out
}

func TestLeafTreeScripted(t *testing.T) {
	s := newLeafTree[int](smallTuning())
	// Ascending inserts leave full leaves behind.
	for i := range 12 {
		s.set("g", mk(fmt.Sprintf("k%02d", i), i))
	}
	checkTree(t, s)
	full := 0
	s.fences.Ascend(func(f fence[int]) bool {
		if len(f.l.cs) == s.tune.leafMax {
			full++
		}
		return true
	})
	require.Equal(t, 3, full, "12 ascending inserts into leaves of 4")

	// Descending inserts into another group lower the first fence.
	for i := 11; i >= 0; i-- {
		s.set("a", mk(fmt.Sprintf("k%02d", i), -i))
	}
	checkTree(t, s)
	require.Equal(t, 12, s.count("a"))
	require.Equal(t, 12, s.count("g"))
	require.Equal(t, 0, s.count("b"))

	// Replacing returns the old cell.
	old, replaced := s.set("g", mk("k05", 50))
	require.True(t, replaced)
	require.Equal(t, 5, old.obj)
	c, ok := s.get("g", "k05")
	require.True(t, ok)
	require.Equal(t, 50, c.obj)
	_, ok = s.get("g", "zz")
	require.False(t, ok)
	_, ok = s.get("b", "k05")
	require.False(t, ok)

	// Middle inserts split.
	s.set("g", mk("k05a", 1))
	s.set("g", mk("k05b", 2))
	checkTree(t, s)

	var groups []string
	s.groups(func(g string) bool { groups = append(groups, g); return true })
	require.Equal(t, []string{"a", "g"}, groups)

	// ascend from the middle and stop early.
	var got []string
	done := s.ascend("g", "k05", func(c *cell[int]) bool {
		got = append(got, c.key)
		return len(got) < 4
	})
	require.False(t, done)
	require.Equal(t, []string{"k05", "k05a", "k05b", "k06"}, got)

	// Deleting everything from a group frees its leaves.
	for i := range 12 {
		old, ok := s.del("a", fmt.Sprintf("k%02d", i))
		require.True(t, ok)
		require.Equal(t, -i, old.obj)
		checkTree(t, s)
	}
	_, ok = s.del("a", "k00")
	require.False(t, ok)
	groups = groups[:0]
	s.groups(func(g string) bool { groups = append(groups, g); return true })
	require.Equal(t, []string{"g"}, groups)
}

// TestLeafTreeRandomAgainstMap drives a tree and its clones with random
// operations and compares them with maps after every step.
func TestLeafTreeRandomAgainstMap(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	s := newLeafTree[int](smallTuning())
	model := map[[2]string]int{}
	type frozen struct {
		s     *leafTree[int]
		model map[[2]string]int
	}
	var clones []frozen
	for step := range 3000 {
		g := string(rune('a' + r.IntN(3)))
		k := fmt.Sprintf("k%02d", r.IntN(40))
		switch r.IntN(10) {
		case 0, 1, 2, 3, 4:
			s.set(g, mk(k, step))
			model[[2]string{g, k}] = step
		case 5, 6, 7, 8:
			old, ok := s.del(g, k)
			want, wantOK := model[[2]string{g, k}]
			require.Equal(t, wantOK, ok)
			if ok {
				require.Equal(t, want, old.obj)
			}
			delete(model, [2]string{g, k})
		case 9:
			clones = append(clones, frozen{s.clone(), maps.Clone(model)})
		}
		if got := checkTree(t, s); !maps.Equal(model, got) {
			t.Fatalf("step %d: tree holds %v, want %v", step, got, model)
		}
	}
	require.NotEmpty(t, clones)
	for i, c := range clones {
		require.Equal(t, c.model, checkTree(t, c.s), "clone %d", i)
	}
}

func TestBuilder(t *testing.T) {
	tune := smallTuning()
	b := newBuilder[int](tune)
	model := map[[2]string]int{}
	for g := range 3 {
		var run []*cell[int]
		for k := range 7 {
			c := mk(fmt.Sprintf("k%d", k), g*10+k)
			model[[2]string{fmt.Sprint(g), c.key}] = c.obj
			if g == 1 {
				run = append(run, c)
			} else {
				b.add(fmt.Sprint(g), c)
			}
		}
		b.addRun(fmt.Sprint(g), run)
	}
	s := b.done()
	require.Equal(t, model, checkTree(t, s))
	// A built tree stays valid under further writes.
	s.set("1", mk("k3a", 99))
	s.set("0", mk("a", 98))
	s.del("2", "k0")
	model[[2]string{"1", "k3a"}] = 99
	model[[2]string{"0", "a"}] = 98
	delete(model, [2]string{"2", "k0"})
	require.Equal(t, model, checkTree(t, s))
	require.Equal(t, 0, newBuilder[int](tune).done().n)
}

func TestPrefix8Orders(t *testing.T) {
	strs := []string{"", "\x00", "a", "a\x00", "ab", "abcdefgh", "abcdefgh\x00", "abcdefghi", "abcdefgi", "b", "\xff\xff"}
	for _, a := range strs {
		for _, b := range strs {
			pa, pb := prefix8(a), prefix8(b)
			if pa < pb && !(a < b) || pa > pb && !(a > b) {
				t.Errorf("prefix8(%q)=%x, prefix8(%q)=%x disagree with the strings", a, pa, b, pb)
			}
			fa, fb := mkFence[int](a, b, nil), mkFence[int](b, a, nil)
			want := a < b // (a, b) < (b, a) exactly when a < b
			if got := fenceLess(fa, fb); got != want {
				t.Errorf("fenceLess((%q,%q), (%q,%q)) = %v", a, b, b, a, got)
			}
		}
	}
}

// TestLeafTreeShrinks: a leaf emptied to a quarter, with no neighbour to merge
// with, gives back its spare capacity.
func TestLeafTreeShrinks(t *testing.T) {
	s := newLeafTree[int](defaultTuning())
	max := s.tune.leafMax
	for i := range max {
		s.set("", mk(fmt.Sprintf("k%03d", i), i))
	}
	for i := range max - max/4 {
		_, ok := s.del("", fmt.Sprintf("k%03d", i))
		require.True(t, ok)
	}
	checkTree(t, s)
	f, ok := s.floor("", "k999")
	require.True(t, ok)
	require.Len(t, f.l.cs, max/4)
	require.Less(t, cap(f.l.cs), max/2, "spare capacity returned")
}
