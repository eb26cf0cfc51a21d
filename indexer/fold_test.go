package indexer

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSortKeys: sortKeys orders by key and keeps the changes of one key in
// log order, whatever the keys: long common prefixes, keys that differ
// only in trailing zero bytes, duplicates, inputs already sorted.
func TestSortKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	alphabets := []string{"ab", "a\x00b", "0123456789", "\x00\xff"}
	for round := range 300 {
		n := r.IntN(300)
		prefix := strings.Repeat("p", r.IntN(20))
		alphabet := alphabets[round%len(alphabets)]
		keys := make([]string, r.IntN(50)+1)
		for i := range keys {
			b := []byte(prefix)
			for range r.IntN(20) {
				b = append(b, alphabet[r.IntN(len(alphabet))])
			}
			keys[i] = string(b)
		}
		if round%7 == 0 {
			slices.Sort(keys)
		}
		items := make([]item[int], n)
		for i := range items {
			k := keys[r.IntN(len(keys))]
			if round%7 == 0 {
				k = keys[i*len(keys)/max(n, 1)] // in key order
			}
			items[i] = item[int]{c: &cell[int]{key: k}, pos: uint32(i)}
		}
		want := slices.Clone(items)
		slices.SortStableFunc(want, func(a, b item[int]) int { return strings.Compare(a.c.key, b.c.key) })
		sortKeys(items)
		for i := range items {
			if items[i].c != want[i].c {
				t.Fatalf("round %d: position %d holds %q (log %d), want %q (log %d)",
					round, i, items[i].c.key, items[i].pos, want[i].c.key, want[i].pos)
			}
		}
	}
}

// TestFoldAgainstModel logs random changes of the kinds the Indexer makes
// and folds them at random moments, by both ways, into a tree that
// snapshots share; the tree must equal a model that applies every change
// at once, and every clone the model of its time.
func TestFoldAgainstModel(t *testing.T) {
	for _, ratio := range []int{1, 1 << 20} { // always merge, never merge
		t.Run(fmt.Sprint("mergeRatio=", ratio), func(t *testing.T) {
			tune := smallTuning()
			tune.mergeRatio = ratio
			r := rand.New(rand.NewPCG(uint64(ratio), 7))
			s := newLeafTree[int](tune)
			l := newOplog[int](tune)
			model := map[[2]string]int{}
			type frozen struct {
				s     *leafTree[int]
				model map[[2]string]int
			}
			var clones []frozen
			for step := range 4000 {
				g := string(rune('a' + r.IntN(3)))
				k := fmt.Sprintf("k%02d", r.IntN(30))
				switch r.IntN(10) {
				case 0, 1, 2, 3, 4:
					l.add(opSet, g, &cell[int]{key: k, obj: step})
					model[[2]string{g, k}] = step
				case 5, 6, 7:
					if _, ok := model[[2]string{g, k}]; ok { // the Indexer deletes what it holds
						l.add(opDel, g, &cell[int]{key: k})
						delete(model, [2]string{g, k})
					}
				case 8:
					s = fold(s, &l)
					require.True(t, l.empty())
					require.Equal(t, model, checkTree(t, s), "step %d", step)
				case 9:
					s = fold(s, &l)
					clones = append(clones, frozen{s.clone(), maps.Clone(model)})
				}
			}
			s = fold(s, &l)
			require.Equal(t, model, checkTree(t, s))
			require.NotEmpty(t, clones)
			for i, c := range clones {
				require.Equal(t, c.model, checkTree(t, c.s), "clone %d", i)
			}
		})
	}
}

// TestFoldRepairs: a delete that finds nothing, or a scan, makes the fold
// remove every other entry of the key that its last changes did not set.
func TestFoldRepairs(t *testing.T) {
	for _, ratio := range []int{1, 1 << 20} {
		t.Run(fmt.Sprint("mergeRatio=", ratio), func(t *testing.T) {
			tune := smallTuning()
			tune.mergeRatio = ratio
			s := newLeafTree[int](tune)
			l := newOplog[int](tune)
			for _, g := range []string{"a", "b", "c", "d"} {
				for i := range 6 {
					if i != 1 || g < "c" { // k1 only under a and b
						l.add(opSet, g, &cell[int]{key: fmt.Sprint("k", i), obj: i})
					}
				}
			}
			s = fold(s, &l)
			// k1 is indexed under a and b, but its writer believes c: the
			// delete of (c, k1) finds nothing, so a and b are stale.
			l.add(opDel, "c", &cell[int]{key: "k1"})
			l.add(opSet, "d", &cell[int]{key: "k1", obj: 10})
			// k2's old values are unknown: everything before the scan goes,
			// and what follows it stays.
			l.add(opSet, "a", &cell[int]{key: "k2", obj: 20})
			l.addScan("k2")
			l.add(opSet, "b", &cell[int]{key: "k2", obj: 21})
			// k3 is deleted with unknown values.
			l.addScan("k3")
			s = fold(s, &l)
			got := checkTree(t, s)
			for _, k := range []string{"k1", "k2", "k3"} {
				var groups []string
				for e := range got {
					if e[1] == k {
						groups = append(groups, e[0])
					}
				}
				slices.Sort(groups)
				want := map[string][]string{"k1": {"d"}, "k2": {"b"}, "k3": nil}[k]
				require.Equal(t, want, groups, k)
			}
			require.Equal(t, 10, got[[2]string{"d", "k1"}])
			require.Equal(t, 21, got[[2]string{"b", "k2"}])
			require.Len(t, got, 3*4+2, "k1, k2, k3 lost their other entries, nothing else did")
		})
	}
}

// TestLogChunks: a log larger than a chunk keeps every change, in order.
func TestLogChunks(t *testing.T) {
	tune := smallTuning()
	l := newOplog[int](tune)
	for i := range 23 {
		l.add(opSet, fmt.Sprint(i%3), &cell[int]{key: fmt.Sprintf("k%02d", 22-i), obj: i})
	}
	require.Equal(t, 23, l.n)
	require.NotEmpty(t, l.full)
	total := 0
	for _, b := range l.buckets() {
		for i, it := range b.items {
			require.Equal(t, b.grp, fmt.Sprint(int(it.pos)%3))
			if i > 0 {
				require.Less(t, b.items[i-1].pos, it.pos, "a bucket is in log order")
			}
		}
		total += len(b.items)
	}
	require.Equal(t, 23, total)
	// A log of sets of one group keeps no tags until a delete comes.
	st := newOplog[int](tune)
	for i := range 7 {
		st.add(opSet, "", &cell[int]{key: fmt.Sprint(i)})
	}
	require.Nil(t, st.cur.tags)
	require.NotEmpty(t, st.full, "small chunks")
	st.add(opDel, "", &cell[int]{key: "3"})
	require.Len(t, st.cur.tags, len(st.cur.cs))
	for i, tag := range st.cur.tags {
		require.Equal(t, i == len(st.cur.tags)-1, tag == 1<<tagKindShift, "tag %d", i)
	}
	st.add(opSet, "", &cell[int]{key: "8"})
	items := st.buckets()[0].items
	require.Len(t, items, 9)
	require.True(t, items[7].del)
	require.False(t, items[6].del || items[8].del)
	s := fold(newLeafTree[int](tune), &l)
	require.Equal(t, 23, s.n)
	require.True(t, l.empty())
}
