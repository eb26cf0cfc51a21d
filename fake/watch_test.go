package fake_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

const (
	added    = source.Added
	modified = source.Modified
	deleted  = source.Deleted
	bookmark = source.Bookmark
)

func TestWatchReplaysHistoryThenLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		must(t)(s.Create(ctx, &pod{Name: "a", Phase: "1"}))
		must(t)(s.Create(ctx, &pod{Name: "b", Phase: "1"}))
		must(t)(s.Update(ctx, &pod{Name: "a", Phase: "2"}, ""))
		must(t)(s.Delete(ctx, "b", ""))

		ch := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "1"})
		assert.Equal(t, []short{
			{added, "b", "1", "2"},
			{modified, "a", "2", "3"},
			{deleted, "b", "1", "4"}, // the last state
		}, recvN(t, ch, 3))
		synctest.Wait()
		requireIdle(t, ch)

		must(t)(s.Update(ctx, &pod{Name: "a", Phase: "3"}, ""))
		ev, _ := recv(t, ch)
		assert.Equal(t, short{modified, "a", "3", "5"}, shorten(ev))
		assert.Equal(t, "5", ev.Object.RV, "stamped")
	})
}

func TestWatchFromEmptyVersionIsNow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		must(t)(s.Create(ctx, &pod{Name: "a"}))
		ch := watch(t, ctx, s, source.WatchOptions{})
		synctest.Wait()
		requireIdle(t, ch)
		must(t)(s.Create(ctx, &pod{Name: "b"}))
		assert.Equal(t, []short{{added, "b", "", "2"}}, recvN(t, ch, 1))
	})
}

func TestWatchVersionErrors(t *testing.T) {
	ctx := t.Context()
	s := newSource(t, fake.Options[*pod]{HistorySize: 2})
	for i := range 4 {
		must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
	}
	for _, tc := range []struct {
		rv      string
		initial bool
		want    error
	}{
		{"1", false, source.ErrExpired},
		{"1", true, source.ErrExpired},
		{"5", false, source.ErrFutureVersion},
		{"5", true, source.ErrFutureVersion},
	} {
		_, err := s.Watch(ctx, source.WatchOptions{ResourceVersion: tc.rv, SendInitialEvents: tc.initial})
		require.ErrorIs(t, err, tc.want, "%+v", tc)
	}
	_, err := s.Watch(ctx, source.WatchOptions{ResourceVersion: "-3"})
	require.ErrorContains(t, err, "malformed resource version")
	done, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.Watch(done, source.WatchOptions{})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 0, s.Watchers())
}

func TestWatchResumesAtTheEdgeOfTheHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{HistorySize: 2})
		for i := range 4 {
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
		}
		ch := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "2"})
		assert.Equal(t, []short{{added, "2", "", "3"}, {added, "3", "", "4"}}, recvN(t, ch, 2))
	})
}

func TestCompactExpiresOnlyReplayingWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		for i := range 200 {
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
		}
		replaying := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "0"})
		live := watch(t, ctx, s, source.WatchOptions{})
		must(t)(s.Create(ctx, &pod{Name: "new"}))
		synctest.Wait() // replaying has read the first batch of history
		s.Compact()
		evs := requireClosed(t, replaying)
		require.Len(t, evs, 129, "the first batch, then the error")
		assert.Equal(t, short{added, "127", "", "128"}, shorten(evs[127]))
		assert.Equal(t, source.Error, evs[128].Type)
		assert.ErrorIs(t, evs[128].Err, source.ErrExpired)
		assert.ErrorContains(t, evs[128].Err, "the events after revision 128 were compacted")

		// The live watch had not even taken its event when the history
		// went; it loses nothing.
		assert.Equal(t, []short{{added, "new", "", "201"}}, recvN(t, live, 1))
	})
}

func TestReplayingWatchExpiresWhenTheWindowPassesIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{HistorySize: 150})
		for i := range 150 {
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
		}
		ch := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "0"})
		synctest.Wait()
		for i := range 129 { // the window now starts after 129
			must(t)(s.Update(ctx, &pod{Name: fmt.Sprint(i), Phase: "x"}, ""))
		}
		evs := requireClosed(t, ch)
		require.Len(t, evs, 129)
		assert.ErrorIs(t, evs[128].Err, source.ErrExpired)
	})
}

// A stuck reader (one that never reads) holds a write for the dispatch
// budget (100 ms), then its watch ends with an Error event wrapping
// source.ErrExpired after at most a buffer of events; a reader that
// keeps up is not affected, and the writes after it do not wait.
func TestStuckWatcherIsEndedAfterTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 3})
		stuck := watch(t, ctx, s, source.WatchOptions{})
		fast := watch(t, ctx, s, source.WatchOptions{})
		var fastEvents []short
		var waited []time.Duration
		for i := range 20 {
			t0 := time.Now()
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
			waited = append(waited, time.Since(t0))
			fastEvents = append(fastEvents, recvN(t, fast, 1)...)
		}
		assert.Equal(t, short{added, "19", "", "20"}, fastEvents[19])
		for i, d := range waited {
			want := time.Duration(0)
			if i == 3 { // the first write that finds the buffer full
				want = 100 * time.Millisecond
			}
			assert.Equal(t, want, d, "write %d", i)
		}
		synctest.Wait()
		assert.Equal(t, 1, s.Watchers(), "only the fast watcher is left")
		assert.Equal(t, 1, s.TerminatedWatchers())

		evs := requireClosed(t, stuck)
		require.NotEmpty(t, evs)
		last := evs[len(evs)-1]
		assert.Equal(t, source.Error, last.Type)
		assert.ErrorIs(t, last.Err, source.ErrExpired)
		assert.ErrorContains(t, last.Err, "fell 3 events behind")
		assert.LessOrEqual(t, len(evs)-1, 3, "at most a buffer's worth before the error")
	})
}

// With Options.CatchUp a reader stuck past the budget is not ended: it
// goes on from the history and, when it reads again, gets every write
// exactly once and in order, then the live ones; the writes after the
// first that found it full do not wait for it.
func TestCatchUpReplaysAStuckWatcherFromTheHistory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 3, CatchUp: true})
		stuck := watch(t, ctx, s, source.WatchOptions{})
		var waited time.Duration
		for i := range 500 {
			t0 := time.Now()
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
			waited += time.Since(t0)
		}
		assert.Equal(t, 100*time.Millisecond, waited, "only the write that found the buffer full waited")
		assert.Equal(t, 1, s.LaggedWatchers())
		assert.Equal(t, 0, s.TerminatedWatchers())
		evs := recvN(t, stuck, 500)
		for i, ev := range evs {
			require.Equal(t, short{added, fmt.Sprint(i), "", fmt.Sprint(i + 1)}, ev)
		}
		// Caught up, it is live again: a new write reaches it through
		// its queue without waiting.
		t0 := time.Now()
		must(t)(s.Create(ctx, &pod{Name: "live"}))
		assert.Zero(t, time.Since(t0))
		assert.Equal(t, []short{{added, "live", "", "501"}}, recvN(t, stuck, 1))
		assert.Equal(t, 1, s.LaggedWatchers())
		assert.Equal(t, 1, s.Watchers())
	})
}

// A watcher that fell behind ends with source.ErrExpired only when the
// history has forgotten a write it has yet to send — after what it had
// queued.
func TestCatchUpExpiresWhenTheHistoryPassesTheWatcher(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 3, CatchUp: true, HistorySize: 50})
		stuck := watch(t, ctx, s, source.WatchOptions{})
		for i := range 100 {
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
		}
		evs := requireClosed(t, stuck)
		require.Len(t, evs, 4, "the three queued events, then the error")
		for i := range 3 {
			assert.Equal(t, short{added, fmt.Sprint(i), "", fmt.Sprint(i + 1)}, shorten(evs[i]))
		}
		assert.Equal(t, source.Error, evs[3].Type)
		assert.ErrorIs(t, evs[3].Err, source.ErrExpired)
		assert.ErrorContains(t, evs[3].Err, "the events after revision 3 were compacted")
		assert.Equal(t, 1, s.LaggedWatchers())
	})
}

// A watcher that falls behind again after catching up goes on from the
// history again; bookmarks never run ahead of the events sent.
func TestCatchUpTwiceWithBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 2, CatchUp: true, BookmarkInterval: time.Second})
		ch := watch(t, ctx, s, source.WatchOptions{AllowBookmarks: true})
		rev := 0
		for round := range 2 {
			for range 20 {
				rev++
				must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(rev)}))
			}
			assert.Equal(t, round+1, s.LaggedWatchers())
			time.Sleep(2 * time.Second) // a bookmark is due
			got := recvN(t, ch, 21)
			for i, ev := range got[:20] {
				require.Equal(t, short{added, fmt.Sprint(rev - 19 + i), "", fmt.Sprint(rev - 19 + i)}, ev)
			}
			assert.Equal(t, short{bookmark, "", "", fmt.Sprint(rev)}, got[20])
		}
		assert.Equal(t, 0, s.TerminatedWatchers())
	})
}

// The budget is shared by the writes of a source and refills by 50 ms
// per second up to 100 ms: a writer never waits longer than what is
// left, and what it does not use is given back.
func TestWritersNeverWaitPastTheBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 1})
		n := 0
		// write fills a new stuck watcher's buffer, then times the write
		// that finds it full.
		write := func() time.Duration {
			t.Helper()
			watch(t, ctx, s, source.WatchOptions{})
			n++
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint("fill", n)}))
			t0 := time.Now()
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint("over", n)}))
			return time.Since(t0)
		}
		assert.Equal(t, 100*time.Millisecond, write(), "a new source has the whole budget")
		assert.Equal(t, 5*time.Millisecond, write(), "then what accrued meanwhile: 100 ms × 50 ms/s")
		time.Sleep(time.Second)
		assert.Equal(t, 50250*time.Microsecond, write(), "it refills by 50 ms a second (1.005 s since the last)")
		time.Sleep(10 * time.Second)
		assert.Equal(t, 100*time.Millisecond, write(), "up to 100 ms")
		synctest.Wait()
		assert.Equal(t, 4, s.TerminatedWatchers())
		assert.Equal(t, 0, s.Watchers())

		// A reader that comes back within the budget is not ended, and
		// the budget it did not use is given back.
		time.Sleep(10 * time.Second)
		ch := watch(t, ctx, s, source.WatchOptions{})
		must(t)(s.Create(ctx, &pod{Name: "a"}))
		go func() {
			time.Sleep(30 * time.Millisecond)
			for range ch {
			}
		}()
		t0 := time.Now()
		must(t)(s.Create(ctx, &pod{Name: "b"}))
		assert.Equal(t, 30*time.Millisecond, time.Since(t0))
		assert.Equal(t, 71500*time.Microsecond, write(), "100 ms less the 30 used, plus 30 ms × 50 ms/s")
		synctest.Wait()
		assert.Equal(t, 5, s.TerminatedWatchers())
	})
}

// Options.WatchBudget sets the budget's maximum; it refills by half of
// it per second.
func TestWatchBudgetOption(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 1, WatchBudget: time.Second})
		for i, want := range []time.Duration{time.Second, 500 * time.Millisecond} {
			watch(t, ctx, s, source.WatchOptions{})
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint("fill", i)}))
			t0 := time.Now()
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint("over", i)}))
			assert.Equal(t, want, time.Since(t0), "write %d", i)
		}
		synctest.Wait()
		assert.Equal(t, 2, s.TerminatedWatchers())
	})
}

// A burst of writes many times the buffer reaches, complete and in
// order, a reader that keeps reading, even one that pauses for less than
// the budget; the writer waits for it instead of ending it.
func TestBurstLargerThanTheBufferReachesAReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 4})
		ch := watch(t, ctx, s, source.WatchOptions{})
		const burst = 1000
		got := make(chan []short, 1)
		go func() {
			var evs []short
			for len(evs) < burst {
				if len(evs) == burst/2 {
					time.Sleep(80 * time.Millisecond)
				}
				ev, ok := <-ch
				if !ok {
					break
				}
				evs = append(evs, shorten(ev))
			}
			got <- evs
		}()
		t0 := time.Now()
		for i := range burst {
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
		}
		assert.Equal(t, 80*time.Millisecond, time.Since(t0), "the writer waited out the pause")
		evs := <-got
		require.Len(t, evs, burst)
		for i, ev := range evs {
			require.Equal(t, short{added, fmt.Sprint(i), "", fmt.Sprint(i + 1)}, ev)
		}
		assert.Equal(t, 0, s.TerminatedWatchers())
		assert.Equal(t, 1, s.Watchers())
	})
}

// A writer waiting for a full watcher stops waiting when the watch is
// cancelled: it is not ended for falling behind.
func TestCancelledWatchReleasesAWaitingWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 1})
		wctx, cancel := context.WithCancel(t.Context())
		watch(t, wctx, s, source.WatchOptions{})
		must(t)(s.Create(t.Context(), &pod{Name: "a"}))
		go func() {
			time.Sleep(10 * time.Millisecond)
			cancel()
		}()
		t0 := time.Now()
		must(t)(s.Create(t.Context(), &pod{Name: "b"}))
		assert.Equal(t, 10*time.Millisecond, time.Since(t0))
		synctest.Wait()
		assert.Equal(t, 0, s.TerminatedWatchers())
		assert.Equal(t, 0, s.Watchers())
	})
}

func TestWatchBufferCountsOnlyUnreadEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{WatchBuffer: 2})
		ch := watch(t, ctx, s, source.WatchOptions{})
		for i := range 10 { // a reader that keeps up never holds a writer
			t0 := time.Now()
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
			assert.Len(t, recvN(t, ch, 1), 1)
			assert.Equal(t, time.Duration(0), time.Since(t0))
			synctest.Wait() // the watcher uncounts what it handed over
		}
		t0 := time.Now()
		must(t)(s.Create(ctx, &pod{Name: "x"}))
		must(t)(s.Create(ctx, &pod{Name: "y"}))
		assert.Equal(t, time.Duration(0), time.Since(t0), "two unread events fit a buffer of two")
		synctest.Wait()
		assert.Equal(t, 1, s.Watchers())
		must(t)(s.Create(ctx, &pod{Name: "z"}))
		assert.Equal(t, 100*time.Millisecond, time.Since(t0), "the third waits out the budget")
		synctest.Wait()
		assert.Equal(t, 0, s.Watchers(), "and ends the watch")
	})
}

func TestWatchSendInitialEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		must(t)(s.Create(ctx, &pod{Name: "b", Phase: "1"}))
		must(t)(s.Create(ctx, &pod{Name: "a", Phase: "1"}))
		must(t)(s.Create(ctx, &pod{Name: "c", Phase: "1"}))
		must(t)(s.Delete(ctx, "c", ""))
		ch := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "1", SendInitialEvents: true})
		must(t)(s.Update(ctx, &pod{Name: "a", Phase: "2"}, "")) // after the snapshot

		assert.Equal(t, []short{
			{added, "a", "1", "4"},
			{added, "b", "1", "4"},
			{bookmark, "", "", "4"},
			{modified, "a", "2", "5"},
		}, recvN(t, ch, 4))
		synctest.Wait()
		requireIdle(t, ch)
	})
}

func TestWatchInitialEventsEndMarker(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		ch := watch(t, ctx, s, source.WatchOptions{SendInitialEvents: true})
		ev, _ := recv(t, ch)
		assert.Equal(t, event{Type: bookmark, ResourceVersion: "0", InitialEventsEnd: true}, ev, "empty source: just the marker")
	})
}

func TestPeriodicBookmarks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{BookmarkInterval: time.Minute})
		marks := watch(t, ctx, s, source.WatchOptions{AllowBookmarks: true})
		plain := watch(t, ctx, s, source.WatchOptions{})
		must(t)(s.Create(ctx, &pod{Name: "a"}))
		recvN(t, marks, 1)
		recvN(t, plain, 1)

		time.Sleep(59 * time.Second)
		synctest.Wait()
		requireIdle(t, marks)
		time.Sleep(time.Second)
		ev, _ := recv(t, marks)
		assert.Equal(t, event{Type: bookmark, ResourceVersion: "1"}, ev)

		s.MissNextEvents(1)
		must(t)(s.Create(ctx, &pod{Name: "missed"}))
		time.Sleep(time.Minute)
		ev, _ = recv(t, marks)
		assert.Equal(t, event{Type: bookmark, ResourceVersion: "2"}, ev, "a bookmark passes a missed write")

		time.Sleep(10 * time.Minute)
		synctest.Wait()
		requireIdle(t, plain)
	})
}

func TestCancelClosesEveryKindOfWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		s := newSource(t, fake.Options[*pod]{BookmarkInterval: time.Second})
		for i := range 5 {
			must(t)(s.Create(ctx, &pod{Name: fmt.Sprint(i)}))
		}
		chans := []<-chan event{
			watch(t, ctx, s, source.WatchOptions{}),                                           // idle
			watch(t, ctx, s, source.WatchOptions{ResourceVersion: "0"}),                       // replaying
			watch(t, ctx, s, source.WatchOptions{SendInitialEvents: true}),                    // initial events
			watch(t, ctx, s, source.WatchOptions{AllowBookmarks: true}),                       // bookmark timer
			watch(t, ctx, s, source.WatchOptions{ResourceVersion: "5"}),                       // live
			watch(t, ctx, s, source.WatchOptions{ResourceVersion: "0", AllowBookmarks: true}), // both
		}
		must(t)(s.Update(ctx, &pod{Name: "0", Phase: "x"}, ""))
		synctest.Wait()
		assert.Equal(t, len(chans), s.Watchers())
		cancel()
		for _, ch := range chans {
			requireClosed(t, ch)
		}
		synctest.Wait()
		assert.Equal(t, 0, s.Watchers())
		// Leaving the bubble checks that no goroutine is left.
	})
}

func TestCutWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		a := watch(t, ctx, s, source.WatchOptions{})
		b := watch(t, ctx, s, source.WatchOptions{})
		must(t)(s.Create(ctx, &pod{Name: "x"}))
		recvN(t, b, 1)
		synctest.Wait()
		assert.Equal(t, 2, s.CutWatches(nil))
		assert.Empty(t, requireClosed(t, a), "a clean cut drops the unread event and sends nothing")
		assert.Empty(t, requireClosed(t, b))

		c := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "1"})
		boom := fmt.Errorf("cut: %w", source.ErrExpired)
		assert.Equal(t, 1, s.CutWatches(boom))
		evs := requireClosed(t, c)
		require.Len(t, evs, 1)
		assert.Equal(t, event{Type: source.Error, Err: boom}, evs[0])
		assert.Equal(t, 0, s.CutWatches(nil))
	})
}

func TestMissNextEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		must(t)(s.Create(ctx, &pod{Name: "a", Phase: "1"}))
		ch := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "1"})
		s.MissNextEvents(2)
		must(t)(s.Update(ctx, &pod{Name: "a", Phase: "missed"}, ""))
		must(t)(s.Create(ctx, &pod{Name: "b", Phase: "missed"}))
		must(t)(s.Create(ctx, &pod{Name: "c", Phase: "seen"}))
		assert.Equal(t, []short{{added, "c", "seen", "4"}}, recvN(t, ch, 1))

		again := watch(t, ctx, s, source.WatchOptions{ResourceVersion: "0"})
		assert.Equal(t, []short{{added, "a", "1", "1"}, {added, "c", "seen", "4"}}, recvN(t, again, 2),
			"a re-watch does not find missed events either")

		l, err := s.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		assert.Equal(t, []string{"a=missed", "b=missed", "c=seen"}, names(l.Items), "a relist does")
		l, err = s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: "2"})
		require.NoError(t, err)
		assert.Equal(t, []string{"a=missed"}, names(l.Items), "and so does a list at a revision")
	})
}

func TestFailAndDelayInjection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newSource(t, fake.Options[*pod]{})
		mine := errors.New("mine")
		s.FailLists(2, mine)
		s.FailWatches(1, nil)
		for range 2 {
			_, err := s.List(ctx, source.ListOptions{})
			require.ErrorIs(t, err, mine)
		}
		_, err := s.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		_, err = s.Watch(ctx, source.WatchOptions{})
		require.ErrorContains(t, err, "fake: injected watch failure")
		wctx, stop := context.WithCancel(ctx)
		ch := watch(t, wctx, s, source.WatchOptions{})
		stop()
		requireClosed(t, ch)
		assert.Equal(t, 3, s.ListCalls())
		assert.Equal(t, 2, s.WatchCalls())

		s.DelayLists(5 * time.Second)
		s.DelayWatches(time.Second)
		start := time.Now()
		_, err = s.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		assert.Equal(t, 5*time.Second, time.Since(start))
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		_, err = s.List(short, source.ListOptions{})
		require.ErrorIs(t, err, context.DeadlineExceeded)

		start = time.Now()
		wctx, stop = context.WithCancel(ctx)
		ch = watch(t, wctx, s, source.WatchOptions{})
		assert.Equal(t, time.Second, time.Since(start))
		stop()
		requireClosed(t, ch)

		s.DelayLists(0)
		start = time.Now()
		_, err = s.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		assert.Zero(t, time.Since(start))
		assert.Equal(t, 6, s.ListCalls())
	})
}
