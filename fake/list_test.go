package fake_test

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// names lists the keys and phases of items, in order.
func names(items []*pod) []string {
	out := make([]string, len(items))
	for i, p := range items {
		out[i] = p.Name + "=" + p.Phase
	}
	return out
}

// listAll lists at opts, following continue tokens, and checks that every
// page is at the first page's revision.
func listAll(t testing.TB, s *fake.Source[*pod], opts source.ListOptions) ([]*pod, string) {
	t.Helper()
	l, err := s.List(t.Context(), opts)
	require.NoError(t, err)
	items, rv := l.Items, l.ResourceVersion
	for l.Continue != "" {
		require.LessOrEqual(t, int64(len(l.Items)), opts.Limit)
		l, err = s.List(t.Context(), source.ListOptions{Limit: opts.Limit, Continue: l.Continue})
		require.NoError(t, err)
		require.Equal(t, rv, l.ResourceVersion)
		items = append(items, l.Items...)
	}
	return items, rv
}

func TestListAtEveryRevision(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{})
	want := [][]string{{}} // want[rev]
	step := func(rv string, err error) {
		t.Helper()
		must(t)(rv, err)
		var now []string
		for _, p := range s.Items() {
			now = append(now, p.Name+"="+p.Phase)
		}
		require.Equal(t, strconv.Itoa(len(want)), rv)
		want = append(want, now)
	}
	step(s.Create(ctx, &pod{Name: "b", Phase: "1"}))
	step(s.Create(ctx, &pod{Name: "d", Phase: "1"}))
	step(s.Create(ctx, &pod{Name: "a", Phase: "1"}))
	step(s.Update(ctx, &pod{Name: "b", Phase: "2"}, ""))
	step(s.Delete(ctx, "a", ""))
	step(s.Create(ctx, &pod{Name: "c", Phase: "1"}))
	step(s.Delete(ctx, "d", ""))
	step(s.Update(ctx, &pod{Name: "b", Phase: "3"}, ""))
	step(s.Create(ctx, &pod{Name: "a", Phase: "2"}))
	step(s.Create(ctx, &pod{Name: "e", Phase: "1"}))

	for rev := range want {
		for _, limit := range []int64{0, 1, 2, 3, 100} {
			items, rv := listAll(t, s, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: strconv.Itoa(rev), Limit: limit})
			assert.Equal(t, strconv.Itoa(rev), rv)
			assert.Equal(t, want[rev], names(items), "rev %d limit %d", rev, limit)
		}
	}
	items, rv := listAll(t, s, source.ListOptions{})
	assert.Equal(t, "10", rv)
	assert.Equal(t, want[10], names(items))
}

func TestListPaginationPinsRevision(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{})
	for _, n := range []string{"a", "c", "e", "g"} {
		must(t)(s.Create(ctx, &pod{Name: n, Phase: "1"}))
	}
	p1, err := s.List(ctx, source.ListOptions{Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, []string{"a=1", "c=1"}, names(p1.Items))
	require.NotEmpty(t, p1.Continue)

	must(t)(s.Create(ctx, &pod{Name: "d", Phase: "new"}))
	must(t)(s.Create(ctx, &pod{Name: "b", Phase: "new"}))
	must(t)(s.Delete(ctx, "e", ""))
	must(t)(s.Update(ctx, &pod{Name: "g", Phase: "2"}, ""))

	p2, err := s.List(ctx, source.ListOptions{Limit: 2, Continue: p1.Continue, ResourceVersion: "99"})
	require.NoError(t, err, "the resourceVersion is ignored with a continue token")
	assert.Equal(t, "4", p2.ResourceVersion)
	assert.Equal(t, []string{"e=1", "g=1"}, names(p2.Items))
	assert.Empty(t, p2.Continue, "no more items: no token")

	l, err := s.List(ctx, source.ListOptions{Limit: 5})
	require.NoError(t, err)
	assert.Equal(t, []string{"a=1", "b=new", "c=1", "d=new", "g=2"}, names(l.Items))
	assert.Empty(t, l.Continue, "limit equal to the count: no token")
}

func TestListExpiryAndErrors(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{HistorySize: 3})
	for i := range 5 {
		must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
	}
	// History holds writes 3, 4, 5: the state at 2 is the oldest left.
	_, err := s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "1"})
	require.ErrorIs(t, err, source.ErrExpired)
	l, err := s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "2"})
	require.NoError(t, err)
	assert.Equal(t, []string{"0=", "1="}, names(l.Items))

	_, err = s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "6"})
	require.ErrorIs(t, err, source.ErrFutureVersion)
	_, err = s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "x"})
	require.ErrorContains(t, err, "fake: list: source: malformed resource version")
	_, err = s.List(ctx, source.ListOptions{Limit: -1})
	require.ErrorContains(t, err, "negative limit")
	for _, tok := range []string{"!!", base64.RawURLEncoding.EncodeToString([]byte("x/a")), base64.RawURLEncoding.EncodeToString([]byte("3/"))} {
		_, err = s.List(ctx, source.ListOptions{Continue: tok})
		require.ErrorContains(t, err, "malformed continue token", tok)
		require.NotErrorIs(t, err, source.ErrExpired)
	}

	s.Compact()
	_, err = s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "4"})
	require.ErrorIs(t, err, source.ErrExpired)
	l, err = s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "5"})
	require.NoError(t, err, "the current revision survives compaction")
	assert.Len(t, l.Items, 5)
}

func TestListContinueTokenExpires(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{HistorySize: 2})
	for i := range 3 {
		must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
	}
	p1, err := s.List(ctx, source.ListOptions{Limit: 1})
	require.NoError(t, err)
	must(t)(s.Update(ctx, &pod{Name: "0", Phase: "x"}, ""))
	must(t)(s.Update(ctx, &pod{Name: "0", Phase: "y"}, ""))
	_, err = s.List(ctx, source.ListOptions{Limit: 1, Continue: p1.Continue})
	require.NoError(t, err, "revision 3 is the oldest the history can rebuild")
	must(t)(s.Update(ctx, &pod{Name: "0", Phase: "z"}, ""))
	_, err = s.List(ctx, source.ListOptions{Limit: 1, Continue: p1.Continue})
	require.ErrorIs(t, err, source.ErrExpired, "the window moved past the token's revision")

	p1, err = s.List(ctx, source.ListOptions{Limit: 1})
	require.NoError(t, err)
	must(t)(s.Update(ctx, &pod{Name: "0", Phase: "w"}, ""))
	s.Compact()
	_, err = s.List(ctx, source.ListOptions{Limit: 1, Continue: p1.Continue})
	require.ErrorIs(t, err, source.ErrExpired, "compacted")
}

// A continue token the source did not make is the caller's mistake
// (source.ErrBadContinue, a 400 through the API server), not an expiry.
func TestBadContinueToken(t *testing.T) {
	src, err := fake.NewSource(func(s string) string { return s }, fake.Options[string]{})
	require.NoError(t, err)
	for _, tok := range []string{"garbage", base64.RawURLEncoding.EncodeToString([]byte("x/y")), "!!"} {
		_, err := src.List(t.Context(), source.ListOptions{Continue: tok, Limit: 1})
		require.ErrorIs(t, err, source.ErrBadContinue, tok)
		require.NotErrorIs(t, err, source.ErrExpired, tok)
	}
}
