package sourcetest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

func testWatchDeliversEveryWrite(h *harness) {
	h.mustCreate("seed", "v0")
	start := h.list(source.ListOptions{}).ResourceVersion
	const watchers = 3
	var chans []<-chan source.Event[*Object]
	for range watchers {
		chans = append(chans, h.watch(h.ctx, source.WatchOptions{ResourceVersion: start}))
	}

	// Concurrent writers, each on its own keys.
	const writers, perWriter = 4, 10
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range perWriter {
				key := fmt.Sprintf("w%d-%d", w, i)
				steps := []func() error{
					func() error { _, err := h.create(key, "v0"); return err },
					func() error { _, err := h.update(key, "v1", ""); return err },
				}
				if i%2 == 0 {
					steps = append(steps, func() error { _, err := h.remove(key, "v1", ""); return err })
				}
				for _, step := range steps {
					if err := step(); err != nil {
						h.t.Errorf("writer %d, key %s: %v", w, key, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if h.t.Failed() {
		return
	}
	want := h.after(start)
	for i, ch := range chans {
		h.t.Logf("watcher %d: checking %d events", i, len(want))
		h.expect(ch, want, false, start)
	}
	// Nothing extra or duplicated is pending: the next change is a new write.
	sentinel := h.mustCreate("sentinel", "s")
	for _, ch := range chans {
		h.expect(ch, []write{{sentinel, source.Added, "sentinel", "s"}}, false, "")
	}
}

func testWatchResumes(h *harness) {
	h.mustCreate("a", "0")
	h.mustCreate("b", "0")
	for i := range 4 {
		h.mustUpdate("a", fmt.Sprint(i+1))
		h.mustCreate(fmt.Sprintf("c%d", i), "0")
		h.mustDelete(fmt.Sprintf("c%d", i), "0")
	}
	resumeFrom := h.sorted()
	for i, w := range resumeFrom {
		ctx, cancel := context.WithCancel(h.ctx)
		ch := h.watch(ctx, source.WatchOptions{ResourceVersion: w.rv})
		h.expect(ch, h.after(w.rv), false, w.rv)
		key := fmt.Sprintf("sentinel%d", i)
		rv := h.mustCreate(key, "s")
		h.expect(ch, []write{{rv, source.Added, key, "s"}}, false, "")
		cancel()
		h.drain(ch)
	}
}

func testWatchFromNow(h *harness) {
	h.mustCreate("before", "v")
	h.mustUpdate("before", "v2")
	ch := h.watch(h.ctx, source.WatchOptions{})
	rv := h.mustCreate("after", "v")
	h.expect(ch, []write{{rv, source.Added, "after", "v"}}, false, "")
}

func testWatchList(h *harness) {
	h.mustCreate("a", "0")
	h.mustCreate("b", "0")
	h.mustCreate("c", "0")
	h.mustUpdate("b", "1")
	h.mustDelete("c", "0")
	opts := source.WatchOptions{SendInitialEvents: true, AllowBookmarks: true}
	if !h.caps.WatchList {
		h.t.Log("source declares no watch-list support; checking that it refuses SendInitialEvents")
		if err := h.watchErr(opts); !errors.Is(err, source.ErrUnsupported) {
			h.t.Fatalf("Watch with SendInitialEvents: got %v, want ErrUnsupported", err)
		}
		return
	}
	ch := h.watch(h.ctx, opts)
	var initial []source.Event[*Object]
	var end source.Event[*Object]
	deadline := time.Now().Add(h.caps.Timeout)
	for end.Type == 0 {
		ev, ok := h.nextBy(ch, deadline)
		switch {
		case !ok:
			h.t.Fatal("watch closed before the end of the initial events")
		case ev.Type == source.Added:
			initial = append(initial, ev)
		case ev.Type == source.Bookmark && ev.InitialEventsEnd:
			end = ev
		case ev.Type == source.Bookmark:
		default:
			h.t.Fatalf("%v event among the initial events (err %v)", ev.Type, ev.Err)
		}
	}
	var items []*Object
	for _, ev := range initial {
		if ev.ResourceVersion == "" || h.cmp(ev.ResourceVersion, end.ResourceVersion) > 0 {
			h.t.Errorf("initial event at %q, after the end marker at %s", ev.ResourceVersion, end.ResourceVersion)
		}
		items = append(items, ev.Object)
	}
	h.checkItems("initial events", items, end.ResourceVersion)
	rv := h.mustCreate("d", "0")
	h.expect(ch, []write{{rv, source.Added, "d", "0"}}, true, end.ResourceVersion)
	if h.cmp(rv, end.ResourceVersion) <= 0 {
		h.t.Errorf("live event at %s, not after the end marker at %s", rv, end.ResourceVersion)
	}
}

func testBookmarks(h *harness) {
	if !h.caps.Bookmarks {
		h.t.Log("source declares no progress bookmarks; WatchDeliversEveryWrite checks that none arrive unasked")
		return
	}
	start := h.mustCreate("a", "0")
	ch := h.watch(h.ctx, source.WatchOptions{ResourceVersion: start, AllowBookmarks: true})
	rv := h.mustUpdate("a", "1")
	h.expect(ch, []write{{rv, source.Modified, "a", "1"}}, true, start)
	var mark source.Event[*Object]
	for mark.Type != source.Bookmark {
		ev, ok := h.next(ch)
		if !ok || ev.Type != source.Bookmark {
			h.t.Fatalf("idle watch: got %v event (open %v), want a Bookmark", ev.Type, ok)
		}
		mark = ev
	}
	if h.cmp(mark.ResourceVersion, rv) < 0 {
		h.t.Fatalf("Bookmark at %s goes back before the last event at %s", mark.ResourceVersion, rv)
	}
	if mark.InitialEventsEnd {
		h.t.Error("progress Bookmark marked as the end of initial events")
	}
	if mark.Object != nil {
		h.t.Errorf("Bookmark carries an object: %+v", mark.Object)
	}
	rv2 := h.mustUpdate("a", "2")
	h.expect(ch, []write{{rv2, source.Modified, "a", "2"}}, true, mark.ResourceVersion)
}

func testCancelClosesWatch(h *harness) {
	// A watch whose context is already done fails or closes at once.
	done, cancel := context.WithCancel(h.ctx)
	cancel()
	if ch, err := h.src.Watch(done, source.WatchOptions{}); err == nil {
		if ch == nil {
			h.t.Fatal("Watch with a done context returned a nil channel and no error")
		}
		h.drain(ch)
	}

	// Warm up, so that goroutines a client starts once are counted in
	// the baseline.
	warm, cancelWarm := context.WithCancel(h.ctx)
	h.drainAfterCancel(h.watch(warm, source.WatchOptions{}), cancelWarm)
	base := runtime.NumGoroutine()

	const n = 10
	var (
		chans   []<-chan source.Event[*Object]
		cancels []context.CancelFunc
	)
	for range n {
		ctx, cancel := context.WithCancel(h.ctx)
		chans = append(chans, h.watch(ctx, source.WatchOptions{}))
		cancels = append(cancels, cancel)
	}
	rv := h.mustCreate("a", "0")
	for _, ch := range chans {
		h.expect(ch, []write{{rv, source.Added, "a", "0"}}, false, "")
	}
	h.mustUpdate("a", "1") // pending, unread, on every watch
	for i, ch := range chans {
		h.drainAfterCancel(ch, cancels[i])
	}
	h.waitGoroutines(base)
}

func (h *harness) drainAfterCancel(ch <-chan source.Event[*Object], cancel context.CancelFunc) {
	h.t.Helper()
	cancel()
	h.drain(ch)
}

// waitGoroutines waits until at most base (+2 for runtime noise)
// goroutines are left.
func (h *harness) waitGoroutines(base int) {
	h.t.Helper()
	deadline := time.Now().Add(h.caps.Timeout)
	for {
		n := runtime.NumGoroutine()
		if n <= base+2 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			buf = buf[:runtime.Stack(buf, true)]
			h.t.Fatalf("%d goroutines %v after the watches were cancelled, %d before:\n%s", n, h.caps.Timeout, base, buf)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
