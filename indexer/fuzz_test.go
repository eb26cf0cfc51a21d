package indexer

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// model is the trivial specification the Indexer is checked against: a
// map, plus which indexes exist and the last resourceVersion.
type model struct {
	objs   map[string]*obj
	hasVer bool
	rv     string
}

func byVer(v *obj) ([]string, error) { return []string{fmt.Sprint(v.Ver % 3)}, nil }

// modelFuncs returns the index funcs the model has, by name.
func (m *model) funcs() map[string]IndexFunc[*obj] {
	fs := map[string]IndexFunc[*obj]{"ns": byNS, "label": byLabel}
	if m.hasVer {
		fs["ver"] = byVer
	}
	return fs
}

// valuesOf is what the index func gives, without duplicates, or an error.
func valuesOf(fn IndexFunc[*obj], v *obj) (vals []string, err error) {
	defer func() {
		if recover() != nil {
			err = errors.New("panic")
		}
	}()
	vals, err = fn(v)
	slices.Sort(vals)
	return slices.Compact(slices.Clone(vals)), err
}

// accepts reports whether every index func accepts v.
func (m *model) accepts(v *obj) bool {
	for _, fn := range m.funcs() {
		if _, err := valuesOf(fn, v); err != nil {
			return false
		}
	}
	return true
}

// verify checks every read of r against m. It is the fuzzer's inner loop,
// so it compares by hand rather than through testify.
func verify(t *testing.T, r reader, m *model) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(m.objs))
	if got := r.ListKeys(); !slices.Equal(got, keys) || r.Len() != len(keys) {
		t.Fatalf("ListKeys = %q, Len %d; want %q", got, r.Len(), keys)
	}
	list := r.List()
	if len(list) != len(keys) {
		t.Fatalf("List holds %d objects, want %d", len(list), len(keys))
	}
	for i, k := range keys {
		got, ok := r.Get(k)
		if list[i] != m.objs[k] || !ok || got != m.objs[k] {
			t.Fatalf("List()[%d] or Get(%q) is not the stored object", i, k)
		}
	}
	if _, ok := r.Get("a/missing"); ok {
		t.Fatal("Get of a missing key found something")
	}
	if got := r.LastSyncResourceVersion(); got != m.rv {
		t.Fatalf("LastSyncResourceVersion = %q, want %q", got, m.rv)
	}
	if _, err := r.IndexValues("ver"); !m.hasVer && !errors.Is(err, ErrUnknownIndex) {
		t.Fatalf("IndexValues(ver) without the index: %v", err)
	}
	for name, fn := range m.funcs() {
		byValue := map[string][]string{}
		for _, k := range keys {
			vals, err := valuesOf(fn, m.objs[k])
			if err != nil {
				t.Fatalf("the model stores only accepted objects: %v", err)
			}
			for _, v := range vals {
				byValue[v] = append(byValue[v], k)
			}
		}
		values := slices.Sorted(maps.Keys(byValue))
		if got, err := r.IndexValues(name); err != nil || !slices.Equal(got, values) {
			t.Fatalf("IndexValues(%q) = %q, %v; want %q", name, got, err, values)
		}
		for _, v := range append(values, "absent") {
			want := byValue[v]
			if ks, err := r.IndexKeys(name, v); err != nil || !slices.Equal(ks, want) {
				t.Fatalf("IndexKeys(%q, %q) = %q, %v; want %q", name, v, ks, err, want)
			}
			if n, err := r.IndexLen(name, v); err != nil || n != len(want) {
				t.Fatalf("IndexLen(%q, %q) = %d, %v; want %d", name, v, n, err, len(want))
			}
			objs, err := r.ByIndex(name, v)
			if err != nil || len(objs) != len(want) {
				t.Fatalf("ByIndex(%q, %q) = %d objects, %v; want %d", name, v, len(objs), err, len(want))
			}
			for i, k := range want {
				if objs[i] != m.objs[k] {
					t.Fatalf("ByIndex(%q, %q)[%d] is not the object stored under %q", name, v, i, k)
				}
			}
		}
	}
	// Index: union of two label values.
	probe := o("", "probe", 0, "x", "z")
	var want []string
	for _, k := range keys {
		if l := m.objs[k].Labels; slices.Contains(l, "x") || slices.Contains(l, "z") {
			want = append(want, k)
		}
	}
	if got, err := r.Index("label", probe); err != nil || !slices.Equal(keysOf(got), want) {
		t.Fatalf("Index(label, x|z) = %q, %v; want %q", keysOf(got), err, want)
	}
}

// verifyIters checks All and Range, which only the Snapshot and the
// Indexer have (not the reader interface).
func verifyIters(t *testing.T, all, rangeA func() []string, m *model) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(m.objs))
	require.Equal(t, len(keys), len(all()))
	if len(keys) > 0 {
		require.Equal(t, keys, all())
	}
	var inA []string
	for _, k := range keys {
		if strings.HasPrefix(k, "a/") {
			inA = append(inA, k)
		}
	}
	require.Equal(t, inA, rangeA())
}

func collect[V any](seq func(func(string, V) bool)) []string {
	var out []string
	for k := range seq {
		out = append(out, k)
	}
	return out
}

// runProgram interprets prog as a sequence of operations, applies each to
// an Indexer and to the model, and checks that they agree after every
// step, and that every snapshot taken along the way still agrees with the
// model of its time at the end.
func runProgram(t *testing.T, prog []byte) {
	pos := 0
	next := func() byte {
		if pos >= len(prog) {
			return 0
		}
		pos++
		return prog[pos-1]
	}
	ver := 0
	newObj := func() *obj {
		ver++
		ns := string(rune('a' + next()%3))
		name := ""
		if n := next() % 17; n < 16 {
			name = fmt.Sprintf("n%x", n)
		}
		b := next()
		var labels []string
		for i, l := range []string{"x", "y", "z", "x"} {
			if b&(1<<i) != 0 {
				labels = append(labels, l)
			}
		}
		switch {
		case b == 0xff:
			labels = append(labels, "PANIC")
		case b >= 0xf0:
			labels = append(labels, "ERR")
		}
		return &obj{NS: ns, Name: name, Labels: labels, Ver: ver}
	}

	x, err := newIndexer(objKey, testIndexers(), smallTuning())
	require.NoError(t, err)
	m := &model{objs: map[string]*obj{}}
	type frozen struct {
		s *Snapshot[*obj]
		m *model
	}
	var snaps []frozen

	// Long inputs add little but time: only the first maxOps operations run.
	const maxOps = 300
	for ops := 0; pos < len(prog) && ops < maxOps; ops++ {
		switch op := next() % 8; op {
		case 0, 1: // Add, Update
			v := newObj()
			if op == 0 {
				err = x.Add(v)
			} else {
				err = x.Update(v)
			}
			switch {
			case v.Name == "":
				require.ErrorIs(t, err, ErrKeyFunc)
			case !m.accepts(v):
				require.ErrorIs(t, err, ErrIndexFunc)
			default:
				require.NoError(t, err)
				m.objs[objKey(v)] = v
			}
		case 2: // Delete
			v := newObj()
			err = x.Delete(v)
			if v.Name == "" {
				require.ErrorIs(t, err, ErrKeyFunc)
			} else {
				require.NoError(t, err)
				delete(m.objs, objKey(v))
			}
		case 3: // Replace
			n := int(next() % 8)
			items := make([]*obj, n)
			want := map[string]*obj{}
			var keyErr bool
			for i := range items {
				items[i] = newObj()
				if items[i].Name == "" {
					keyErr = true
				} else {
					want[objKey(items[i])] = items[i]
				}
			}
			rv := fmt.Sprint("rv", pos)
			err = x.Replace(items, rv)
			accepted := true
			for _, v := range want {
				accepted = accepted && m.accepts(v)
			}
			switch {
			case keyErr:
				require.ErrorIs(t, err, ErrKeyFunc)
			case !accepted:
				require.ErrorIs(t, err, ErrIndexFunc)
			default:
				require.NoError(t, err)
				m.objs, m.rv = want, rv
			}
		case 4: // Snapshot
			snaps = append(snaps, frozen{x.Snapshot(), &model{objs: maps.Clone(m.objs), hasVer: m.hasVer, rv: m.rv}})
		case 5: // Bookmark
			m.rv = fmt.Sprint("bm", pos)
			x.Bookmark(m.rv)
		case 6: // AddIndexers
			err = x.AddIndexers(Indexers[*obj]{"ver": byVer})
			if m.hasVer {
				require.ErrorIs(t, err, ErrIndexExists)
			} else {
				require.NoError(t, err)
				m.hasVer = true
			}
		case 7: // a snapshot read in the middle of writes
			verify(t, x.Snapshot(), m)
		}
		verify(t, x, m)
		checkLive(t, x)
	}
	verifyIters(t, func() []string { return collect(x.All()) }, func() []string { return collect(x.Range("a/")) }, m)
	for _, s := range snaps {
		verify(t, s.s, s.m)
		checkLayout(t, &s.s.v)
		verifyIters(t, func() []string { return collect(s.s.All()) }, func() []string { return collect(s.s.Range("a/")) }, s.m)
	}
}

// checkLive folds x's logs and checks its trees and that its hash table
// holds exactly the cells of its store.
func checkLive(t *testing.T, x *Indexer[*obj]) {
	t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	x.foldAll()
	checkLayout(t, &x.live)
	checkTable(t, x.tab)
	require.Equal(t, x.tab.n, x.live.items.n)
	x.live.items.ascend("", "", func(c *cell[*obj]) bool {
		got, ok := x.tab.get(c.key)
		require.True(t, ok, c.key)
		require.Same(t, c, got, "the store and the table hold the same cell")
		return true
	})
	for _, ix := range x.live.indexes {
		ix.tree.groups(func(v string) bool {
			ix.tree.ascend(v, "", func(c *cell[*obj]) bool {
				got, ok := x.tab.get(c.key)
				require.True(t, ok && got == c, "index %s holds a cell the table does not", ix.name)
				return true
			})
			return true
		})
	}
}

// checkLayout checks the invariants of every tree of a view.
func checkLayout(t *testing.T, v *view[*obj]) {
	t.Helper()
	checkTree(t, v.items)
	require.True(t, slices.IsSortedFunc(v.indexes, func(a, b index[*obj]) int { return strings.Compare(a.name, b.name) }))
	for _, ix := range v.indexes {
		checkTree(t, ix.tree)
	}
}

// FuzzIndexer runs random operation sequences against a map-based model.
// The seed corpus (hand-written programs plus fixed-seed random ones) runs
// in every `go test`; `go test -fuzz FuzzIndexer` explores further.
func FuzzIndexer(f *testing.F) {
	f.Add([]byte{})
	// add, snapshot, update, delete, replace, bookmark, add indexers.
	f.Add([]byte{0, 0, 1, 1, 4, 1, 0, 1, 2, 2, 0, 1, 0, 7, 3, 2, 1, 1, 5, 0, 2, 3, 5, 6, 7, 6})
	// a failing and a panicking index func, an empty key.
	f.Add([]byte{0, 0, 1, 0xf1, 0, 1, 2, 0xff, 1, 0, 16, 3, 4, 3, 2, 0, 1, 1, 0, 16, 0})
	r := rand.New(rand.NewPCG(3, 5))
	for range 40 {
		prog := make([]byte, 50+r.IntN(400))
		for i := range prog {
			prog[i] = byte(r.UintN(256))
			if i%4 == 0 && r.IntN(4) > 0 {
				prog[i] = byte(r.IntN(3)) // mostly writes
			}
		}
		f.Add(prog)
	}
	f.Fuzz(runProgram)
}
