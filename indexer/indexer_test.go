package indexer

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// obj is the test object: keyed by NS/Name, indexed by namespace and by
// its labels. The label "ERR" makes the label index func fail, "PANIC"
// makes it panic with a string and "PANICERR" with an error.
type obj struct {
	NS, Name string
	Labels   []string
	Ver      int
}

var errBoom = errors.New("boom")

func objKey(o *obj) string {
	if o.Name == "" {
		return ""
	}
	return o.NS + "/" + o.Name
}

func byNS(o *obj) ([]string, error) { return []string{o.NS}, nil }

func byLabel(o *obj) ([]string, error) {
	for _, l := range o.Labels {
		switch l {
		case "ERR":
			return nil, errBoom
		case "PANIC":
			panic("label index exploded")
		case "PANICERR":
			panic(errBoom)
		}
	}
	return o.Labels, nil
}

func testIndexers() Indexers[*obj] {
	return Indexers[*obj]{"ns": byNS, "label": byLabel}
}

func newTest(t *testing.T, objs ...*obj) *Indexer[*obj] {
	t.Helper()
	return newTuned(t, defaultTuning(), objs...)
}

// newTuned is newTest with the given tuning (see smallTuning).
func newTuned(t *testing.T, tune *tuning, objs ...*obj) *Indexer[*obj] {
	t.Helper()
	x, err := newIndexer(objKey, testIndexers(), tune)
	require.NoError(t, err)
	for _, o := range objs {
		require.NoError(t, x.Add(o))
	}
	return x
}

func o(ns, name string, ver int, labels ...string) *obj {
	return &obj{NS: ns, Name: name, Ver: ver, Labels: labels}
}

func keysOf(objs []*obj) []string {
	out := make([]string, len(objs))
	for i, v := range objs {
		out[i] = objKey(v)
	}
	return out
}

// reader is the read API that Indexer and Snapshot share.
type reader interface {
	Get(key string) (*obj, bool)
	List() []*obj
	ListKeys() []string
	Len() int
	ByIndex(name, value string) ([]*obj, error)
	IndexLen(name, value string) (int, error)
	IndexKeys(name, value string) ([]string, error)
	IndexValues(name string) ([]string, error)
	Index(name string, obj *obj) ([]*obj, error)
	LastSyncResourceVersion() string
}

var (
	_ reader = (*Indexer[*obj])(nil)
	_ reader = (*Snapshot[*obj])(nil)
	// The deltafifo's KnownObjects is exactly this.
	_ interface {
		Get(key string) (*obj, bool)
		ListKeys() []string
	} = (*Indexer[*obj])(nil)
)

func TestNewValidates(t *testing.T) {
	_, err := New[*obj](nil, nil)
	require.ErrorContains(t, err, "indexer: nil key func")
	_, err = New(objKey, Indexers[*obj]{"ns": nil})
	require.ErrorContains(t, err, `indexer: index "ns": nil index func`)
	x, err := New(objKey, nil)
	require.NoError(t, err)
	require.Equal(t, 0, x.Len())
	require.Empty(t, x.List())
	require.Empty(t, x.ListKeys())
	require.Equal(t, "", x.LastSyncResourceVersion())
}

func TestUpsertGetDelete(t *testing.T) {
	x := newTest(t, o("b", "1", 1), o("a", "2", 1), o("a", "1", 1))
	require.Equal(t, 3, x.Len())
	require.Equal(t, []string{"a/1", "a/2", "b/1"}, x.ListKeys())
	require.Equal(t, []string{"a/1", "a/2", "b/1"}, keysOf(x.List()))

	got, ok := x.Get("a/2")
	require.True(t, ok)
	require.Equal(t, 1, got.Ver)
	_, ok = x.Get("a/3")
	require.False(t, ok)

	// Add and Update are both upserts; the store holds the caller's pointer.
	v2 := o("a", "2", 2)
	require.NoError(t, x.Add(v2))
	got, _ = x.Get("a/2")
	require.Same(t, v2, got)
	require.NoError(t, x.Update(o("c", "1", 1)))
	require.Equal(t, 4, x.Len())

	// Delete goes by key: any version of the object will do.
	require.NoError(t, x.Delete(o("a", "2", 99)))
	_, ok = x.Get("a/2")
	require.False(t, ok)
	require.Equal(t, []string{"a/1", "b/1", "c/1"}, x.ListKeys())
	// Deleting a missing key is not an error.
	require.NoError(t, x.Delete(o("a", "2", 1)))
	require.Equal(t, 3, x.Len())
	require.NoError(t, x.Resync())
	require.Equal(t, 3, x.Len())
}

func TestUpsertReturnsOld(t *testing.T) {
	x := newTest(t)
	v1 := o("a", "1", 1, "web")
	old, replaced, err := x.Upsert(v1)
	require.NoError(t, err)
	require.False(t, replaced)
	require.Nil(t, old)
	old, replaced, err = x.Upsert(o("a", "1", 2, "db"))
	require.NoError(t, err)
	require.True(t, replaced)
	require.Same(t, v1, old)
	keys, _ := x.IndexKeys("label", "db")
	require.Equal(t, []string{"a/1"}, keys)
	// A rejected write returns nothing and changes nothing.
	old, replaced, err = x.Upsert(o("a", "1", 3, "ERR"))
	require.ErrorIs(t, err, ErrIndexFunc)
	require.False(t, replaced)
	require.Nil(t, old)
	got, _ := x.Get("a/1")
	require.Equal(t, 2, got.Ver)
	_, _, err = x.Upsert(o("a", "", 1))
	require.ErrorIs(t, err, ErrKeyFunc)
}

func TestUpsertFunc(t *testing.T) {
	x := newTest(t, o("a", "1", 1, "web"))
	stored, _ := x.Get("a/1")
	never := func(*obj, bool) bool { return false }
	// Declined: nothing changes, the stored object and key come back.
	r, err := x.UpsertFunc(o("a", "1", 2, "db"), never)
	require.NoError(t, err)
	require.Equal(t, "a/1", r.Key)
	require.Same(t, stored, r.Old)
	require.True(t, r.Existed)
	require.False(t, r.Written)
	got, _ := x.Get("a/1")
	require.Same(t, stored, got)
	// Declined for a missing key: nothing is added.
	r, err = x.UpsertFunc(o("b", "1", 1), never)
	require.NoError(t, err)
	require.Equal(t, UpsertResult[*obj]{Key: "b/1"}, r)
	require.Equal(t, 1, x.Len())
	// Accepted: write sees the stored object and obj replaces it.
	var seen *obj
	r, err = x.UpsertFunc(o("a", "1", 3, "db"), func(old *obj, cached bool) bool {
		seen = old
		return cached && old.Ver < 3
	})
	require.NoError(t, err)
	require.Equal(t, "a/1", r.Key)
	require.Same(t, stored, seen)
	require.Same(t, stored, r.Old)
	require.True(t, r.Existed && r.Written)
	keys, _ := x.IndexKeys("label", "db")
	require.Equal(t, []string{"a/1"}, keys)
	// A failing index func rejects an accepted write.
	r, err = x.UpsertFunc(o("a", "1", 4, "ERR"), func(*obj, bool) bool { return true })
	require.ErrorIs(t, err, ErrIndexFunc)
	require.False(t, r.Written)
	got, _ = x.Get("a/1")
	require.Equal(t, 3, got.Ver)
}

func TestKeyFuncFailures(t *testing.T) {
	x := newTest(t)
	for _, f := range []func(*obj) error{x.Add, x.Update, x.Delete} {
		err := f(o("a", "", 1))
		require.ErrorIs(t, err, ErrKeyFunc)
		require.ErrorContains(t, err, "indexer: key func failed: empty key")
	}
	require.ErrorIs(t, x.Replace([]*obj{o("a", "1", 1), o("a", "", 1)}, "5"), ErrKeyFunc)

	p, err := New(func(*obj) string { panic("no key") }, nil)
	require.NoError(t, err)
	err = p.Add(o("a", "1", 1))
	require.ErrorIs(t, err, ErrKeyFunc)
	require.ErrorContains(t, err, "panic: no key")
	require.Equal(t, 0, x.Len()+p.Len())
	require.Equal(t, "", x.LastSyncResourceVersion())
}

func TestRangeAndAll(t *testing.T) {
	x := newTest(t, o("ns1", "a", 1), o("ns10", "a", 1), o("ns1", "b", 1), o("ns2", "a", 1))
	var keys []string
	for k, v := range x.Range("ns1/") {
		require.Equal(t, k, objKey(v))
		keys = append(keys, k)
	}
	require.Equal(t, []string{"ns1/a", "ns1/b"}, keys)

	keys = keys[:0]
	for k := range x.Range("ns") {
		keys = append(keys, k)
	}
	require.Equal(t, []string{"ns1/a", "ns1/b", "ns10/a", "ns2/a"}, keys)

	keys = keys[:0]
	for k := range x.Range("zz") {
		keys = append(keys, k)
	}
	require.Empty(t, keys)

	// Break stops the iteration.
	keys = keys[:0]
	for k := range x.All() {
		keys = append(keys, k)
		if len(keys) == 2 {
			break
		}
	}
	require.Equal(t, []string{"ns1/a", "ns1/b"}, keys)

	// The loop body may write: iteration holds no lock and sees a snapshot.
	keys = keys[:0]
	for k, v := range x.All() {
		keys = append(keys, k)
		require.NoError(t, x.Delete(v))
		require.NoError(t, x.Add(o("zz", k, 1)))
	}
	require.Equal(t, []string{"ns1/a", "ns1/b", "ns10/a", "ns2/a"}, keys)
	require.Equal(t, []string{"zz/ns1/a", "zz/ns1/b", "zz/ns10/a", "zz/ns2/a"}, x.ListKeys())
}

func TestIndexes(t *testing.T) {
	x := newTest(t,
		o("b", "2", 1, "web", "db"),
		o("a", "1", 1, "web"),
		o("b", "1", 1, "db", "db"), // a value listed twice is indexed once
		o("a", "3", 1),
	)
	got, err := x.ByIndex("ns", "b")
	require.NoError(t, err)
	require.Equal(t, []string{"b/1", "b/2"}, keysOf(got))
	got, err = x.ByIndex("label", "web")
	require.NoError(t, err)
	require.Equal(t, []string{"a/1", "b/2"}, keysOf(got))
	got, err = x.ByIndex("label", "nope")
	require.NoError(t, err)
	require.Empty(t, got)

	keys, err := x.IndexKeys("label", "db")
	require.NoError(t, err)
	require.Equal(t, []string{"b/1", "b/2"}, keys)

	vals, err := x.IndexValues("label")
	require.NoError(t, err)
	require.Equal(t, []string{"db", "web"}, vals)
	vals, err = x.IndexValues("ns")
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, vals)

	// Index: objects sharing any value with the given one, by key, once.
	got, err = x.Index("label", o("z", "z", 1, "db", "web"))
	require.NoError(t, err)
	require.Equal(t, []string{"a/1", "b/1", "b/2"}, keysOf(got))
	got, err = x.Index("label", o("z", "z", 1, "db", "db"))
	require.NoError(t, err)
	require.Equal(t, []string{"b/1", "b/2"}, keysOf(got))
	got, err = x.Index("label", o("z", "z", 1, "web"))
	require.NoError(t, err)
	require.Equal(t, []string{"a/1", "b/2"}, keysOf(got))
	got, err = x.Index("label", o("z", "z", 1))
	require.NoError(t, err)
	require.Empty(t, got)
	_, err = x.Index("label", o("z", "z", 1, "ERR"))
	require.ErrorIs(t, err, ErrIndexFunc)
	require.ErrorIs(t, err, errBoom)

	// Moving the last object out of a value frees it.
	require.NoError(t, x.Update(o("a", "1", 2, "db")))
	vals, _ = x.IndexValues("label")
	require.Equal(t, []string{"db", "web"}, vals)
	require.NoError(t, x.Update(o("b", "2", 2, "db")))
	vals, _ = x.IndexValues("label")
	require.Equal(t, []string{"db"}, vals)
	got, _ = x.ByIndex("label", "db")
	require.Equal(t, []string{"a/1", "b/1", "b/2"}, keysOf(got))
	require.Equal(t, 2, got[0].Ver, "the index holds the new object")
	require.NoError(t, x.Delete(o("a", "3", 1)))
	require.NoError(t, x.Delete(o("a", "1", 1)))
	vals, _ = x.IndexValues("ns")
	require.Equal(t, []string{"b"}, vals)

	// An unchanged value still serves the new object.
	require.NoError(t, x.Update(o("b", "1", 7, "db")))
	got, _ = x.ByIndex("ns", "b")
	require.Equal(t, 7, got[0].Ver)
}

func TestUnknownIndex(t *testing.T) {
	x := newTest(t, o("a", "1", 1))
	for name, r := range map[string]reader{"indexer": x, "snapshot": x.Snapshot()} {
		t.Run(name, func(t *testing.T) {
			_, err := r.ByIndex("nope", "a")
			require.ErrorIs(t, err, ErrUnknownIndex)
			require.EqualError(t, err, `indexer: unknown index "nope"`)
			_, err = r.IndexKeys("nope", "a")
			require.ErrorIs(t, err, ErrUnknownIndex)
			_, err = r.IndexLen("nope", "a")
			require.ErrorIs(t, err, ErrUnknownIndex)
			_, err = r.IndexValues("nope")
			require.ErrorIs(t, err, ErrUnknownIndex)
			_, err = r.Index("nope", o("a", "1", 1))
			require.ErrorIs(t, err, ErrUnknownIndex)
		})
	}
}

// TestIndexFuncFailureRejectsWrite: an index func that fails or panics on
// the new object rejects the write, names the index and the key, and
// leaves store and indexes as they were.
func TestIndexFuncFailureRejectsWrite(t *testing.T) {
	for _, c := range []struct {
		label, msg string
		isBoom     bool
	}{
		{"ERR", `indexer: index func failed: index "label", key "a/1": boom`, true},
		{"PANIC", `indexer: index func failed: index "label", key "a/1": panic: label index exploded`, false},
		{"PANICERR", `indexer: index func failed: index "label", key "a/1": panic: boom`, true},
	} {
		t.Run(c.label, func(t *testing.T) {
			x := newTest(t, o("a", "1", 1, "web"), o("a", "2", 1, "web"))
			snap := x.Snapshot()
			check := func(err error) {
				t.Helper()
				require.ErrorIs(t, err, ErrIndexFunc)
				require.Equal(t, c.isBoom, errors.Is(err, errBoom))
				require.Equal(t, 2, x.Len())
				got, _ := x.Get("a/1")
				require.Equal(t, 1, got.Ver)
				keys, _ := x.IndexKeys("label", "web")
				require.Equal(t, []string{"a/1", "a/2"}, keys)
				vals, _ := x.IndexValues("label")
				require.Equal(t, []string{"web"}, vals)
				keys, _ = x.IndexKeys("ns", "b")
				require.Empty(t, keys)
				require.Same(t, snap, x.Snapshot(), "a rejected write changes nothing")
			}
			err := x.Update(o("a", "1", 2, "db", c.label))
			require.EqualError(t, err, c.msg)
			check(err)
			check(x.Add(o("b", "1", 1, c.label)))
			check(x.Replace([]*obj{o("a", "1", 1, "web"), o("a", "2", 1, "web"), o("b", "1", 1, c.label)}, "9"))
			require.Equal(t, "", x.LastSyncResourceVersion())
		})
	}
}

// TestOldObjectIndexFuncFails: when the index func fails on the stored
// object (it is not deterministic, or the object was modified in place),
// updates and deletes still succeed and leave no stale entry.
func TestOldObjectIndexFuncFails(t *testing.T) {
	x := newTest(t, o("a", "1", 1, "web"), o("a", "2", 1, "web"))
	stored, _ := x.Get("a/1")
	stored.Labels = []string{"ERR"} // a caller bug: mutating a cached object
	require.NoError(t, x.Update(o("a", "1", 2, "db")))
	keys, _ := x.IndexKeys("label", "web")
	require.Equal(t, []string{"a/2"}, keys)
	keys, _ = x.IndexKeys("label", "db")
	require.Equal(t, []string{"a/1"}, keys)

	stored, _ = x.Get("a/2")
	stored.Labels = []string{"PANIC"}
	require.NoError(t, x.Delete(stored))
	vals, _ := x.IndexValues("label")
	require.Equal(t, []string{"db"}, vals)

	// Mutated so that the func computes other values than were indexed.
	stored, _ = x.Get("a/1")
	stored.Labels = []string{"cache"}
	stored.NS = "elsewhere" // its key no longer finds it: delete by the old key
	require.NoError(t, x.Delete(o("a", "1", 0)))
	for _, name := range []string{"ns", "label"} {
		vals, _ = x.IndexValues(name)
		require.Empty(t, vals, name)
	}
	require.Equal(t, 0, x.Len())
}

func TestReplace(t *testing.T) {
	x := newTest(t, o("a", "1", 1, "web"), o("a", "2", 1, "web"), o("b", "1", 1, "db"))
	snap := x.Snapshot()
	require.NoError(t, x.Replace([]*obj{
		o("c", "1", 1, "db"),
		o("a", "2", 2, "cache"),
		o("c", "1", 2, "web"), // a later duplicate wins
	}, "42"))
	require.Equal(t, "42", x.LastSyncResourceVersion())
	require.Equal(t, []string{"a/2", "c/1"}, x.ListKeys())
	got, _ := x.Get("c/1")
	require.Equal(t, 2, got.Ver)
	vals, _ := x.IndexValues("label")
	require.Equal(t, []string{"cache", "web"}, vals)
	vals, _ = x.IndexValues("ns")
	require.Equal(t, []string{"a", "c"}, vals)
	keys, _ := x.IndexKeys("label", "web")
	require.Equal(t, []string{"c/1"}, keys)
	// The snapshot taken before still sees the old contents.
	require.Equal(t, []string{"a/1", "a/2", "b/1"}, snap.ListKeys())
	keys, _ = snap.IndexKeys("label", "web")
	require.Equal(t, []string{"a/1", "a/2"}, keys)

	// Writes after a Replace work on the rebuilt structures.
	require.NoError(t, x.Add(o("a", "0", 1, "web")))
	keys, _ = x.IndexKeys("label", "web")
	require.Equal(t, []string{"a/0", "c/1"}, keys)

	require.NoError(t, x.Replace(nil, "43"))
	require.Equal(t, 0, x.Len())
	vals, _ = x.IndexValues("label")
	require.Empty(t, vals)
	require.Equal(t, "43", x.LastSyncResourceVersion())
}

func TestBookmark(t *testing.T) {
	x := newTest(t, o("a", "1", 1))
	s1 := x.Snapshot()
	x.Bookmark("7")
	require.Equal(t, "7", x.LastSyncResourceVersion())
	require.Equal(t, "", s1.LastSyncResourceVersion())
	s2 := x.Snapshot()
	require.Equal(t, "7", s2.LastSyncResourceVersion())
	x.Bookmark("7")
	require.Same(t, s2, x.Snapshot(), "an unchanged version keeps the snapshot")
	require.Equal(t, 1, x.Len())
}

func TestAddIndexers(t *testing.T) {
	x, err := New(objKey, Indexers[*obj]{"ns": byNS})
	require.NoError(t, err)
	require.NoError(t, x.Add(o("a", "1", 1, "web")))
	require.NoError(t, x.Add(o("b", "1", 1, "web", "db")))
	snap := x.Snapshot()

	require.NoError(t, x.AddIndexers(Indexers[*obj]{"label": byLabel}))
	keys, err := x.IndexKeys("label", "web")
	require.NoError(t, err)
	require.Equal(t, []string{"a/1", "b/1"}, keys)
	_, err = snap.IndexKeys("label", "web")
	require.ErrorIs(t, err, ErrUnknownIndex, "a snapshot keeps the indexes it had")
	// New writes maintain the added index.
	require.NoError(t, x.Update(o("a", "1", 2, "db")))
	keys, _ = x.IndexKeys("label", "db")
	require.Equal(t, []string{"a/1", "b/1"}, keys)

	// A collision adds nothing, not even the other, valid index.
	err = x.AddIndexers(Indexers[*obj]{"ns": byNS, "ver": func(v *obj) ([]string, error) { return []string{fmt.Sprint(v.Ver)}, nil }})
	require.ErrorIs(t, err, ErrIndexExists)
	require.ErrorContains(t, err, `"ns"`)
	_, err = x.IndexValues("ver")
	require.ErrorIs(t, err, ErrUnknownIndex)

	// An index func that fails on a stored object adds nothing.
	require.NoError(t, x.Add(o("c", "1", 1)))
	fussy := func(v *obj) ([]string, error) {
		if v.NS == "c" {
			return nil, errBoom
		}
		return nil, nil
	}
	err = x.AddIndexers(Indexers[*obj]{"fussy": fussy})
	require.ErrorIs(t, err, ErrIndexFunc)
	require.ErrorIs(t, err, errBoom)
	require.ErrorContains(t, err, `index "fussy", key "c/1"`)
	_, err = x.IndexValues("fussy")
	require.ErrorIs(t, err, ErrUnknownIndex)
	require.NoError(t, x.AddIndexers(nil))
}

// TestSnapshotIsolation: a snapshot keeps answering every read as of the
// moment it was taken, whatever the Indexer does afterwards.
func TestSnapshotIsolation(t *testing.T) {
	x := newTuned(t, smallTuning()) // many leaves: every write lands on shared ones
	for i := range 40 {
		require.NoError(t, x.Add(o(fmt.Sprint("ns", i%3), fmt.Sprintf("p%02d", i), 1, fmt.Sprint("l", i%5))))
	}
	x.Bookmark("1")
	snap := x.Snapshot()
	require.Same(t, snap, x.Snapshot(), "no write, same snapshot")
	wantKeys := x.ListKeys()
	wantNS, _ := x.IndexKeys("ns", "ns1")
	wantL, _ := x.IndexKeys("label", "l2")
	wantVals, _ := x.IndexValues("label")

	for i := range 40 {
		k := fmt.Sprintf("p%02d", i)
		switch i % 3 {
		case 0:
			require.NoError(t, x.Delete(o(fmt.Sprint("ns", i%3), k, 0)))
		case 1:
			require.NoError(t, x.Update(o(fmt.Sprint("ns", i%3), k, 2, "moved")))
		case 2:
			require.NoError(t, x.Add(o("new", k, 1, "l2")))
		}
	}
	x.Bookmark("2")
	require.NotSame(t, snap, x.Snapshot())

	require.Equal(t, wantKeys, snap.ListKeys())
	require.Equal(t, 40, snap.Len())
	require.Equal(t, "1", snap.LastSyncResourceVersion())
	keys, _ := snap.IndexKeys("ns", "ns1")
	require.Equal(t, wantNS, keys)
	keys, _ = snap.IndexKeys("label", "l2")
	require.Equal(t, wantL, keys)
	vals, _ := snap.IndexValues("label")
	require.Equal(t, wantVals, vals)
	for _, v := range snap.List() {
		require.Equal(t, 1, v.Ver)
	}
	got, ok := snap.Get("ns1/p01")
	require.True(t, ok)
	require.Equal(t, 1, got.Ver)
	objs, _ := snap.ByIndex("label", "l2")
	require.Equal(t, wantL, keysOf(objs))
	objs, _ = snap.Index("label", o("", "q", 0, "l2", "l3"))
	require.Len(t, objs, 16)
	var n int
	for k, v := range snap.Range("ns1/") {
		require.True(t, strings.HasPrefix(k, "ns1/"))
		require.Equal(t, 1, v.Ver)
		n++
	}
	require.Equal(t, len(wantNS), n)
	all := slices.Collect(func(yield func(string) bool) {
		for k := range snap.All() {
			if !yield(k) {
				return
			}
		}
	})
	require.Equal(t, wantKeys, all)

	// And the Indexer itself moved on.
	require.Equal(t, 40-14+13, x.Len())
	vals, _ = x.IndexValues("label")
	require.Equal(t, []string{"l0", "l1", "l2", "l3", "l4", "moved"}, vals)
	keys, _ = x.IndexKeys("ns", "ns0")
	require.Empty(t, keys)
}
