package bench

import (
	"context"
	"runtime"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// W7: an informer end to end. Its source lists the pods (one page,
// resourceVersion "1"), then its watch delivers one Modified event per
// pod (a copy with the app label changed and resourceVersion "2"). One
// handler counts adds and updates. Phase 1 (sync) runs from Run until
// the handler has counted every add and its registration has synced;
// phase 2 (updates) from the first event sent until the handler has
// counted every update. The informers have a namespace index, as those of
// client-go's informer factories do.
//
// Both sides cache the very same *v1.Pod objects: client-go's list is a
// list type whose Items are pointers (podPtrList), so its reflector does
// not shallow-copy each item as it does for the []v1.Pod of a PodList
// (meta.ExtractListWithAlloc); the watch is a watch.FakeWatcher with a
// buffer for every event, the counterpart of ctrlkit's event channel.

// w7Result is what a W7 body observed (its last iteration).
type w7Result struct {
	Adds, Updates, Cached int
	// HeapPerObject is the live heap the synced informer added, per
	// cached object (the pods excluded: they were allocated before).
	HeapPerObject float64
}

// phase says which phase a W7 body times: 1 sync, 2 updates, 0 both.
type phase int

// countingHandler counts adds and updates and closes a channel when each
// count reaches n. The informers call it from one goroutine.
type countingHandler struct {
	n              int
	adds, updates  int
	added, updated chan struct{}
}

func newCountingHandler(n int) *countingHandler {
	return &countingHandler{n: n, added: make(chan struct{}), updated: make(chan struct{})}
}

func (h *countingHandler) add() {
	h.adds++
	if h.adds == h.n {
		close(h.added)
	}
}

func (h *countingHandler) update() {
	h.updates++
	if h.updates == h.n {
		close(h.updated)
	}
}

// waitSynced spins (yielding) until synced reports true: the handler has
// counted every add, so at most its last call is still returning.
func waitSynced(synced func() bool) {
	for !synced() {
		runtime.Gosched()
	}
}

func w7Ctrlkit(b timer, ph phase, pods, updated []*v1.Pod, n int) w7Result {
	versions := rvs(2, len(updated))
	var r w7Result
	b.ResetTimer()
	b.StopTimer()
	for range n {
		events := make(chan source.Event[*v1.Pod], len(updated))
		var closeOnce sync.Once
		lw := source.ListWatchFuncs[*v1.Pod]{
			ListFunc: func(context.Context, source.ListOptions) (source.List[*v1.Pod], error) {
				return source.List[*v1.Pod]{Items: pods, ResourceVersion: "1"}, nil
			},
			WatchFunc: func(ctx context.Context, _ source.WatchOptions) (<-chan source.Event[*v1.Pod], error) {
				context.AfterFunc(ctx, func() { closeOnce.Do(func() { close(events) }) })
				return events, nil
			},
		}
		h := newCountingHandler(len(pods))
		before := heapInUse()

		if ph != 2 {
			b.StartTimer()
		}
		inf, err := informer.New(lw, PodKey, informer.Options[*v1.Pod]{
			Indexers: indexer.Indexers[*v1.Pod]{
				"namespace": func(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
			},
		})
		if err != nil {
			panic(err)
		}
		reg, err := inf.AddEventHandler(informer.HandlerFuncs[*v1.Pod]{
			AddFunc:    func(*v1.Pod, bool) { h.add() },
			UpdateFunc: func(_, _ *v1.Pod) { h.update() },
		}, informer.HandlerOptions{})
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			_ = inf.Run(ctx)
		}()
		<-h.added
		waitSynced(reg.HasSynced)
		b.StopTimer()

		r.HeapPerObject = (float64(heapInUse()) - float64(before)) / float64(len(pods))

		if ph != 1 {
			b.StartTimer()
		}
		for i, p := range updated {
			events <- source.Event[*v1.Pod]{Type: source.Modified, Object: p, ResourceVersion: versions[i]}
		}
		<-h.updated
		b.StopTimer()

		r.Cached = inf.Lister().Len()
		cancel()
		<-done
		r.Adds, r.Updates = h.adds, h.updates
	}
	return r
}

// podPtrList is a list of pods whose Items are pointers (see above).
type podPtrList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []*v1.Pod `json:"items"`
}

// DeepCopyObject implements runtime.Object; client-go's reflector never
// calls it, so a shallow copy does.
func (l *podPtrList) DeepCopyObject() k8sruntime.Object {
	c := *l
	return &c
}

// listWatchWithoutWatchList is a cache.ListWatch that tells client-go's
// reflector not to try a watch-list stream first (the WatchListClient
// feature is on by default), so that it lists as ctrlkit's does.
type listWatchWithoutWatchList struct{ *cache.ListWatch }

func (listWatchWithoutWatchList) IsWatchListSemanticsUnSupported() bool { return true }

func w7Clientgo(b timer, ph phase, pods, updated []*v1.Pod, n int) w7Result {
	var r w7Result
	b.ResetTimer()
	b.StopTimer()
	for range n {
		fw := watch.NewFakeWithChanSize(len(updated), false)
		list := &podPtrList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: pods}
		lw := listWatchWithoutWatchList{&cache.ListWatch{
			ListWithContextFunc: func(context.Context, metav1.ListOptions) (k8sruntime.Object, error) {
				return list, nil
			},
			WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return fw, nil
			},
		}}
		h := newCountingHandler(len(pods))
		before := heapInUse()

		if ph != 2 {
			b.StartTimer()
		}
		inf := cache.NewSharedIndexInformer(lw, &v1.Pod{}, 0, cache.Indexers{
			cache.NamespaceIndex: cache.MetaNamespaceIndexFunc,
		})
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(any) { h.add() },
			UpdateFunc: func(_, _ any) { h.update() },
		})
		if err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			inf.RunWithContext(ctx)
		}()
		<-h.added
		waitSynced(reg.HasSynced)
		b.StopTimer()

		r.HeapPerObject = (float64(heapInUse()) - float64(before)) / float64(len(pods))

		if ph != 1 {
			b.StartTimer()
		}
		for _, p := range updated {
			fw.Modify(p)
		}
		<-h.updated
		b.StopTimer()

		r.Cached = len(inf.GetIndexer().ListKeys())
		cancel()
		<-done
		r.Adds, r.Updates = h.adds, h.updates
	}
	return r
}

func w7Inputs() (ps, updated []*v1.Pod) {
	ps = pods()[:numPods()]
	return ps, Relabeled(ps, 1, "2")
}

func BenchmarkW7Sync_ctrlkit(b *testing.B) {
	ps, up := w7Inputs()
	m := newMeter(b, len(ps))
	r := w7Ctrlkit(m, 1, ps, up, b.N)
	m.report()
	b.ReportMetric(r.HeapPerObject, "heapB/obj")
}

func BenchmarkW7Sync_clientgo(b *testing.B) {
	ps, up := w7Inputs()
	m := newMeter(b, len(ps))
	r := w7Clientgo(m, 1, ps, up, b.N)
	m.report()
	b.ReportMetric(r.HeapPerObject, "heapB/obj")
}

func BenchmarkW7Updates_ctrlkit(b *testing.B) {
	ps, up := w7Inputs()
	m := newMeter(b, len(ps))
	w7Ctrlkit(m, 2, ps, up, b.N)
	m.report()
}

func BenchmarkW7Updates_clientgo(b *testing.B) {
	ps, up := w7Inputs()
	m := newMeter(b, len(ps))
	w7Clientgo(m, 2, ps, up, b.N)
	m.report()
}
