package fake_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

func TestNewSourceValidates(t *testing.T) {
	_, err := fake.NewSource[*pod](nil, fake.Options[*pod]{})
	require.ErrorContains(t, err, "fake: NewSource: keyFunc is nil")
	for _, opts := range []fake.Options[*pod]{{HistorySize: -1}, {WatchBuffer: -1}, {WatchBudget: -1}, {BookmarkInterval: -1}} {
		_, err := fake.NewSource(podKey, opts)
		require.ErrorContains(t, err, "is negative", "%+v", opts)
	}
}

func TestWritesVersionsAndPreconditions(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{})
	assert.Equal(t, "0", s.ResourceVersion())

	a := &pod{Name: "a", Phase: "Pending"}
	assert.Equal(t, "1", must(t)(s.Create(ctx, a)))
	assert.Equal(t, "1", a.RV, "stamped into the stored object, which is the caller's")
	got, rv, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Same(t, a, got, "without Options.Copy the object is stored as given")
	assert.Equal(t, "1", rv)

	_, err = s.Create(ctx, &pod{Name: "a"})
	require.ErrorIs(t, err, source.ErrAlreadyExists)
	_, err = s.Update(ctx, &pod{Name: "b"}, "")
	require.ErrorIs(t, err, source.ErrNotFound)
	_, err = s.Delete(ctx, "b", "1")
	require.ErrorIs(t, err, source.ErrNotFound)
	_, _, err = s.Get(ctx, "b")
	require.ErrorIs(t, err, source.ErrNotFound)
	assert.Equal(t, "1", s.ResourceVersion(), "failed writes take no revision")

	_, err = s.Update(ctx, &pod{Name: "a", Phase: "x"}, "0")
	require.ErrorIs(t, err, source.ErrConflict)
	_, err = s.Update(ctx, &pod{Name: "a", Phase: "x"}, "seven")
	require.ErrorContains(t, err, "malformed resource version")
	require.NotErrorIs(t, err, source.ErrConflict)
	assert.Equal(t, "2", must(t)(s.Update(ctx, &pod{Name: "a", Phase: "Running"}, "1")))
	assert.Equal(t, "3", must(t)(s.Update(ctx, &pod{Name: "a", Phase: "Done"}, "")))
	assert.Equal(t, "Pending", a.Phase, "an update replaces the object, it does not change the old one")

	_, err = s.Delete(ctx, "a", "2")
	require.ErrorIs(t, err, source.ErrConflict)
	assert.Equal(t, "4", must(t)(s.Delete(ctx, "a", "3")))
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, "5", must(t)(s.Create(ctx, &pod{Name: "a"})), "a deleted key can be created again")
}

func TestWritesRejectBadInput(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{})
	_, err := s.Create(ctx, &pod{})
	require.ErrorContains(t, err, "empty key")
	_, err = s.Create(ctx, nil) // podKey dereferences nil
	require.ErrorContains(t, err, "fake: create: key or copy function panicked")
	_, err = s.Update(ctx, nil, "")
	require.ErrorContains(t, err, "panicked")
	_, err = s.Delete(ctx, "", "")
	require.ErrorContains(t, err, "empty key")

	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Create(done, &pod{Name: "a"})
	require.ErrorIs(t, err, context.Canceled)
	_, _, err = s.Get(done, "a")
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Delete(done, "a", "")
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "0", s.ResourceVersion())
}

// panicky panics when its version is stamped.
type panicky struct{ name string }

func (*panicky) SetResourceVersion(string) { panic("no") }

func TestStampPanicIsAnError(t *testing.T) {
	s, err := fake.NewSource(func(p *panicky) string { return p.name }, fake.Options[*panicky]{})
	require.NoError(t, err)
	_, err = s.Create(t.Context(), &panicky{name: "a"})
	require.ErrorContains(t, err, "SetResourceVersion panicked")
	assert.Equal(t, 0, s.Len())
	assert.Equal(t, "0", s.ResourceVersion())
}

func TestCopyOption(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{Copy: func(p *pod) *pod { c := *p; return &c }})
	a := &pod{Name: "a", Phase: "Pending"}
	must(t)(s.Create(ctx, a))
	assert.Empty(t, a.RV, "the stored copy is stamped, not the caller's object")
	a.Phase = "changed by the caller"

	got, rv, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, &pod{Name: "a", Phase: "Pending", RV: "1"}, got)
	got.Phase = "changed by a reader"
	got2, _, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, "Pending", got2.Phase)

	got.Phase = "Running" // read-modify-write
	must(t)(s.Update(ctx, got, rv))
	got3, _, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, &pod{Name: "a", Phase: "Running", RV: "2"}, got3)
}

func TestItemsIsASnapshot(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{})
	for _, n := range []string{"c", "a", "b"} {
		must(t)(s.Create(ctx, &pod{Name: n}))
	}
	items := s.Items()
	must(t)(s.Delete(ctx, "a", ""))
	must(t)(s.Create(ctx, &pod{Name: "d"}))
	keys := slices.Collect(maps.Keys(maps.Collect(items)))
	slices.Sort(keys)
	assert.Equal(t, []string{"a", "b", "c"}, keys)
	var order []string
	for k := range s.Items() {
		order = append(order, k)
	}
	assert.Equal(t, []string{"b", "c", "d"}, order, "key order")
	for range items { // stopping early works
		break
	}
	assert.Equal(t, 3, s.Len())
}

func TestCompareResourceVersions(t *testing.T) {
	s := newSource(t, fake.Options[*pod]{})
	for _, tc := range []struct {
		a, b string
		want int
	}{{"1", "2", -1}, {"10", "9", 1}, {"7", "7", 0}, {"0", "0", 0}} {
		got, err := s.CompareResourceVersions(tc.a, tc.b)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s vs %s", tc.a, tc.b)
	}
	for _, bad := range []string{"", "-1", "x", "1.5", "99999999999999999999"} {
		_, err := s.CompareResourceVersions(bad, "1")
		require.ErrorContains(t, err, "source: malformed resource version", bad)
		_, err = s.CompareResourceVersions("1", bad)
		require.Error(t, err, bad)
	}
}

// Share is given the stored object and the copy about to replace it; a
// panic of it fails the update, which writes nothing.
func TestShareOption(t *testing.T) {
	ctx := t.Context()
	type call struct{ prev, next *pod }
	var calls []call
	boom := false
	s := newSource(t, fake.Options[*pod]{
		Copy: func(p *pod) *pod { c := *p; return &c },
		Share: func(prev, next *pod) {
			if boom {
				panic("boom")
			}
			calls = append(calls, call{prev, next})
			if prev.Phase == next.Phase {
				next.Phase = prev.Phase + " (shared)"
			}
		},
	})
	must(t)(s.Create(ctx, &pod{Name: "a", Phase: "Pending"}))
	assert.Empty(t, calls, "a create shares nothing")
	stored := maps.Collect(s.Items())["a"]

	mine := &pod{Name: "a", Phase: "Pending"}
	rv := must(t)(s.Update(ctx, mine, ""))
	require.Len(t, calls, 1)
	assert.Same(t, stored, calls[0].prev, "prev is the stored object")
	assert.NotSame(t, mine, calls[0].next, "next is the copy, not the caller's object")
	got, _, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, &pod{Name: "a", Phase: "Pending (shared)", RV: rv}, got, "what Share set is stored")
	assert.Equal(t, "Pending", stored.Phase, "prev is not changed")

	_, err = s.Update(ctx, &pod{Name: "missing"}, "")
	require.ErrorIs(t, err, source.ErrNotFound)
	assert.Len(t, calls, 1, "nothing to share with a missing key")

	boom = true
	_, err = s.Update(ctx, &pod{Name: "a", Phase: "Running"}, "")
	require.ErrorContains(t, err, "share function panicked")
	assert.Equal(t, rv, s.ResourceVersion(), "nothing written")
}

// ShareCreated is given the copy a create is about to store, never on an
// update; what it sets is stored, and a panic of it fails the create,
// which writes nothing.
func TestShareCreatedOption(t *testing.T) {
	ctx := t.Context()
	var got []*pod
	boom := false
	s := newSource(t, fake.Options[*pod]{
		Copy: func(p *pod) *pod { c := *p; return &c },
		ShareCreated: func(next *pod) {
			if boom {
				panic("boom")
			}
			got = append(got, next)
			next.Phase += " (shared)"
		},
	})
	mine := &pod{Name: "a", Phase: "Pending"}
	rv := must(t)(s.Create(ctx, mine))
	require.Len(t, got, 1)
	assert.NotSame(t, mine, got[0], "next is the copy, not the caller's object")
	assert.Equal(t, "Pending", mine.Phase, "the caller's object is not changed")
	stored := maps.Collect(s.Items())["a"]
	assert.Same(t, got[0], stored, "the object given is the one stored")
	assert.Equal(t, &pod{Name: "a", Phase: "Pending (shared)", RV: rv}, stored)

	rv = must(t)(s.Update(ctx, &pod{Name: "a", Phase: "Running"}, ""))
	assert.Len(t, got, 1, "an update does not call it")

	boom = true
	_, err := s.Create(ctx, &pod{Name: "b"})
	require.ErrorContains(t, err, "share function panicked")
	assert.Equal(t, rv, s.ResourceVersion(), "nothing written")
	_, _, err = s.Get(ctx, "b")
	require.ErrorIs(t, err, source.ErrNotFound)
}
