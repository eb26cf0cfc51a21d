package informer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/source"

	"github.com/stretchr/testify/require"
)

// WaitForLatest returns only once the cache holds every write the source
// had made when it was called, for one informer and for a factory's.
func TestWaitForLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newSource(t)
		f := NewFactory(FactoryOptions{Logger: quiet})
		inf, err := Shared(f, "objs", src, keyOf, Options[*obj]{Logger: quiet})
		require.NoError(t, err)
		f.Start(ctx)
		defer f.Shutdown()
		require.True(t, f.WaitForCacheSync(ctx))
		for round := range 3 {
			for i := range 50 {
				_, err := src.Create(ctx, &obj{Key: fmt.Sprintf("r%d-%d", round, i)})
				require.NoError(t, err)
			}
			if round%2 == 0 {
				require.NoError(t, inf.WaitForLatest(ctx))
			} else {
				require.NoError(t, f.WaitForLatest(ctx))
			}
			require.Len(t, inf.Lister().List(nil), 50*(round+1), "no synctest.Wait: the wait alone guarantees it")
		}
		var nilCtx context.Context
		require.ErrorIs(t, inf.WaitForLatest(nilCtx), ErrNilContext)
	})
}

// On a source whose resourceVersions are shared with other kinds (a real
// Kubernetes API server: etcd revisions), the newest version is usually a
// write to another kind, which the informer never sees: WaitForLatest
// compares the cache with a full list instead, and still waits while the
// cache lags behind that list.
func TestWaitForLatestSharedRevisions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newSharedRevisions()
		src.put("a", 1)
		src.put("b", 1)
		src.other(5)
		inf := newInformer(t, src, Options[*obj]{})
		start(t, inf)
		synctest.Wait()
		require.True(t, inf.HasSynced())
		src.other(3) // writes to other kinds: no event, no bookmark here

		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		require.NoError(t, inf.WaitForLatest(wctx), "the cache holds this kind's latest state")

		src.hold()
		src.put("a", 2)
		src.put("c", 1)
		src.del("b")
		src.other(2)
		done := make(chan error, 1)
		go func() { done <- inf.WaitForLatest(wctx) }()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("WaitForLatest returned %v while the cache lags", err)
		default:
		}
		src.release()
		require.NoError(t, <-done)
		l := inf.Lister()
		a, ok := l.Get("a")
		require.True(t, ok)
		require.Equal(t, 2, a.Val)
		_, ok = l.Get("c")
		require.True(t, ok)
		_, ok = l.Get("b")
		require.False(t, ok, "b was deleted before WaitForLatest was called")
	})
}

// sharedRevisions is a source of *obj whose revisions are shared with
// other kinds' writes (other), as etcd's are, and which sends no
// bookmarks; hold and release delay its watch events.
type sharedRevisions struct {
	mu      sync.Mutex
	rev     int64
	objs    map[string]*obj
	hist    []source.Event[*obj]
	held    bool
	limit   int           // events delivered while held
	changed chan struct{} // closed and replaced at each change
}

func newSharedRevisions() *sharedRevisions {
	return &sharedRevisions{objs: map[string]*obj{}, changed: make(chan struct{})}
}

func (s *sharedRevisions) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *sharedRevisions) put(key string, val int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	o := &obj{Key: key, Val: val, RV: source.FormatRevision(s.rev)}
	typ := source.Modified
	if s.objs[key] == nil {
		typ = source.Added
	}
	s.objs[key] = o
	s.hist = append(s.hist, source.Event[*obj]{Type: typ, Object: copyObj(o), ResourceVersion: o.RV})
	s.notifyLocked()
}

func (s *sharedRevisions) del(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev++
	o := copyObj(s.objs[key])
	o.RV = source.FormatRevision(s.rev)
	delete(s.objs, key)
	s.hist = append(s.hist, source.Event[*obj]{Type: source.Deleted, Object: o, ResourceVersion: o.RV})
	s.notifyLocked()
}

func (s *sharedRevisions) other(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rev += int64(n)
}

func (s *sharedRevisions) hold() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held, s.limit = true, len(s.hist)
}

func (s *sharedRevisions) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held = false
	s.notifyLocked()
}

func (s *sharedRevisions) CompareResourceVersions(a, b string) (int, error) {
	return source.CompareRevisions(a, b)
}

func (s *sharedRevisions) List(ctx context.Context, opts source.ListOptions) (source.List[*obj], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := source.List[*obj]{ResourceVersion: source.FormatRevision(s.rev)}
	for _, k := range slices.Sorted(maps.Keys(s.objs)) {
		if opts.Limit > 0 && int64(len(l.Items)) == opts.Limit {
			break // a first page; its continuation is not needed here
		}
		l.Items = append(l.Items, copyObj(s.objs[k]))
	}
	return l, nil
}

func (s *sharedRevisions) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*obj], error) {
	from, err := source.ParseRevision(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	ch := make(chan source.Event[*obj])
	go func() {
		defer close(ch)
		next := 0
		for {
			s.mu.Lock()
			var batch []source.Event[*obj]
			for ; next < len(s.hist) && (!s.held || next < s.limit); next++ {
				if rv, _ := source.ParseRevision(s.hist[next].ResourceVersion); rv > from {
					batch = append(batch, s.hist[next])
				}
			}
			changed := s.changed
			s.mu.Unlock()
			for _, ev := range batch {
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				}
			}
			select {
			case <-changed:
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}
