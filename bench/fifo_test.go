package bench

import (
	"context"
	"testing"

	"github.com/ctrlkit/ctrlkit/deltafifo"
	"github.com/ctrlkit/ctrlkit/indexer"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// fifoResult counts what the Pops of a fifo workload handed out.
type fifoResult struct {
	Keys, Added, Replaced, Deleted, Inferred int
}

// Each side's fifo has its own library's indexer as KnownObjects, and
// client-go's fifo emits Replaced deltas (as an informer's does).

func newCtrlkitFifo(known *indexer.Indexer[*v1.Pod]) *deltafifo.DeltaFIFO[*v1.Pod] {
	f, err := deltafifo.New(PodKey, deltafifo.Options[*v1.Pod]{KnownObjects: known})
	if err != nil {
		panic(err)
	}
	return f
}

func newClientgoFifo(known cache.Indexer) *cache.DeltaFIFO {
	return cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{
		KeyFunction:           cache.MetaNamespaceKeyFunc,
		KnownObjects:          known,
		EmitDeltaTypeReplaced: true,
	})
}

func newCtrlkitIndexer(idx indexer.Indexers[*v1.Pod]) *indexer.Indexer[*v1.Pod] {
	x, err := indexer.New(PodKey, idx)
	if err != nil {
		panic(err)
	}
	return x
}

func (r *fifoResult) ctrlkit(d deltafifo.Deltas[*v1.Pod], _ bool) error {
	r.Keys++
	for _, x := range d {
		switch x.Type {
		case deltafifo.Added:
			r.Added++
		case deltafifo.Replaced:
			r.Replaced++
		case deltafifo.Deleted:
			r.Deleted++
			if x.FinalStateUnknown {
				r.Inferred++
			}
		}
	}
	return nil
}

func (r *fifoResult) clientgo(obj any, _ bool) error {
	r.Keys++
	for _, x := range obj.(cache.Deltas) {
		switch x.Type {
		case cache.Added:
			r.Added++
		case cache.Replaced:
			r.Replaced++
		case cache.Deleted:
			r.Deleted++
			if _, ok := x.Object.(cache.DeletedFinalStateUnknown); ok {
				r.Inferred++
			}
		}
	}
	return nil
}

// W5a: per op, on a fresh fifo whose KnownObjects is an empty indexer:
// Add every pod (with its own resourceVersion), then Pop every key with
// a process func that only counts.

func w5aCtrlkit(b timer, pods []*v1.Pod, n int) fifoResult {
	ctx := context.Background()
	versions := rvs(2, len(pods))
	known := newCtrlkitIndexer(nil)
	var r fifoResult
	b.ResetTimer()
	for range n {
		f := newCtrlkitFifo(known)
		for i, p := range pods {
			if err := f.Add(p, versions[i]); err != nil {
				panic(err)
			}
		}
		for range pods {
			if err := f.Pop(ctx, r.ctrlkit); err != nil {
				panic(err)
			}
		}
	}
	b.StopTimer()
	return r
}

func w5aClientgo(b timer, pods []*v1.Pod, n int) fifoResult {
	known := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	var r fifoResult
	b.ResetTimer()
	for range n {
		f := newClientgoFifo(known)
		for _, p := range pods {
			if err := f.Add(p); err != nil {
				panic(err)
			}
		}
		for range pods {
			if _, err := f.Pop(r.clientgo); err != nil {
				panic(err)
			}
		}
	}
	b.StopTimer()
	return r
}

// w5bLists splits pods (len ≥ 1.1·known) into the known objects
// (pods[:known]) and the new list: the known pods except every tenth,
// plus pods[known:known+known/10] — as many as there are known objects,
// a tenth of which are new and a tenth missing (their deletes inferred).
// pops is the number of keys the fifo then holds.
func w5bLists(pods []*v1.Pod, known int) (have, list []*v1.Pod, pops int) {
	have = pods[:known]
	for i, p := range have {
		if i%10 != 0 {
			list = append(list, p)
		}
	}
	missing := known - len(list)
	list = append(list, pods[known:known+missing]...)
	return have, list, len(list) + missing
}

// W5b: per op, on a fresh fifo whose KnownObjects (the side's indexer)
// holds the known pods: Replace with the new list, then Pop every key.

func w5bCtrlkit(b timer, have, list []*v1.Pod, pops, n int) fifoResult {
	ctx := context.Background()
	known := newCtrlkitIndexer(nil)
	if err := known.Replace(have, "1"); err != nil {
		panic(err)
	}
	var r fifoResult
	b.ResetTimer()
	for range n {
		f := newCtrlkitFifo(known)
		if err := f.Replace(list, "2"); err != nil {
			panic(err)
		}
		for range pops {
			if err := f.Pop(ctx, r.ctrlkit); err != nil {
				panic(err)
			}
		}
	}
	b.StopTimer()
	return r
}

func w5bClientgo(b timer, have, list []*v1.Pod, pops, n int) fifoResult {
	known := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	objs := make([]any, len(have))
	for i, p := range have {
		objs[i] = p
	}
	if err := known.Replace(objs, "1"); err != nil {
		panic(err)
	}
	listed := make([]any, len(list))
	for i, p := range list {
		listed[i] = p
	}
	var r fifoResult
	b.ResetTimer()
	for range n {
		f := newClientgoFifo(known)
		if err := f.Replace(listed, "2"); err != nil {
			panic(err)
		}
		for range pops {
			if _, err := f.Pop(r.clientgo); err != nil {
				panic(err)
			}
		}
	}
	b.StopTimer()
	return r
}

func BenchmarkW5aFifoAddPop_ctrlkit(b *testing.B) {
	ps := pods()[:numPods()]
	m := newMeter(b, len(ps))
	w5aCtrlkit(m, ps, b.N)
	m.report()
}

func BenchmarkW5aFifoAddPop_clientgo(b *testing.B) {
	ps := pods()[:numPods()]
	m := newMeter(b, len(ps))
	w5aClientgo(m, ps, b.N)
	m.report()
}

func BenchmarkW5bFifoReplace_ctrlkit(b *testing.B) {
	have, list, pops := w5bLists(pods(), numPods())
	m := newMeter(b, len(list))
	w5bCtrlkit(m, have, list, pops, b.N)
	m.report()
}

func BenchmarkW5bFifoReplace_clientgo(b *testing.B) {
	have, list, pops := w5bLists(pods(), numPods())
	m := newMeter(b, len(list))
	w5bClientgo(m, have, list, pops, b.N)
	m.report()
}
