package sourcetest_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// The suite is tested against fake.Source (which must pass) and against
// mutants of it, each broken in one way that one check must catch. A
// mutant runs in a child process, because a failing suite fails its test.

type event = source.Event[*sourcetest.Object]

// base adapts fake.Source to sourcetest.Source.
type base struct {
	*fake.Source[*sourcetest.Object]
}

func (b base) Compact(context.Context) error {
	b.Source.Compact()
	return nil
}

func newBase(t *testing.T) base {
	src, err := fake.NewSource(sourcetest.ObjectKey, fake.Options[*sourcetest.Object]{
		BookmarkInterval: 10 * time.Millisecond,
		Logger:           slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return base{src}
}

// forward relays a watch through f, which may emit any events for each
// event it receives. The relay ends when in closes.
func forward(ctx context.Context, in <-chan event, f func(ev event, emit func(event))) <-chan event {
	out := make(chan event)
	go func() {
		defer close(out)
		emit := func(ev event) {
			select {
			case out <- ev:
			case <-ctx.Done():
			}
		}
		for ev := range in {
			f(ev, emit)
		}
	}()
	return out
}

// watchMutant breaks the events of every watch.
type watchMutant struct {
	base
	edit func(opts source.WatchOptions) func(ev event, emit func(event))
}

func (m watchMutant) Watch(ctx context.Context, opts source.WatchOptions) (<-chan event, error) {
	ch, err := m.base.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return forward(ctx, ch, m.edit(opts)), nil
}

// nthChange returns an editor that applies f to the n-th change event
// (1-based) of a watch and passes the others on.
func nthChange(n int, f func(ev event, emit func(event))) func(source.WatchOptions) func(event, func(event)) {
	return func(source.WatchOptions) func(event, func(event)) {
		seen := 0
		return func(ev event, emit func(event)) {
			if ev.Type == source.Added || ev.Type == source.Modified || ev.Type == source.Deleted {
				seen++
				if seen == n {
					f(ev, emit)
					return
				}
			}
			emit(ev)
		}
	}
}

type listMutant struct {
	base
	list func(b base, ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error)
}

func (m listMutant) List(ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error) {
	return m.list(m.base, ctx, opts)
}

type writeMutant struct{ base }

func (m writeMutant) Update(ctx context.Context, obj *sourcetest.Object, _ string) (string, error) {
	return m.base.Update(ctx, obj, "")
}

type compactMutant struct{ base }

func (compactMutant) Compact(context.Context) error { return nil }

type getMutant struct{ base }

func (m getMutant) Get(ctx context.Context, key string) (*sourcetest.Object, string, error) {
	o, rv, err := m.base.Get(ctx, key)
	if err == nil {
		o = &sourcetest.Object{Key: o.Key, Value: o.Value}
	}
	return o, rv, err
}

type expiredMutant struct{ base }

func (m expiredMutant) Watch(ctx context.Context, opts source.WatchOptions) (<-chan event, error) {
	ch, err := m.base.Watch(ctx, opts)
	if errors.Is(err, source.ErrExpired) {
		err = errors.New("gone")
	}
	return ch, err
}

type leakMutant struct{ base }

func (m leakMutant) Watch(ctx context.Context, opts source.WatchOptions) (<-chan event, error) {
	ch, err := m.base.Watch(ctx, opts)
	if err == nil {
		go func() { time.Sleep(time.Minute) }() // the leak the suite must catch
	}
	return ch, err
}

var mutants = map[string]struct {
	catches string // the check that must fail
	new     func(t *testing.T) sourcetest.Source
}{
	"DropsAnEvent": {"WatchDeliversEveryWrite", func(t *testing.T) sourcetest.Source {
		return watchMutant{newBase(t), nthChange(5, func(event, func(event)) {})}
	}},
	"DuplicatesAnEvent": {"WatchDeliversEveryWrite", func(t *testing.T) sourcetest.Source {
		return watchMutant{newBase(t), nthChange(5, func(ev event, emit func(event)) { emit(ev); emit(ev) })}
	}},
	"DuplicatesFirstEvents": {"WatchResumesFromAnyVersion", func(t *testing.T) sourcetest.Source {
		return watchMutant{newBase(t), nthChange(1, func(ev event, emit func(event)) { emit(ev); emit(ev) })}
	}},
	"SwapsEvents": {"WatchResumesFromAnyVersion", func(t *testing.T) sourcetest.Source {
		var held *event
		return watchMutant{newBase(t), func(source.WatchOptions) func(event, func(event)) {
			seen := 0
			return func(ev event, emit func(event)) {
				if ev.Type != source.Bookmark {
					seen++
				}
				switch {
				case seen == 2 && held == nil:
					held = &ev
				case held != nil:
					emit(ev)
					emit(*held)
					held = nil
				default:
					emit(ev)
				}
			}
		}}
	}},
	"UnaskedBookmarks": {"WatchFromEmptyVersionIsNow", func(t *testing.T) sourcetest.Source {
		return watchMutant{newBase(t), func(source.WatchOptions) func(event, func(event)) {
			return func(ev event, emit func(event)) {
				emit(event{Type: source.Bookmark, ResourceVersion: ev.ResourceVersion})
				emit(ev)
			}
		}}
	}},
	"NoInitialEventsEnd": {"WatchList", func(t *testing.T) sourcetest.Source {
		return watchMutant{newBase(t), func(source.WatchOptions) func(event, func(event)) {
			return func(ev event, emit func(event)) {
				if !ev.InitialEventsEnd {
					emit(ev)
				}
			}
		}}
	}},
	"NoBookmarks": {"Bookmarks", func(t *testing.T) sourcetest.Source {
		return watchMutant{newBase(t), func(source.WatchOptions) func(event, func(event)) {
			return func(ev event, emit func(event)) {
				if ev.Type != source.Bookmark {
					emit(ev)
				}
			}
		}}
	}},
	"ListAlwaysLatest": {"ListIsConsistent", func(t *testing.T) sourcetest.Source {
		return listMutant{newBase(t), func(b base, ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error) {
			want := opts.ResourceVersion
			opts.ResourceVersion = ""
			l, err := b.List(ctx, opts)
			if want != "" {
				l.ResourceVersion = want
			}
			return l, err
		}}
	}},
	"NotOlderThanServesTheOldSnapshot": {"ListNotOlderThanIsFresh", func(t *testing.T) sourcetest.Source {
		// The bug that kept relists from repairing lost events: a list
		// not older than v served exactly v.
		return listMutant{newBase(t), func(b base, ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error) {
			if opts.Continue == "" && opts.ResourceVersion != "" {
				opts.ResourceVersionMatch = source.Exact
			}
			return b.List(ctx, opts)
		}}
	}},
	"PagesAtLatest": {"PaginationSeesOneSnapshot", func(t *testing.T) sourcetest.Source {
		// Continue tokens carry the first page's version and the last
		// key, but later pages are cut from the latest state.
		return listMutant{newBase(t), func(b base, ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error) {
			rv, after := "", ""
			if opts.Continue != "" {
				raw, _ := base64.RawURLEncoding.DecodeString(opts.Continue)
				rv, after, _ = strings.Cut(string(raw), "/")
			}
			all, err := b.List(ctx, source.ListOptions{})
			if err != nil {
				return all, err
			}
			if rv == "" {
				rv = all.ResourceVersion
			}
			out := source.List[*sourcetest.Object]{ResourceVersion: rv}
			for _, o := range all.Items {
				if o.Key <= after {
					continue
				}
				if opts.Limit > 0 && int64(len(out.Items)) == opts.Limit {
					last := out.Items[len(out.Items)-1].Key
					out.Continue = base64.RawURLEncoding.EncodeToString([]byte(rv + "/" + last))
					break
				}
				out.Items = append(out.Items, o)
			}
			return out, nil
		}}
	}},
	"IgnoresPreconditions": {"Writes", func(t *testing.T) sourcetest.Source { return writeMutant{newBase(t)} }},
	"DoesNotStamp":         {"Writes", func(t *testing.T) sourcetest.Source { return getMutant{newBase(t)} }},
	"CompactIsNoop":        {"ExpiredList", func(t *testing.T) sourcetest.Source { return compactMutant{newBase(t)} }},
	"ExpiryNotWrapped":     {"ExpiredWatch", func(t *testing.T) sourcetest.Source { return expiredMutant{newBase(t)} }},
	"LeaksAGoroutine":      {"CancelClosesWatch", func(t *testing.T) sourcetest.Source { return leakMutant{newBase(t)} }},
}

const mutantEnv = "SOURCETEST_MUTANT"

// TestMutant runs the suite: against fake.Source itself when no mutant is
// named (it must pass), or against the mutant named in the environment
// (a child process of TestSuiteCatchesMutants).
func TestMutant(t *testing.T) {
	caps := sourcetest.Capabilities{WatchList: true, Bookmarks: true, Timeout: 5 * time.Second}
	name := os.Getenv(mutantEnv)
	if name == "" {
		sourcetest.Run(t, func(t *testing.T) sourcetest.Source { return newBase(t) }, caps)
		return
	}
	m, ok := mutants[name]
	if !ok {
		t.Fatalf("no mutant %q", name)
	}
	caps.Timeout = 300 * time.Millisecond
	sourcetest.Run(t, m.new, caps)
}

func TestSuiteCatchesMutants(t *testing.T) {
	if os.Getenv(mutantEnv) != "" {
		return // a child process runs only TestMutant
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range mutants {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestMutant$/^"+m.catches+"$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), mutantEnv+"="+name)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a source that %s:\n%s", name, out)
			}
			if !strings.Contains(string(out), "--- FAIL: TestMutant/"+m.catches) {
				t.Fatalf("check %s did not fail on a source that %s:\n%s", m.catches, name, out)
			}
		})
	}
}
