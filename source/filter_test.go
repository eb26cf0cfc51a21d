package source_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

type ball struct {
	Name  string
	Color string
	RV    string
}

func (b *ball) GetResourceVersion() string   { return b.RV }
func (b *ball) SetResourceVersion(rv string) { b.RV = rv }

func ballKey(b *ball) string { return b.Name }
func isRed(b *ball) bool     { return b.Color == "red" }

func newBalls(t *testing.T) *fake.Source[*ball] {
	t.Helper()
	src, err := fake.NewSource(ballKey, fake.Options[*ball]{Copy: func(b *ball) *ball { c := *b; return &c }})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func put(t *testing.T, src *fake.Source[*ball], name, color string) string {
	t.Helper()
	ctx := context.Background()
	if _, _, err := src.Get(ctx, name); errors.Is(err, source.ErrNotFound) {
		rv, err := src.Create(ctx, &ball{Name: name, Color: color})
		if err != nil {
			t.Fatal(err)
		}
		return rv
	}
	rv, err := src.Update(ctx, &ball{Name: name, Color: color}, "")
	if err != nil {
		t.Fatal(err)
	}
	return rv
}

type seen struct {
	typ   source.EventType
	name  string
	color string
}

// next receives one event, failing if none is ready once the bubble is idle.
func next(t *testing.T, ch <-chan source.Event[*ball]) seen {
	t.Helper()
	synctest.Wait()
	select {
	case ev := <-ch:
		if ev.Type == source.Error {
			t.Fatalf("error event: %v", ev.Err)
		}
		return seen{ev.Type, ev.Object.Name, ev.Object.Color}
	default:
		t.Fatal("no event")
	}
	return seen{}
}

func none(t *testing.T, ch <-chan source.Event[*ball]) {
	t.Helper()
	synctest.Wait()
	select {
	case ev := <-ch:
		t.Fatalf("unexpected event %v %+v", ev.Type, ev.Object)
	default:
	}
}

func TestFilterList(t *testing.T) {
	src := newBalls(t)
	put(t, src, "a", "red")
	put(t, src, "b", "blue")
	put(t, src, "c", "red")
	f := source.Filter[*ball](src, ballKey, isRed)
	l, err := f.List(context.Background(), source.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 2 || l.Items[0].Name != "a" || l.Items[1].Name != "c" {
		t.Fatalf("items %+v", l.Items)
	}
	if l.ResourceVersion != src.ResourceVersion() {
		t.Fatalf("rv %q, want %q", l.ResourceVersion, src.ResourceVersion())
	}
	if _, ok := f.(source.VersionComparer); !ok {
		t.Fatal("a filter over a VersionComparer is not one")
	}
}

func TestFilterWatchTransitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newBalls(t)
		put(t, src, "in", "red")
		put(t, src, "out", "blue")
		f := source.Filter[*ball](src, ballKey, isRed)
		l, err := f.List(ctx, source.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ch, err := f.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name, color string
			del         bool
			want        *seen
		}{
			{name: "in", color: "red", want: nil}, // no change at all: not even written
			{name: "out", color: "green", want: nil},
			{name: "out", color: "red", want: &seen{source.Added, "out", "red"}},
			{name: "out", color: "blue", want: &seen{source.Deleted, "out", "red"}}, // last matching state
			{name: "new", color: "red", want: &seen{source.Added, "new", "red"}},
			{name: "new2", color: "blue", want: nil},
			{name: "in", color: "red", del: true, want: &seen{source.Deleted, "in", "red"}},
			{name: "new2", color: "blue", del: true, want: nil},
		}
		for i, st := range steps {
			if st.del {
				if _, err := src.Delete(ctx, st.name, ""); err != nil {
					t.Fatal(err)
				}
			} else {
				put(t, src, st.name, st.color)
			}
			if st.want == nil {
				none(t, ch)
				continue
			}
			if got := next(t, ch); got != *st.want {
				t.Fatalf("step %d: got %+v, want %+v", i, got, *st.want)
			}
		}
		// A matching object changed while it keeps matching is Modified.
		if _, err := src.Update(ctx, &ball{Name: "new", Color: "red"}, ""); err != nil {
			t.Fatal(err)
		}
		none(t, ch) // unchanged: fake drops it
	})
}

func TestFilterWatchModified(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		type obj = ball
		src, err := fake.NewSource(ballKey, fake.Options[*obj]{Equal: fake.NeverEqual[*obj]})
		if err != nil {
			t.Fatal(err)
		}
		put(t, src, "a", "red")
		ch, err := source.Filter[*obj](src, ballKey, isRed).Watch(ctx, source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		put(t, src, "a", "red")
		if got := next(t, ch); got != (seen{source.Modified, "a", "red"}) {
			t.Fatalf("got %+v", got)
		}
	})
}

// A watch from an old version knows what matched then: an object that
// matched at that version and stopped since arrives as Deleted, one that
// never matched sends nothing.
func TestFilterWatchFromOldVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newBalls(t)
		put(t, src, "a", "red")
		rv := put(t, src, "b", "blue")
		put(t, src, "a", "blue")  // a stops matching after rv
		put(t, src, "b", "green") // b never matched
		ch, err := source.Filter[*ball](src, ballKey, isRed).Watch(ctx, source.WatchOptions{ResourceVersion: rv})
		if err != nil {
			t.Fatal(err)
		}
		if got := next(t, ch); got != (seen{source.Deleted, "a", "red"}) {
			t.Fatalf("got %+v", got)
		}
		none(t, ch)
	})
}

// A relist after the watch's version expired: the new watch is seeded at
// the relist's version, and transitions go on from there.
func TestFilterAcrossRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newBalls(t)
		rv := put(t, src, "a", "red")
		put(t, src, "a", "blue")
		src.Compact()
		f := source.Filter[*ball](src, ballKey, isRed)
		if _, err := f.Watch(ctx, source.WatchOptions{ResourceVersion: rv}); !errors.Is(err, source.ErrExpired) {
			t.Fatalf("watch from a compacted version: %v, want ErrExpired", err)
		}
		l, err := f.List(ctx, source.ListOptions{ResourceVersion: rv})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 0 {
			t.Fatalf("relist: %+v", l.Items)
		}
		ch, err := f.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		put(t, src, "a", "red")
		if got := next(t, ch); got != (seen{source.Added, "a", "red"}) {
			t.Fatalf("got %+v", got)
		}
	})
}

func TestFilterInitialEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newBalls(t)
		put(t, src, "a", "red")
		put(t, src, "b", "blue")
		ch, err := source.Filter[*ball](src, ballKey, isRed).Watch(ctx, source.WatchOptions{SendInitialEvents: true, AllowBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		if got := next(t, ch); got != (seen{source.Added, "a", "red"}) {
			t.Fatalf("got %+v", got)
		}
		synctest.Wait()
		ev := <-ch
		if ev.Type != source.Bookmark || !ev.InitialEventsEnd {
			t.Fatalf("got %v, want the end-of-initial-events bookmark", ev.Type)
		}
		put(t, src, "a", "blue")
		if got := next(t, ch); got != (seen{source.Deleted, "a", "red"}) {
			t.Fatalf("got %+v", got)
		}
	})
}

func TestFilterCancelClosesAndBadInput(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		src := newBalls(t)
		ch, err := source.Filter[*ball](src, ballKey, isRed).Watch(ctx, source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		put(t, src, "a", "red") // left unread
		synctest.Wait()
		cancel()
		for range ch {
		}
	})
	if _, err := source.Filter[*ball](nil, ballKey, isRed).List(context.Background(), source.ListOptions{}); err == nil {
		t.Fatal("nil ListWatcher: no error")
	}
	src := newBalls(t)
	put(t, src, "a", "red")
	panicky := source.Filter[*ball](src, ballKey, func(*ball) bool { panic("boom") })
	if _, err := panicky.List(context.Background(), source.ListOptions{}); err == nil {
		t.Fatal("panicking match: no error")
	}
}

// A key function that fails ends the watch with an Error event and a
// closed channel, and ends the inner watch too.
func TestFilterBadKeyEndsWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newBalls(t)
		key := func(b *ball) string {
			if b.Name == "bad" {
				return ""
			}
			return b.Name
		}
		ch, err := source.Filter[*ball](src, key, isRed).Watch(t.Context(), source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		put(t, src, "bad", "red")
		synctest.Wait()
		ev := <-ch
		if ev.Type != source.Error || ev.Err == nil {
			t.Fatalf("got %v, want an Error event", ev.Type)
		}
		if _, ok := <-ch; ok {
			t.Fatal("channel open after the Error event")
		}
		// The bubble ends only if the inner watch's goroutine has ended.
	})
}
