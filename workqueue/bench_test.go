package workqueue

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

const benchKeys = 1 << 20

// keys are 1M distinct, individually allocated keys shaped like
// namespace/name, as a controller's queue holds.
var keys = sync.OnceValue(func() []string {
	ks := make([]string, benchKeys)
	for i := range ks {
		ks[i] = "namespace-" + strconv.Itoa(i%97) + "/object-" + strconv.Itoa(i)
	}
	return ks
})

// BenchmarkCycle is Add+Get+Done of distinct keys on one goroutine.
func BenchmarkCycle(b *testing.B) {
	ks := keys()
	q := New(Options[string]{})
	b.ReportAllocs()
	cpu := reportCPU(b)
	i := 0
	for b.Loop() {
		k := ks[i&(benchKeys-1)]
		i++
		q.Add(k)
		item, _ := q.Get()
		q.Done(item)
	}
	cpu()
	q.ShutDown()
}

// BenchmarkCycleBaseline is the same cycle on a bare mutex+slice+map
// queue with client-go's dirty/processing sets and a sync.Cond, for a
// ratio in the same run on a noisy machine.
func BenchmarkCycleBaseline(b *testing.B) {
	ks := keys()
	q := newBaseline()
	b.ReportAllocs()
	cpu := reportCPU(b)
	i := 0
	for b.Loop() {
		k := ks[i&(benchKeys-1)]
		i++
		q.add(k)
		item, _ := q.get()
		q.done(item)
	}
	cpu()
}

// BenchmarkParallel: 2 producers add distinct keys, 2 consumers Get+Done;
// ns/op is per item.
func BenchmarkParallel(b *testing.B) {
	ks := keys()
	b.ReportAllocs()
	q := New(Options[string]{})
	runParallel(b, ks, func(k string) { q.Add(k) }, func() bool {
		item, shutdown := q.Get()
		if shutdown {
			return false
		}
		q.Done(item)
		return true
	}, q.ShutDownWithDrain)
}

// BenchmarkParallelBaseline is BenchmarkParallel on the baseline queue.
func BenchmarkParallelBaseline(b *testing.B) {
	ks := keys()
	b.ReportAllocs()
	q := newBaseline()
	runParallel(b, ks, q.add, func() bool {
		item, shutdown := q.get()
		if shutdown {
			return false
		}
		q.done(item)
		return true
	}, q.shutDown)
}

// BenchmarkPriorityParallel: 2 producers add distinct keys with three
// priorities, 2 consumers GetWithPriority+Done.
func BenchmarkPriorityParallel(b *testing.B) {
	ks := keys()
	b.ReportAllocs()
	q := New(Options[string]{})
	n := 0
	var mu sync.Mutex
	runParallel(b, ks, func(k string) {
		mu.Lock()
		n++
		p := n % 3
		mu.Unlock()
		q.AddWithOptions(k, AddOptions{Priority: p})
	}, func() bool {
		item, _, shutdown := q.GetWithPriority()
		if shutdown {
			return false
		}
		q.Done(item)
		return true
	}, q.ShutDownWithDrain)
}

func runParallel(b *testing.B, ks []string, add func(string), work func() bool, drain func()) {
	var wg sync.WaitGroup
	b.ResetTimer()
	defer reportCPU(b)()
	for range 2 {
		wg.Go(func() {
			for work() {
			}
		})
	}
	var pw sync.WaitGroup
	for p := range 2 {
		pw.Go(func() {
			for i := p; i < b.N; i += 2 {
				add(ks[i&(benchKeys-1)])
			}
		})
	}
	pw.Wait()
	drain()
	wg.Wait()
}

// BenchmarkRateLimited is AddRateLimited+Forget over 1000 keys with the
// default controller limiter.
func BenchmarkRateLimited(b *testing.B) {
	ks := keys()[:1000]
	q := New(Options[string]{})
	b.ReportAllocs()
	cpu := reportCPU(b)
	i := 0
	for b.Loop() {
		k := ks[i%1000]
		i++
		q.AddRateLimited(k)
		q.Forget(k)
	}
	cpu()
	q.ShutDown()
}

// BenchmarkAddAfterDrain adds 100k items with delays spread over 1–10ms,
// then Gets and Dones them all, in rounds; ns/op is per item.
func BenchmarkAddAfterDrain(b *testing.B) {
	const n = 100_000
	ks := keys()[:n]
	delays := make([]time.Duration, n)
	x := uint64(1)
	for i := range delays {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		delays[i] = time.Millisecond + time.Duration(x%uint64(9*time.Millisecond))
	}
	q := New(Options[string]{})
	b.ReportAllocs()
	b.ResetTimer()
	defer reportCPU(b)()
	for left := b.N; left > 0; left -= n {
		round := ks[:min(n, left)]
		for j, k := range round {
			q.AddAfter(k, delays[j])
		}
		for range round {
			item, _ := q.Get()
			q.Done(item)
		}
	}
	q.ShutDown()
}

// BenchmarkPriorityCycle is AddWithOptions (three priorities)+
// GetWithPriority+Done of distinct keys on one goroutine.
func BenchmarkPriorityCycle(b *testing.B) {
	ks := keys()
	q := New(Options[string]{})
	b.ReportAllocs()
	cpu := reportCPU(b)
	i := 0
	for b.Loop() {
		k := ks[i&(benchKeys-1)]
		q.AddWithOptions(k, AddOptions{Priority: i % 3})
		i++
		item, _, _ := q.GetWithPriority()
		q.Done(item)
	}
	cpu()
	q.ShutDown()
}

// baseline is client-go's queue shape reduced to its bones.
type baseline struct {
	mu         sync.Mutex
	cond       sync.Cond
	queue      []string
	dirty      map[string]struct{}
	processing map[string]struct{}
	shut       bool
}

func newBaseline() *baseline {
	q := &baseline{dirty: map[string]struct{}{}, processing: map[string]struct{}{}}
	q.cond.L = &q.mu
	return q
}

func (q *baseline) add(k string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shut {
		return
	}
	if _, ok := q.dirty[k]; ok {
		return
	}
	q.dirty[k] = struct{}{}
	if _, ok := q.processing[k]; ok {
		return
	}
	q.queue = append(q.queue, k)
	q.cond.Signal()
}

func (q *baseline) get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.shut {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		return "", true
	}
	k := q.queue[0]
	q.queue[0] = ""
	q.queue = q.queue[1:]
	q.processing[k] = struct{}{}
	delete(q.dirty, k)
	return k, false
}

func (q *baseline) done(k string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, k)
	if _, ok := q.dirty[k]; ok {
		q.queue = append(q.queue, k)
		q.cond.Signal()
	} else if len(q.processing) == 0 {
		q.cond.Signal()
	}
}

func (q *baseline) shutDown() {
	q.mu.Lock()
	q.shut = true
	q.cond.Broadcast()
	q.mu.Unlock()
	for {
		q.mu.Lock()
		n := len(q.queue) + len(q.processing)
		q.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(time.Millisecond)
	}
}
