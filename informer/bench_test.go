package informer_test

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The W7 workload of the bench/ module: an informer over a ListWatcher
// whose List returns 100k objects and whose Watch then delivers 100k
// Modified events, with one counting handler.

const benchN = 100_000

type benchPod struct {
	Namespace, Name, Node, ResourceVersion string
	Labels                                 map[string]string
}

func (p *benchPod) GetResourceVersion() string { return p.ResourceVersion }

func benchKey(p *benchPod) string { return p.Namespace + "/" + p.Name }

func benchPods(n int, rv string) []*benchPod {
	pods := make([]*benchPod, n)
	for i := range pods {
		pods[i] = &benchPod{
			Namespace:       "ns-" + strconv.Itoa(i%100),
			Name:            "pod-" + strconv.Itoa(i),
			Node:            "node-" + strconv.Itoa(i%1000),
			ResourceVersion: rv,
			Labels:          map[string]string{"app": "bench"},
		}
	}
	return pods
}

// benchSource lists items and then streams whatever is sent on events.
type benchSource struct {
	items  []*benchPod
	events chan source.Event[*benchPod]
}

func (s *benchSource) List(context.Context, source.ListOptions) (source.List[*benchPod], error) {
	return source.List[*benchPod]{Items: s.items, ResourceVersion: "1"}, nil
}

func (s *benchSource) Watch(ctx context.Context, _ source.WatchOptions) (<-chan source.Event[*benchPod], error) {
	out := make(chan source.Event[*benchPod])
	go func() {
		defer close(out)
		for {
			select {
			case <-ctx.Done():
				return
			case ev := <-s.events:
				select {
				case out <- ev:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out, nil
}

// counter counts handler calls and closes reached when the count hits
// target.
type counter struct {
	n, target atomic.Int64
	reached   chan struct{}
}

func (c *counter) hit() {
	if c.n.Add(1) == c.target.Load() {
		close(c.reached)
	}
}

func (c *counter) expect(n int64) {
	c.n.Store(0)
	c.target.Store(n)
	c.reached = make(chan struct{})
}

func (c *counter) handler() informer.Handler[*benchPod] {
	return informer.HandlerFuncs[*benchPod]{
		AddFunc:    func(*benchPod, bool) { c.hit() },
		UpdateFunc: func(_, _ *benchPod) { c.hit() },
		DeleteFunc: func(*benchPod, bool) { c.hit() },
	}
}

var benchLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

func newBenchInformer(b *testing.B, src *benchSource) *informer.Informer[*benchPod] {
	inf, err := informer.New(src, benchKey, informer.Options[*benchPod]{
		Logger: benchLogger,
	})
	if err != nil {
		b.Fatal(err)
	}
	return inf
}

// BenchmarkSync100k: from Run to synced with every OnAdd delivered; also
// reports the heap retained per cached object.
func BenchmarkSync100k(b *testing.B) {
	src := &benchSource{items: benchPods(benchN, "1"), events: make(chan source.Event[*benchPod])}
	b.ReportAllocs()
	var heapPerObj float64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		inf := newBenchInformer(b, src)
		c := &counter{}
		c.expect(benchN)
		reg, err := inf.AddEventHandler(c.handler(), informer.HandlerOptions{})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		b.StartTimer()

		go func() {
			defer close(done)
			_ = inf.Run(ctx)
		}()
		<-c.reached
		if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
			b.Fatal("not synced")
		}

		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heapPerObj = float64(after.HeapAlloc-before.HeapAlloc) / benchN
		cancel()
		<-done
		b.StartTimer()
	}
	b.ReportMetric(heapPerObj, "heap-B/obj")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchN, "ns/obj")
}

// BenchmarkUpdates100k: a synced informer of 100k objects; each iteration
// delivers 100k Modified events (one per object) to the counting handler.
func BenchmarkUpdates100k(b *testing.B) {
	src := &benchSource{items: benchPods(benchN, "1"), events: make(chan source.Event[*benchPod], 1024)}
	inf := newBenchInformer(b, src)
	c := &counter{}
	c.expect(benchN)
	if _, err := inf.AddEventHandler(c.handler(), informer.HandlerOptions{}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = inf.Run(ctx)
	}()
	defer func() {
		cancel()
		<-done
	}()
	<-c.reached

	rv := 1
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		updates := benchPods(benchN, "")
		events := make([]source.Event[*benchPod], benchN)
		for j, p := range updates {
			rv++
			p.ResourceVersion = strconv.Itoa(rv)
			events[j] = source.Event[*benchPod]{Type: source.Modified, Object: p, ResourceVersion: p.ResourceVersion}
		}
		c.expect(benchN)
		b.StartTimer()
		go func() {
			for _, ev := range events {
				src.events <- ev
			}
		}()
		<-c.reached
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchN, "ns/event")
}
