package reflector_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// nopStore accepts everything; done is closed after want updates.
type nopStore struct {
	want, n int
	done    chan struct{}
}

func (s *nopStore) Add(item, string) error { return nil }
func (s *nopStore) Update(item, string) error {
	if s.n++; s.n == s.want {
		close(s.done)
	}
	return nil
}
func (s *nopStore) Delete(item, string) error    { return nil }
func (s *nopStore) Replace([]item, string) error { return nil }
func (s *nopStore) Resync() error                { return nil }
func (s *nopStore) Bookmark(string)              {}

// benchRVs are precomputed increasing resourceVersions, so the producer
// side of the benchmark allocates nothing.
var benchRVs = func() []string {
	out := make([]string, 1<<16)
	for i := range out {
		out[i] = strconv.Itoa(i + 1)
	}
	return out
}()

// benchWatch measures the cost per watch event from the channel to the
// store: validation, store call, last-synced-version update, counters.
func benchWatch(b *testing.B, ordered bool) {
	rvList := benchRVs
	ch := make(chan ev, 1024)
	lw := source.ListWatchFuncs[item]{
		ListFunc: func(context.Context, source.ListOptions) (source.List[item], error) {
			return source.List[item]{ResourceVersion: "0"}, nil
		},
		WatchFunc: func(context.Context, source.WatchOptions) (<-chan ev, error) { return ch, nil },
	}
	var src source.ListWatcher[item] = lw
	if ordered {
		src = orderedFuncs{lw}
	}
	n := b.N
	if ordered {
		// Equal versions are valid and keep the comparer's work per
		// event the same however long the run.
		rvList = rvList[41:42]
	}
	store := &nopStore{want: n, done: make(chan struct{})}
	r, err := reflector.New[item](src, store, reflector.Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	b.ReportAllocs()
	b.ResetTimer()
	obj := item{Name: "a"}
	for i := range n {
		ch <- ev{Type: source.Modified, Object: obj, ResourceVersion: rvList[i%len(rvList)]}
	}
	<-store.done
	b.StopTimer()
	cancel()
	<-done
}

type orderedFuncs struct{ source.ListWatchFuncs[item] }

func (orderedFuncs) CompareResourceVersions(a, b string) (int, error) {
	return orderedLW{}.CompareResourceVersions(a, b)
}

func BenchmarkWatchEvent(b *testing.B)        { benchWatch(b, false) }
func BenchmarkWatchEventOrdered(b *testing.B) { benchWatch(b, true) }

// BenchmarkPaginatedList measures a 100,000-item list in pages of 500,
// assembled into one Replace.
func BenchmarkPaginatedList(b *testing.B) {
	const total, page = 100_000, 500
	all := make([]item, total)
	for i := range all {
		all[i] = item{Name: strconv.Itoa(i), V: i}
	}
	lw := source.ListWatchFuncs[item]{
		ListFunc: func(_ context.Context, opts source.ListOptions) (source.List[item], error) {
			start := 0
			if opts.Continue != "" {
				start, _ = strconv.Atoi(opts.Continue)
			}
			end := min(start+int(opts.Limit), total)
			l := source.List[item]{Items: all[start:end:end], ResourceVersion: "1"}
			if end < total {
				l.Continue = strconv.Itoa(end)
			}
			return l, nil
		},
	}
	b.ReportAllocs()
	for b.Loop() {
		got := make(chan int, 1)
		ctx, cancel := context.WithCancel(context.Background())
		lw.WatchFunc = func(ctx context.Context, _ source.WatchOptions) (<-chan ev, error) {
			cancel()
			return nil, ctx.Err()
		}
		store := &countingStore{got: got}
		r, _ := reflector.New[item](lw, store, reflector.Options{Logger: quiet, PageSize: page})
		_ = r.Run(ctx)
		if n := <-got; n != total {
			b.Fatalf("replace got %d items", n)
		}
	}
}

type countingStore struct {
	nopStore
	got chan int
}

func (s *countingStore) Replace(items []item, _ string) error {
	s.got <- len(items)
	return nil
}
