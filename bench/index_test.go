package bench

import (
	"runtime"
	"testing"

	"github.com/ctrlkit/ctrlkit/indexer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// W6: an indexer with a "namespace" index and an "app" index (the app
// label). The index funcs are the same on both sides: client-go's
// MetaNamespaceIndexFunc and its ctrlkit equivalent, and one that
// returns the app label.

func ctrlkitIndexers() indexer.Indexers[*v1.Pod] {
	return indexer.Indexers[*v1.Pod]{
		"namespace": func(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
		"app":       func(p *v1.Pod) ([]string, error) { return []string{p.Labels["app"]}, nil },
	}
}

func clientgoIndexers() cache.Indexers {
	return cache.Indexers{
		"namespace": cache.MetaNamespaceIndexFunc,
		"app":       func(obj any) ([]string, error) { return []string{obj.(*v1.Pod).Labels["app"]}, nil },
	}
}

func ctrlkitIndexed(pods []*v1.Pod) *indexer.Indexer[*v1.Pod] {
	x := newCtrlkitIndexer(ctrlkitIndexers())
	for _, p := range pods {
		if err := x.Add(p); err != nil {
			panic(err)
		}
	}
	return x
}

func clientgoIndexed(pods []*v1.Pod) cache.Indexer {
	x := cache.NewIndexer(cache.MetaNamespaceKeyFunc, clientgoIndexers())
	for _, p := range pods {
		if err := x.Add(p); err != nil {
			panic(err)
		}
	}
	return x
}

// indexResult is what a W6 body observed.
type indexResult struct {
	Len, Found int
}

// W6 add: per op a fresh indexer, Add every pod. Returns the size.

func w6AddCtrlkit(b timer, pods []*v1.Pod, n int) indexResult {
	var x *indexer.Indexer[*v1.Pod]
	b.ResetTimer()
	for range n {
		x = ctrlkitIndexed(pods)
	}
	b.StopTimer()
	return indexResult{Len: x.Len()}
}

func w6AddClientgo(b timer, pods []*v1.Pod, n int) indexResult {
	var x cache.Indexer
	b.ResetTimer()
	for range n {
		x = clientgoIndexed(pods)
	}
	b.StopTimer()
	return indexResult{Len: len(x.ListKeys())}
}

// W6 by index: on an indexer holding every pod, per op one ByIndex of
// index name for values[i%len(values)]. Returns the objects found.

func w6ByIndexCtrlkit(b timer, pods []*v1.Pod, name string, values []string, n int) indexResult {
	x := ctrlkitIndexed(pods)
	found := 0
	b.ResetTimer()
	for i := range n {
		objs, err := x.ByIndex(name, values[i%len(values)])
		if err != nil {
			panic(err)
		}
		found += len(objs)
	}
	b.StopTimer()
	return indexResult{Len: x.Len(), Found: found}
}

func w6ByIndexClientgo(b timer, pods []*v1.Pod, name string, values []string, n int) indexResult {
	x := clientgoIndexed(pods)
	found := 0
	b.ResetTimer()
	for i := range n {
		objs, err := x.ByIndex(name, values[i%len(values)])
		if err != nil {
			panic(err)
		}
		found += len(objs)
	}
	b.StopTimer()
	return indexResult{Len: len(x.ListKeys()), Found: found}
}

// W6 update: on an indexer holding every pod, per op Update every pod
// with a copy whose app label changed (ops alternate between the two
// versions, so every Update moves the pod between app values). Returns
// the size and the pods found under the app of pod 0 afterwards.

func w6UpdateCtrlkit(b timer, versions [2][]*v1.Pod, n int) indexResult {
	x := ctrlkitIndexed(versions[0])
	b.ResetTimer()
	for i := range n {
		for _, p := range versions[(i+1)%2] {
			if err := x.Update(p); err != nil {
				panic(err)
			}
		}
	}
	b.StopTimer()
	objs, err := x.ByIndex("app", versions[n%2][0].Labels["app"])
	if err != nil {
		panic(err)
	}
	return indexResult{Len: x.Len(), Found: len(objs)}
}

func w6UpdateClientgo(b timer, versions [2][]*v1.Pod, n int) indexResult {
	x := clientgoIndexed(versions[0])
	b.ResetTimer()
	for i := range n {
		for _, p := range versions[(i+1)%2] {
			if err := x.Update(p); err != nil {
				panic(err)
			}
		}
	}
	b.StopTimer()
	objs, err := x.ByIndex("app", versions[n%2][0].Labels["app"])
	if err != nil {
		panic(err)
	}
	return indexResult{Len: len(x.ListKeys()), Found: len(objs)}
}

// W6 bytes: the live heap an indexer holding every pod adds, measured
// after GC, the pods (allocated before) excluded: keys, entries, indexes.
// Returns bytes per object.

func w6BytesCtrlkit(pods []*v1.Pod) float64 {
	before := heapInUse()
	x := ctrlkitIndexed(pods)
	after := heapInUse()
	runtime.KeepAlive(x)
	return (float64(after) - float64(before)) / float64(len(pods))
}

func w6BytesClientgo(pods []*v1.Pod) float64 {
	before := heapInUse()
	x := clientgoIndexed(pods)
	after := heapInUse()
	runtime.KeepAlive(x)
	return (float64(after) - float64(before)) / float64(len(pods))
}

func namespaces() []string {
	out := make([]string, NumNamespaces)
	for i := range out {
		out[i] = Namespace(i)
	}
	return out
}

func apps() []string {
	out := make([]string, NumApps)
	for i := range out {
		out[i] = App(i, 0)
	}
	return out
}

func relabeled(ps []*v1.Pod) [2][]*v1.Pod {
	return [2][]*v1.Pod{ps, Relabeled(ps, 1, "2")}
}

func BenchmarkW6Add_ctrlkit(b *testing.B) {
	ps := pods()[:numPods()]
	m := newMeter(b, len(ps))
	w6AddCtrlkit(m, ps, b.N)
	m.report()
}

func BenchmarkW6Add_clientgo(b *testing.B) {
	ps := pods()[:numPods()]
	m := newMeter(b, len(ps))
	w6AddClientgo(m, ps, b.N)
	m.report()
}

func BenchmarkW6ByNamespace_ctrlkit(b *testing.B) {
	t := newPerOp(b)
	w6ByIndexCtrlkit(t, pods()[:numPods()], "namespace", namespaces(), b.N)
	t.report()
}

func BenchmarkW6ByNamespace_clientgo(b *testing.B) {
	t := newPerOp(b)
	w6ByIndexClientgo(t, pods()[:numPods()], "namespace", namespaces(), b.N)
	t.report()
}

func BenchmarkW6ByApp_ctrlkit(b *testing.B) {
	t := newPerOp(b)
	w6ByIndexCtrlkit(t, pods()[:numPods()], "app", apps(), b.N)
	t.report()
}

func BenchmarkW6ByApp_clientgo(b *testing.B) {
	t := newPerOp(b)
	w6ByIndexClientgo(t, pods()[:numPods()], "app", apps(), b.N)
	t.report()
}

func BenchmarkW6Update_ctrlkit(b *testing.B) {
	vs := relabeled(pods()[:numPods()])
	m := newMeter(b, numPods())
	w6UpdateCtrlkit(m, vs, b.N)
	m.report()
}

func BenchmarkW6Update_clientgo(b *testing.B) {
	vs := relabeled(pods()[:numPods()])
	m := newMeter(b, numPods())
	w6UpdateClientgo(m, vs, b.N)
	m.report()
}

func BenchmarkW6Bytes_ctrlkit(b *testing.B) {
	ps := pods()[:numPods()]
	sum := 0.0
	for range b.N {
		sum += w6BytesCtrlkit(ps)
	}
	b.ReportMetric(sum/float64(b.N), "heapB/obj")
}

func BenchmarkW6Bytes_clientgo(b *testing.B) {
	ps := pods()[:numPods()]
	sum := 0.0
	for range b.N {
		sum += w6BytesClientgo(ps)
	}
	b.ReportMetric(sum/float64(b.N), "heapB/obj")
}
