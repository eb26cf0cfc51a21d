package fake_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// podSize measures a pod by its payload, Phase.
func podSize(p *pod) int { return len(p.Phase) }

// sizedSource is a source whose pods weigh len(Phase) bytes.
func sizedSource(t *testing.T, historyBytes int64) *fake.Source[*pod] {
	return newSource(t, fake.Options[*pod]{HistoryBytes: historyBytes, Size: podSize})
}

// payload returns a Phase of n bytes that differs for each i.
func payload(i, n int) string {
	p := strconv.Itoa(i) + ":"
	return p + strings.Repeat("x", n-len(p))
}

// 60 updates of one large object keep the history's bytes under the
// bound, and forget the oldest writes rather than the object.
func TestHistoryBytesBounded(t *testing.T) {
	ctx := t.Context()
	const obj, bound = 2 << 10, 32 << 10 // the 2 MiB and 32 MiB, scaled down
	s := sizedSource(t, bound)
	first := must(t)(s.Create(ctx, &pod{Name: "cm", Phase: payload(0, obj)}))
	for i := 1; i <= 60; i++ {
		must(t)(s.Update(ctx, &pod{Name: "cm", Phase: payload(i, obj)}, ""))
		st := s.HistoryStats()
		require.LessOrEqual(t, st.Bytes, int64(bound), "after update %d", i)
	}
	st := s.HistoryStats()
	// Each kept update holds the version it replaced: 16 of 2 KiB fit.
	require.Equal(t, fake.HistoryStats{Writes: 16, Bytes: 16 * obj, Compacted: "45"}, st)
	cur, _, err := s.Get(ctx, "cm")
	require.NoError(t, err)
	require.Equal(t, payload(60, obj), cur.Phase)

	// A version older than the history has expired, for lists and watches.
	_, err = s.List(ctx, source.ListOptions{ResourceVersion: first, ResourceVersionMatch: source.Exact})
	require.ErrorIs(t, err, source.ErrExpired)
	_, err = s.Watch(ctx, source.WatchOptions{ResourceVersion: first})
	require.ErrorIs(t, err, source.ErrExpired)
	_, err = s.List(ctx, source.ListOptions{ResourceVersion: "44", ResourceVersionMatch: source.Exact})
	require.ErrorIs(t, err, source.ErrExpired)

	// The oldest kept version can still be listed exactly: the history
	// kept the state it replaced.
	l, err := s.List(ctx, source.ListOptions{ResourceVersion: st.Compacted, ResourceVersionMatch: source.Exact})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	require.Equal(t, payload(44, obj), l.Items[0].Phase)
}

// A watch from the oldest kept version replays exactly the kept writes.
func TestHistoryBytesWatchReplay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		s := sizedSource(t, 100)
		must(t)(s.Create(ctx, &pod{Name: "a", Phase: payload(0, 40)}))
		for i := 1; i <= 5; i++ {
			must(t)(s.Update(ctx, &pod{Name: "a", Phase: payload(i, 40)}, ""))
		}
		st := s.HistoryStats()
		require.Equal(t, fake.HistoryStats{Writes: 2, Bytes: 80, Compacted: "4"}, st)
		ch := watch(t, ctx, s, source.WatchOptions{ResourceVersion: st.Compacted})
		got := recvN(t, ch, 2)
		require.Equal(t, []short{
			{source.Modified, "a", payload(4, 40), "5"},
			{source.Modified, "a", payload(5, 40), "6"},
		}, got)
		synctest.Wait()
		requireIdle(t, ch)
	})
}

// The history counts the versions only it keeps alive: the version an
// update replaced, the last state of a deleted object; never a current
// object.
func TestHistoryBytesAccounting(t *testing.T) {
	ctx := t.Context()
	s := sizedSource(t, 1000)
	bytes := func() int64 { return s.HistoryStats().Bytes }
	must(t)(s.Create(ctx, &pod{Name: "a", Phase: payload(0, 10)}))
	require.EqualValues(t, 0, bytes(), "a new object is current")
	must(t)(s.Update(ctx, &pod{Name: "a", Phase: payload(1, 20)}, ""))
	require.EqualValues(t, 10, bytes(), "the replaced version")
	must(t)(s.Create(ctx, &pod{Name: "b", Phase: payload(2, 300)}))
	require.EqualValues(t, 10, bytes())
	must(t)(s.Delete(ctx, "a", ""))
	require.EqualValues(t, 30, bytes(), "the deleted object's last state")
	must(t)(s.Update(ctx, &pod{Name: "b", Phase: payload(3, 5)}, ""))
	require.EqualValues(t, 330, bytes())
	// An update replacing a version bigger than the whole bound forgets
	// everything, but not the object.
	must(t)(s.Update(ctx, &pod{Name: "b", Phase: payload(4, 2000)}, ""))
	must(t)(s.Update(ctx, &pod{Name: "b", Phase: payload(5, 10)}, ""))
	require.Equal(t, fake.HistoryStats{Writes: 0, Bytes: 0, Compacted: "7"}, s.HistoryStats())
	got, rv, err := s.Get(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, "7", rv)
	require.Equal(t, payload(5, 10), got.Phase)
	l, err := s.List(ctx, source.ListOptions{ResourceVersion: "7", ResourceVersionMatch: source.Exact})
	require.NoError(t, err)
	require.Len(t, l.Items, 1)
	// Compact forgets the bytes with the writes.
	must(t)(s.Update(ctx, &pod{Name: "b", Phase: payload(6, 10)}, ""))
	require.EqualValues(t, 10, bytes())
	s.Compact()
	require.EqualValues(t, 0, bytes())
}

// Without Size the history is bounded by count alone and reports no
// bytes.
func TestHistoryBytesWithoutSize(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{HistoryBytes: 1})
	for i := range 5 {
		must(t)(s.Create(ctx, &pod{Name: strconv.Itoa(i), Phase: payload(i, 100)}))
		must(t)(s.Delete(ctx, strconv.Itoa(i), ""))
	}
	require.Equal(t, fake.HistoryStats{Writes: 10, Bytes: 0, Compacted: "0"}, s.HistoryStats())
}

func TestMaxObjectSize(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{Size: podSize, MaxObjectSize: 10})
	_, err := s.Create(ctx, &pod{Name: "a", Phase: payload(0, 11)})
	require.ErrorIs(t, err, fake.ErrTooLarge)
	require.Equal(t, "0", s.ResourceVersion(), "nothing written")
	must(t)(s.Create(ctx, &pod{Name: "a", Phase: payload(0, 10)}))
	_, err = s.Update(ctx, &pod{Name: "a", Phase: payload(1, 11)}, "")
	require.ErrorIs(t, err, fake.ErrTooLarge)
	got, _, err := s.Get(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, payload(0, 10), got.Phase)
	require.Equal(t, "1", s.ResourceVersion())
}

func TestHistoryOptionsRejected(t *testing.T) {
	for name, opts := range map[string]fake.Options[*pod]{
		"negative HistoryBytes":   {HistoryBytes: -1},
		"negative MaxObjectSize":  {MaxObjectSize: -1, Size: podSize},
		"MaxObjectSize sans Size": {MaxObjectSize: 1},
	} {
		_, err := fake.NewSource(podKey, opts)
		require.Error(t, err, name)
	}
}

// A panicking Size function fails the write, as a panicking key function.
func TestSizePanics(t *testing.T) {
	s := newSource(t, fake.Options[*pod]{Size: func(*pod) int { panic("boom") }})
	_, err := s.Create(t.Context(), &pod{Name: "a"})
	require.ErrorContains(t, err, "size function panicked")
}
