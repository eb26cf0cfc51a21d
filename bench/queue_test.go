package bench

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/workqueue"
	cgworkqueue "k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
)

// The queues of both libraries are created without a name and without a
// metrics provider, so neither records metrics. client-go's side is the
// rate-limiting queue a controller uses (NewTypedRateLimitingQueue with
// DefaultTypedControllerRateLimiter), the counterpart of ctrlkit's single
// Queue type, which has delays and rate limiting built in.

func newCtrlkitQueue() *workqueue.Queue[string] {
	return workqueue.New(workqueue.Options[string]{})
}

func newClientgoQueue() cgworkqueue.TypedRateLimitingInterface[string] {
	return cgworkqueue.NewTypedRateLimitingQueue(cgworkqueue.DefaultTypedControllerRateLimiter[string]())
}

// W1: per op Add(key_i), Get, Done on one goroutine; keys cycle through
// len(keys) (a power of two) distinct keys. Returns how many Gets
// returned the key just added.

func w1Ctrlkit(b timer, keys []string, n int) int {
	mask := len(keys) - 1
	q := newCtrlkitQueue()
	got := 0
	b.ResetTimer()
	for i := range n {
		k := keys[i&mask]
		q.Add(k)
		item, _ := q.Get()
		if item == k {
			got++
		}
		q.Done(item)
	}
	b.StopTimer()
	q.ShutDown()
	return got
}

func w1Clientgo(b timer, keys []string, n int) int {
	mask := len(keys) - 1
	q := newClientgoQueue()
	got := 0
	b.ResetTimer()
	for i := range n {
		k := keys[i&mask]
		q.Add(k)
		item, _ := q.Get()
		if item == k {
			got++
		}
		q.Done(item)
	}
	b.StopTimer()
	q.ShutDown()
	return got
}

func w1Floor(b timer, keys []string, n int) int {
	mask := len(keys) - 1
	q := NewFloorQueue()
	got := 0
	b.ResetTimer()
	for i := range n {
		k := keys[i&mask]
		q.Add(k)
		item, _ := q.Get()
		if item == k {
			got++
		}
		q.Done(item)
	}
	b.StopTimer()
	q.ShutDown()
	return got
}

// W8 cycle: W1 on the priority queues.

func w8CycleControllerRuntime(b timer, keys []string, n int) int {
	mask := len(keys) - 1
	q := priorityqueue.New[string]("")
	got := 0
	b.ResetTimer()
	for i := range n {
		k := keys[i&mask]
		q.Add(k)
		item, _ := q.Get()
		if item == k {
			got++
		}
		q.Done(item)
	}
	b.StopTimer()
	q.ShutDown()
	return got
}

// W2: per op one round: add w2Keys keys w2Repeats times each (round
// robin) while nothing is processing, then Get+Done all of them. Returns
// the items handed out.

const (
	w2Keys    = 1000
	w2Repeats = 100
)

func w2Ctrlkit(b timer, keys []string, n int) int {
	keys = keys[:w2Keys]
	q := newCtrlkitQueue()
	got := 0
	b.ResetTimer()
	for range n {
		for range w2Repeats {
			for _, k := range keys {
				q.Add(k)
			}
		}
		for range keys {
			item, _ := q.Get()
			q.Done(item)
			got++
		}
	}
	b.StopTimer()
	q.ShutDown()
	return got
}

func w2Clientgo(b timer, keys []string, n int) int {
	keys = keys[:w2Keys]
	q := newClientgoQueue()
	got := 0
	b.ResetTimer()
	for range n {
		for range w2Repeats {
			for _, k := range keys {
				q.Add(k)
			}
		}
		for range keys {
			item, _ := q.Get()
			q.Done(item)
			got++
		}
	}
	b.StopTimer()
	q.ShutDown()
	return got
}

// parallelQueue is what the parallel workload needs of a queue. The
// interface call costs the same on every side.
type parallelQueue interface {
	Add(item string)
	Get() (string, bool)
	Done(item string)
	ShutDown()
}

// parallel (W3, W8 parallel) moves n items through q: 2 producers add
// distinct keys (i and i+2 alternate between them), 2 consumers Get and
// Done. The keys cycle through len(keys) distinct keys, so the items are
// moved in chunks of at most len(keys): a chunk ends when all its items
// were processed. Returns the number of items processed.
func parallel(b timer, q parallelQueue, keys []string, n int) int {
	var processed, target atomic.Int64
	chunkDone := make(chan struct{}, 1)
	var consumers sync.WaitGroup
	for range 2 {
		consumers.Go(func() {
			for {
				item, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(item)
				if processed.Add(1) == target.Load() {
					chunkDone <- struct{}{}
				}
			}
		})
	}
	b.ResetTimer()
	for start := 0; start < n; start += len(keys) {
		chunk := min(len(keys), n-start)
		target.Store(int64(start + chunk))
		var producers sync.WaitGroup
		for p := range 2 {
			producers.Go(func() {
				for i := p; i < chunk; i += 2 {
					q.Add(keys[i])
				}
			})
		}
		producers.Wait()
		<-chunkDone
	}
	b.StopTimer()
	q.ShutDown()
	consumers.Wait()
	return int(processed.Load())
}

func w3Ctrlkit(b timer, keys []string, n int) int {
	return parallel(b, newCtrlkitQueue(), keys, n)
}

func w3Clientgo(b timer, keys []string, n int) int {
	return parallel(b, newClientgoQueue(), keys, n)
}

func w3Floor(b timer, keys []string, n int) int {
	return parallel(b, NewFloorQueue(), keys, n)
}

func w8ParallelControllerRuntime(b timer, keys []string, n int) int {
	return parallel(b, priorityqueue.New[string](""), keys, n)
}

// W4a: per op AddRateLimited(k) then Forget(k), k cycling over 1,000
// keys, with each library's default controller rate limiter. Returns the
// sum of NumRequeues over the keys afterwards (0: every failure was
// forgotten).

const w4aKeys = 1000

func w4aCtrlkit(b timer, keys []string, n int) int {
	keys = keys[:w4aKeys]
	q := newCtrlkitQueue()
	b.ResetTimer()
	for i := range n {
		k := keys[i%w4aKeys]
		q.AddRateLimited(k)
		q.Forget(k)
	}
	b.StopTimer()
	sum := 0
	for _, k := range keys {
		sum += q.NumRequeues(k)
	}
	q.ShutDown()
	return sum
}

func w4aClientgo(b timer, keys []string, n int) int {
	keys = keys[:w4aKeys]
	q := newClientgoQueue()
	b.ResetTimer()
	for i := range n {
		k := keys[i%w4aKeys]
		q.AddRateLimited(k)
		q.Forget(k)
	}
	b.StopTimer()
	sum := 0
	for _, k := range keys {
		sum += q.NumRequeues(k)
	}
	q.ShutDown()
	return sum
}

// W4b: per op one round on a fresh queue: AddAfter(key_i, delay_i) for
// every key, delays spread over [1ms, 10ms) by a fixed xorshift sequence,
// then Get+Done until every item came out. Returns the items handed out.

func w4bDelays(n int) []time.Duration {
	ds := make([]time.Duration, n)
	x := uint64(88172645463325252)
	for i := range ds {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		ds[i] = time.Millisecond + time.Duration(x%uint64(9*time.Millisecond))
	}
	return ds
}

func w4bCtrlkit(b timer, keys []string, delays []time.Duration, n int) int {
	got := 0
	b.ResetTimer()
	for range n {
		q := newCtrlkitQueue()
		for i, k := range keys {
			q.AddAfter(k, delays[i])
		}
		for range keys {
			item, _ := q.Get()
			q.Done(item)
			got++
		}
		q.ShutDown()
	}
	b.StopTimer()
	return got
}

func w4bClientgo(b timer, keys []string, delays []time.Duration, n int) int {
	got := 0
	b.ResetTimer()
	for range n {
		q := newClientgoQueue()
		for i, k := range keys {
			q.AddAfter(k, delays[i])
		}
		for range keys {
			item, _ := q.Get()
			q.Done(item)
			got++
		}
		q.ShutDown()
	}
	b.StopTimer()
	return got
}

func BenchmarkW1Cycle_ctrlkit(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w1Ctrlkit(t, ks, b.N)
	t.report()
}

func BenchmarkW1Cycle_clientgo(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w1Clientgo(t, ks, b.N)
	t.report()
}

func BenchmarkW1Cycle_floor(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w1Floor(t, ks, b.N)
	t.report()
}

func BenchmarkW2Dedup_ctrlkit(b *testing.B) {
	ks := benchKeys()
	m := newMeter(b, w2Keys*w2Repeats)
	w2Ctrlkit(m, ks, b.N)
	m.report()
}

func BenchmarkW2Dedup_clientgo(b *testing.B) {
	ks := benchKeys()
	m := newMeter(b, w2Keys*w2Repeats)
	w2Clientgo(m, ks, b.N)
	m.report()
}

func BenchmarkW3Parallel_ctrlkit(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w3Ctrlkit(t, ks, b.N)
	t.report()
}

func BenchmarkW3Parallel_clientgo(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w3Clientgo(t, ks, b.N)
	t.report()
}

func BenchmarkW3Parallel_floor(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w3Floor(t, ks, b.N)
	t.report()
}

func BenchmarkW4aRateLimited_ctrlkit(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w4aCtrlkit(t, ks, b.N)
	t.report()
}

func BenchmarkW4aRateLimited_clientgo(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w4aClientgo(t, ks, b.N)
	t.report()
}

func BenchmarkW4bAddAfter_ctrlkit(b *testing.B) {
	items := benchSizes().delayed
	ks := benchKeys()[:items]
	ds := w4bDelays(items)
	m := newMeter(b, items)
	w4bCtrlkit(m, ks, ds, b.N)
	m.report()
}

func BenchmarkW4bAddAfter_clientgo(b *testing.B) {
	items := benchSizes().delayed
	ks := benchKeys()[:items]
	ds := w4bDelays(items)
	m := newMeter(b, items)
	w4bClientgo(m, ks, ds, b.N)
	m.report()
}

func BenchmarkW8Cycle_ctrlkit(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w1Ctrlkit(t, ks, b.N)
	t.report()
}

func BenchmarkW8Cycle_controllerruntime(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w8CycleControllerRuntime(t, ks, b.N)
	t.report()
}

func BenchmarkW8Parallel_ctrlkit(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w3Ctrlkit(t, ks, b.N)
	t.report()
}

func BenchmarkW8Parallel_controllerruntime(b *testing.B) {
	ks := benchKeys()
	t := newPerOp(b)
	w8ParallelControllerRuntime(t, ks, b.N)
	t.report()
}
