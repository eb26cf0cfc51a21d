package sourcetest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// Run runs the conformance suite as subtests of t, each against a fresh,
// empty source from newSource (which may register cleanups on the t it
// is given).
func Run(t *testing.T, newSource func(t *testing.T) Source, caps Capabilities) {
	t.Helper()
	if caps.Timeout <= 0 {
		caps.Timeout = 5 * time.Second
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			src := newSource(t)
			if src == nil {
				t.Fatal("sourcetest: newSource returned nil")
			}
			ctx, cancel := context.WithCancel(t.Context())
			t.Cleanup(cancel)
			c.fn(&harness{t: t, ctx: ctx, src: src, caps: caps})
		})
	}
}

var checks = []struct {
	name string
	fn   func(h *harness)
}{
	{"StartsEmpty", testStartsEmpty},
	{"Writes", testWrites},
	{"VersionOrder", testVersionOrder},
	{"WatchDeliversEveryWrite", testWatchDeliversEveryWrite},
	{"WatchResumesFromAnyVersion", testWatchResumes},
	{"WatchFromEmptyVersionIsNow", testWatchFromNow},
	{"ListIsConsistent", testListConsistent},
	{"PaginationSeesOneSnapshot", testPagination},
	{"ExpiredContinue", testExpiredContinue},
	{"ExpiredList", testExpiredList},
	{"ListNotOlderThanIsFresh", testListNotOlderThan},
	{"ExpiredWatch", testExpiredWatch},
	{"FutureVersion", testFutureVersion},
	{"MalformedVersion", testMalformedVersion},
	{"WatchList", testWatchList},
	{"Bookmarks", testBookmarks},
	{"CancelClosesWatch", testCancelClosesWatch},
}

// write is one successful write, as the suite made it.
type write struct {
	rv    string
	typ   source.EventType
	key   string
	value string // the new value, or the last one for Deleted
}

func (w write) String() string { return fmt.Sprintf("%v %s=%q @%s", w.typ, w.key, w.value, w.rv) }

// harness drives one source and logs every write it makes.
type harness struct {
	t    *testing.T
	ctx  context.Context
	src  Source
	caps Capabilities

	mu  sync.Mutex
	log []write // in completion order; see sorted
}

func (h *harness) record(w write) {
	h.mu.Lock()
	h.log = append(h.log, w)
	h.mu.Unlock()
}

// The write helpers return errors so that they can run on any goroutine.

func (h *harness) create(key, value string) (string, error) {
	rv, err := h.src.Create(h.ctx, &Object{Key: key, Value: value})
	if err == nil {
		h.record(write{rv, source.Added, key, value})
	}
	return rv, err
}

func (h *harness) update(key, value, ifVersion string) (string, error) {
	rv, err := h.src.Update(h.ctx, &Object{Key: key, Value: value}, ifVersion)
	if err == nil {
		h.record(write{rv, source.Modified, key, value})
	}
	return rv, err
}

func (h *harness) remove(key, lastValue, ifVersion string) (string, error) {
	rv, err := h.src.Delete(h.ctx, key, ifVersion)
	if err == nil {
		h.record(write{rv, source.Deleted, key, lastValue})
	}
	return rv, err
}

func (h *harness) mustCreate(key, value string) string {
	h.t.Helper()
	rv, err := h.create(key, value)
	if err != nil {
		h.t.Fatalf("Create %q: %v", key, err)
	}
	return rv
}

func (h *harness) mustUpdate(key, value string) string {
	h.t.Helper()
	rv, err := h.update(key, value, "")
	if err != nil {
		h.t.Fatalf("Update %q: %v", key, err)
	}
	return rv
}

func (h *harness) mustDelete(key, lastValue string) string {
	h.t.Helper()
	rv, err := h.remove(key, lastValue, "")
	if err != nil {
		h.t.Fatalf("Delete %q: %v", key, err)
	}
	return rv
}

// cmp compares two versions with the source's comparer.
func (h *harness) cmp(a, b string) int {
	h.t.Helper()
	c, err := h.src.CompareResourceVersions(a, b)
	if err != nil {
		h.t.Fatalf("CompareResourceVersions(%q, %q): %v", a, b, err)
	}
	return c
}

// sorted returns the write log in version order, checking that no two
// writes share a version.
func (h *harness) sorted() []write {
	h.t.Helper()
	h.mu.Lock()
	log := slices.Clone(h.log)
	h.mu.Unlock()
	slices.SortFunc(log, func(a, b write) int { return h.cmp(a.rv, b.rv) })
	for i := 1; i < len(log); i++ {
		if h.cmp(log[i-1].rv, log[i].rv) == 0 {
			h.t.Fatalf("two writes returned the same version: %v and %v", log[i-1], log[i])
		}
	}
	return log
}

// after returns the writes strictly after rv, in version order.
func (h *harness) after(rv string) []write {
	h.t.Helper()
	var out []write
	for _, w := range h.sorted() {
		if h.cmp(w.rv, rv) > 0 {
			out = append(out, w)
		}
	}
	return out
}

// state is one key's state in the model.
type state struct{ value, rv string }

// model returns the state at version rv according to the write log.
func (h *harness) model(rv string) map[string]state {
	h.t.Helper()
	m := make(map[string]state)
	for _, w := range h.sorted() {
		if h.cmp(w.rv, rv) > 0 {
			break
		}
		if w.typ == source.Deleted {
			delete(m, w.key)
		} else {
			m[w.key] = state{w.value, w.rv}
		}
	}
	return m
}

// checkItems checks that items are in strictly ascending key order and
// equal the model at rv, each stamped with its last write's version.
func (h *harness) checkItems(what string, items []*Object, rv string) {
	h.t.Helper()
	want := h.model(rv)
	got := make(map[string]state, len(items))
	for i, o := range items {
		if o == nil {
			h.t.Errorf("%s: item %d is nil", what, i)
			return
		}
		if i > 0 && items[i-1].Key >= o.Key {
			h.t.Errorf("%s: items out of key order: %q before %q", what, items[i-1].Key, o.Key)
		}
		got[o.Key] = state{o.Value, o.ResourceVersion}
	}
	if !maps.Equal(got, want) {
		h.t.Errorf("%s at %s:\n got  %v\n want %v", what, rv, got, want)
	}
}

// list calls List and fails the test on error.
func (h *harness) list(opts source.ListOptions) source.List[*Object] {
	h.t.Helper()
	l, err := h.src.List(h.ctx, opts)
	if err != nil {
		h.t.Fatalf("List(%+v): %v", opts, err)
	}
	if l.ResourceVersion == "" {
		h.t.Fatalf("List(%+v) returned an empty ResourceVersion", opts)
	}
	return l
}

// watch opens a watch that ends with the subtest (or cancel).
func (h *harness) watch(ctx context.Context, opts source.WatchOptions) <-chan source.Event[*Object] {
	h.t.Helper()
	ch, err := h.src.Watch(ctx, opts)
	if err != nil {
		h.t.Fatalf("Watch(%+v): %v", opts, err)
	}
	if ch == nil {
		h.t.Fatalf("Watch(%+v) returned a nil channel and no error", opts)
	}
	return ch
}

// next receives one event; ok is false when the channel is closed. It
// fails the test after Timeout.
func (h *harness) next(ch <-chan source.Event[*Object]) (source.Event[*Object], bool) {
	h.t.Helper()
	return h.nextBy(ch, time.Now().Add(h.caps.Timeout))
}

// nextBy is next with a deadline, for loops that skip events.
func (h *harness) nextBy(ch <-chan source.Event[*Object], deadline time.Time) (source.Event[*Object], bool) {
	h.t.Helper()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-timer.C:
		h.t.Fatalf("no expected event within %v", h.caps.Timeout)
		return source.Event[*Object]{}, false
	}
}

// nextChange receives the next Added, Modified or Deleted event. It
// fails the test on a closed channel or an Error event, and on a
// Bookmark unless bookmarks is set, in which case it checks that the
// bookmark does not go back in time.
func (h *harness) nextChange(ch <-chan source.Event[*Object], bookmarks bool, floor string) source.Event[*Object] {
	h.t.Helper()
	deadline := time.Now().Add(h.caps.Timeout)
	for {
		ev, ok := h.nextBy(ch, deadline)
		if !ok {
			h.t.Fatal("watch channel closed while a change was expected")
		}
		switch ev.Type {
		case source.Added, source.Modified, source.Deleted:
			return ev
		case source.Bookmark:
			if !bookmarks {
				h.t.Fatalf("Bookmark at %s on a watch without AllowBookmarks", ev.ResourceVersion)
			}
			if floor != "" && h.cmp(ev.ResourceVersion, floor) < 0 {
				h.t.Fatalf("Bookmark at %s goes back before %s", ev.ResourceVersion, floor)
			}
		case source.Error:
			h.t.Fatalf("Error event while a change was expected: %v", ev.Err)
		default:
			h.t.Fatalf("event of invalid type %v", ev.Type)
		}
	}
}

// expect receives len(want) changes and checks that they are exactly
// want: same order, types, keys, values and versions; Added and Modified
// objects stamped with the event's version.
func (h *harness) expect(ch <-chan source.Event[*Object], want []write, bookmarks bool, from string) {
	h.t.Helper()
	prev := from
	for i, w := range want {
		ev := h.nextChange(ch, bookmarks, prev)
		h.checkEvent(fmt.Sprintf("event %d of %d", i+1, len(want)), ev, w)
		if prev != "" && h.cmp(ev.ResourceVersion, prev) <= 0 {
			h.t.Fatalf("event %d at %s does not come after %s", i+1, ev.ResourceVersion, prev)
		}
		prev = ev.ResourceVersion
	}
}

func (h *harness) checkEvent(what string, ev source.Event[*Object], w write) {
	h.t.Helper()
	if ev.Object == nil {
		h.t.Fatalf("%s: nil Object, want %v", what, w)
	}
	got := write{ev.ResourceVersion, ev.Type, ev.Object.Key, ev.Object.Value}
	if got != w {
		h.t.Fatalf("%s: got %v, want %v", what, got, w)
	}
	if ev.Type != source.Deleted && ev.Object.ResourceVersion != ev.ResourceVersion {
		h.t.Fatalf("%s: object stamped with version %q, event has %q", what, ev.Object.ResourceVersion, ev.ResourceVersion)
	}
}

// watchErr opens a watch that must fail: it returns the error Watch
// returned, or the Err of the Error event that must then be the only
// event before the channel closes.
func (h *harness) watchErr(opts source.WatchOptions) error {
	h.t.Helper()
	ctx, cancel := context.WithCancel(h.ctx)
	defer cancel()
	ch, err := h.src.Watch(ctx, opts)
	if err != nil {
		return err
	}
	ev, ok := h.next(ch)
	if !ok {
		h.t.Fatalf("Watch(%+v): channel closed without an error", opts)
	}
	if ev.Type != source.Error || ev.Err == nil {
		h.t.Fatalf("Watch(%+v): got a %v event, want an error", opts, ev.Type)
	}
	if _, ok := h.next(ch); ok {
		h.t.Fatalf("Watch(%+v): channel not closed after the Error event", opts)
	}
	return ev.Err
}

// drain receives until ch is closed, failing the test after Timeout.
func (h *harness) drain(ch <-chan source.Event[*Object]) {
	h.t.Helper()
	timer := time.NewTimer(h.caps.Timeout)
	defer timer.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timer.C:
			h.t.Fatalf("watch channel not closed within %v", h.caps.Timeout)
		}
	}
}
