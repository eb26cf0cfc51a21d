package bench

import (
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The scale curve (issue 23): the informer of W7 at 10k, 100k and 1M
// pods, both sides in the same run. Each workload is a pair
// BenchmarkS<size><phase>_{ctrlkit,clientgo}; every iteration builds and
// syncs a fresh informer (untimed except in Sync) and then times its
// phase:
//
//   - Sync: list → synced, per pod; heapB/obj as W7.
//   - Relist: the watch fails with "expired" and the informer relists the
//     whole set, 1% of it changed (every 100th pod, a new app label and
//     resourceVersion "3"); timed from the second List call until the
//     handler has been notified of the last changed pod (the last in the
//     list), per listed pod. notes/obj is notifications per listed pod.
//   - ByNS: ByIndex("namespace", "ns-0") on the synced cache (1/5 of the
//     pods), per call, after one untimed call.
//   - Resync: two handlers with a resync period; timed from the first
//     resync notification until both have had one for every pod, per pod
//     and handler.
//   - Slow: a handler that blocks in its first call while the list and
//     one update per pod go by; pendB/key is the heap the pending
//     notifications take, per pending key (the heap with the backlog
//     minus the heap once it drained, both after two collections, over
//     the number of pods), and notes/obj the notifications the handler
//     then gets per pod (ctrlkit coalesces an add and its update).
//
// Sizes: S10k and S100k always; S1M when CTRLKIT_BENCH_1M=1 (run.sh adds
// its pairs then). Under -short or the race detector every size is 2,000
// pods, so that `go test -bench . -short` checks the bodies quickly;
// TestScaleSmoke runs every body once at that size and checks both sides
// agree.

// scaleSize is the number of pods a workload of nominal size n uses.
func scaleSize(n int) int {
	if testing.Short() || raceEnabled {
		return 2000
	}
	return n
}

// scaleInputs are the pods of one size and their changed versions,
// generated once per process (a process runs one size).
type scaleInputs struct {
	pods    []*v1.Pod
	relist  []*v1.Pod // pods, every 100th (i%100 == 99) relabeled at "3"
	changed int       // how many pods relist changes
	updated []*v1.Pod // every pod relabeled at "2" (Slow)
}

var scaleCache = struct {
	sync.Mutex
	m map[int]*scaleInputs
}{m: map[int]*scaleInputs{}}

func inputsFor(n int) *scaleInputs {
	scaleCache.Lock()
	defer scaleCache.Unlock()
	if in, ok := scaleCache.m[n]; ok {
		return in
	}
	_, ps := Pods(n)
	in := &scaleInputs{pods: ps, relist: make([]*v1.Pod, n)}
	copy(in.relist, ps)
	var idx []int
	var sel []*v1.Pod
	for i := 99; i < n; i += 100 {
		idx = append(idx, i)
		sel = append(sel, ps[i])
	}
	for j, p := range Relabeled(sel, 7, "3") {
		in.relist[idx[j]] = p
	}
	in.changed = len(idx)
	clear(scaleCache.m) // one size at a time
	scaleCache.m[n] = in
	return in
}

// scalePhase names the phase a scale body times.
type scalePhase int

const (
	phSync scalePhase = iota
	phRelist
	phByNS
	phResync
	phSlow
)

// scaleResult is what a scale body observed (its last iteration).
type scaleResult struct {
	Cached        int
	HeapPerObject float64 // Sync
	Notes         int     // Relist, Slow: notifications the phase gave
	ByNS          int     // ByNS: pods in ns-0
	ResyncNotes   [2]int  // Resync: per handler
	PendingBytes  float64 // Slow: per pending key
}

// scaleHandler counts notifications and lets a waiter know when the pod
// with key last has been notified at resourceVersion rv, or when counts
// reach a target. Its methods may be called from several goroutines (one
// per registration).
type scaleHandler struct {
	adds, updates, resyncs atomic.Int64
	last, rv               string
	lastSeen               chan struct{}
	lastOnce               sync.Once
	onResync               func() // called on every resync notification
	gate                   chan struct{}
	gateOnce               sync.Once
}

func newScaleHandler(last, rv string) *scaleHandler {
	return &scaleHandler{last: last, rv: rv, lastSeen: make(chan struct{})}
}

func (h *scaleHandler) note(p *v1.Pod) {
	if h.gate != nil {
		h.gateOnce.Do(func() { <-h.gate })
	}
	if p.ResourceVersion == h.rv && PodKey(p) == h.last {
		h.lastOnce.Do(func() { close(h.lastSeen) })
	}
}

func (h *scaleHandler) add(p *v1.Pod) { h.adds.Add(1); h.note(p) }

func (h *scaleHandler) update(old, p *v1.Pod) {
	if old == p {
		h.resyncs.Add(1)
		if h.onResync != nil {
			h.onResync()
		}
		return
	}
	h.updates.Add(1)
	h.note(p)
}

// waitFor polls cond, yielding, until it holds or a minute has passed.
// It sleeps between polls, so that in a synctest bubble (TestScaleSmoke)
// virtual time advances to the informers' timers.
func waitFor(what string, cond func() bool) {
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			panic("bench: timed out waiting for " + what)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// scaleResyncPeriod is the resync period of the Resync phase: client-go's
// minimum (1s), longer for large sizes so that one resync ends before the
// next begins.
func scaleResyncPeriod(n int) time.Duration {
	return max(time.Second, time.Duration(n)*10*time.Microsecond)
}

// scaleSide abstracts one library's informer for the scale bodies.
type scaleSide interface {
	// start builds and runs an informer over in.pods with the namespace
	// index and the handlers (their resync period resync, 0: none), and
	// waits until it has synced, and every handler too if wait.
	start(in *scaleInputs, resync time.Duration, wait bool, hs ...*scaleHandler)
	modify(p *v1.Pod) // a Modified event on the current watch
	expire()          // end the current watch with an "expired" error
	onList(f func())  // f runs at the start of every List call after this
	cachedRV(key string) string
	cachedCount() int
	byNS() int
	stop()
}

// scaleBody runs phase ph n times on side mk().
func scaleBody(m timer, ph scalePhase, size int, n int, mk func() scaleSide) scaleResult {
	in := inputsFor(size)
	var r scaleResult
	m.ResetTimer()
	m.StopTimer()
	last := PodKey(in.pods[size-1])
	for range n {
		s := mk()
		var hs []*scaleHandler
		var resync time.Duration
		resyncing := make(chan struct{}) // Resync: closed at the first resync notification
		switch ph {
		case phResync:
			hs = []*scaleHandler{newScaleHandler("", ""), newScaleHandler("", "")}
			resync = scaleResyncPeriod(size)
			// Set before the handlers run: the timer starts when the
			// first resync notification arrives.
			var once sync.Once
			for _, h := range hs {
				h.onResync = func() { once.Do(func() { close(resyncing) }) }
			}
		case phSlow:
			h := newScaleHandler(last, "2")
			h.gate = make(chan struct{})
			hs = []*scaleHandler{h}
		default:
			hs = []*scaleHandler{newScaleHandler(last, "3")}
		}
		before := heapInUse()
		if ph == phSync {
			m.StartTimer()
		}
		// A Slow handler blocks in its first call: start does not wait
		// for it to sync.
		s.start(in, resync, ph != phSlow, hs...)
		m.StopTimer()
		r.HeapPerObject = (float64(heapInUse()) - float64(before)) / float64(size)
		switch ph {
		case phRelist:
			h := hs[0]
			// A change first, so that the watch has progressed (ctrlkit
			// relists at once on an expired watch that had): pod 99, which
			// the relist changes again.
			p := in.pods[99].DeepCopy()
			p.ResourceVersion = "2"
			s.modify(p)
			waitFor("the first update", func() bool { return h.updates.Load() == 1 })
			h.updates.Store(0)
			h.adds.Store(0)
			var once sync.Once
			s.onList(func() { once.Do(m.StartTimer) })
			s.expire()
			<-h.lastSeen
			m.StopTimer()
			r.Notes = int(h.updates.Load() + h.adds.Load())
		case phByNS:
			// One untimed call first: ctrlkit's first ordered read after
			// the list folds the index logs (see indexer's doc), which
			// is the list's cost, not ByIndex's.
			r.ByNS = s.byNS()
			m.StartTimer()
			for range byNSCalls(size) {
				r.ByNS = s.byNS()
			}
			m.StopTimer()
		case phResync:
			<-resyncing
			m.StartTimer()
			waitFor("the resync", func() bool {
				return hs[0].resyncs.Load() >= int64(size) && hs[1].resyncs.Load() >= int64(size)
			})
			m.StopTimer()
			r.ResyncNotes = [2]int{int(hs[0].resyncs.Load()), int(hs[1].resyncs.Load())}
		case phSlow:
			h := hs[0]
			for _, p := range in.updated {
				s.modify(p)
			}
			waitFor("the updates to reach the cache", func() bool { return s.cachedRV(last) == "2" })
			backlog := heapInUse()
			close(h.gate)
			<-h.lastSeen
			drained := heapInUse()
			// heapB/obj: the cache and the backlog together.
			r.HeapPerObject = (float64(backlog) - float64(before)) / float64(size)
			r.PendingBytes = (float64(backlog) - float64(drained)) / float64(size)
			r.Notes = int(h.adds.Load() + h.updates.Load())
		}
		r.Cached = s.cachedCount()
		s.stop()
	}
	return r
}

// byNSCalls is how many ByIndex calls the ByNS phase makes: about 2M pods
// returned in all.
func byNSCalls(size int) int { return max(1, 2_000_000/(size/NumNamespaces)) }

// ---- ctrlkit ----

type ctrlkitScale struct {
	inf    *informer.Informer[*v1.Pod]
	cancel context.CancelFunc
	done   chan struct{}

	mu     sync.Mutex
	events chan source.Event[*v1.Pod] // the current watch's
	hook   atomic.Pointer[func()]
	items  []*v1.Pod // what List returns: pods, then relist
	rv     string
}

func (s *ctrlkitScale) start(in *scaleInputs, resync time.Duration, wait bool, hs ...*scaleHandler) {
	s.items, s.rv = in.pods, "1"
	lw := source.ListWatchFuncs[*v1.Pod]{
		ListFunc: func(context.Context, source.ListOptions) (source.List[*v1.Pod], error) {
			if f := s.hook.Load(); f != nil {
				(*f)()
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			items, rv := s.items, s.rv
			s.items, s.rv = in.relist, "3" // the next List relists
			return source.List[*v1.Pod]{Items: items, ResourceVersion: rv}, nil
		},
		WatchFunc: func(ctx context.Context, _ source.WatchOptions) (<-chan source.Event[*v1.Pod], error) {
			ch := make(chan source.Event[*v1.Pod], scaleWatchBuffer)
			s.mu.Lock()
			s.events = ch
			s.mu.Unlock()
			return ch, nil
		},
	}
	inf, err := informer.New(lw, PodKey, informer.Options[*v1.Pod]{
		Indexers: indexer.Indexers[*v1.Pod]{
			"namespace": func(p *v1.Pod) ([]string, error) { return []string{p.Namespace}, nil },
		},
		ResyncPeriod: resync,
	})
	if err != nil {
		panic(err)
	}
	var regs []*informer.Registration
	for _, h := range hs {
		reg, err := inf.AddEventHandler(informer.HandlerFuncs[*v1.Pod]{
			AddFunc:    func(p *v1.Pod, _ bool) { h.add(p) },
			UpdateFunc: h.update,
		}, informer.HandlerOptions{ResyncPeriod: resync})
		if err != nil {
			panic(err)
		}
		regs = append(regs, reg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.inf, s.cancel, s.done = inf, cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		_ = inf.Run(ctx)
	}()
	waitFor("sync", func() bool {
		if !inf.HasSynced() {
			return false
		}
		for _, r := range regs {
			if wait && !r.HasSynced() {
				return false
			}
		}
		return true
	})
}

func (s *ctrlkitScale) watch() chan source.Event[*v1.Pod] {
	var ch chan source.Event[*v1.Pod]
	waitFor("a watch", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		ch = s.events
		return ch != nil
	})
	return ch
}

func (s *ctrlkitScale) modify(p *v1.Pod) {
	s.watch() <- source.Event[*v1.Pod]{Type: source.Modified, Object: p, ResourceVersion: p.ResourceVersion}
}

func (s *ctrlkitScale) expire() {
	ch := s.watch()
	s.mu.Lock()
	s.events = nil
	s.mu.Unlock()
	ch <- source.Event[*v1.Pod]{Type: source.Error, Err: errExpired}
}

var errExpired = errors.Join(source.ErrExpired, errors.New("bench: too old resource version"))

func (s *ctrlkitScale) onList(f func())  { s.hook.Store(&f) }
func (s *ctrlkitScale) cachedCount() int { return s.inf.Lister().Len() }

func (s *ctrlkitScale) cachedRV(key string) string {
	rv, _ := s.inf.CachedResourceVersion(key)
	return rv
}

func (s *ctrlkitScale) byNS() int {
	ps, err := s.inf.Lister().ByIndex("namespace", "ns-0")
	if err != nil {
		panic(err)
	}
	return len(ps)
}

func (s *ctrlkitScale) stop() { s.cancel(); <-s.done }

// ---- the benchmarks ----

func newCtrlkitScale() scaleSide  { return &ctrlkitScale{} }
func newClientgoScale() scaleSide { return &clientgoScale{} }

// runScale runs one workload of the scale curve and reports its metrics.
func runScale(b *testing.B, nominal int, ph scalePhase, mk func() scaleSide) {
	size := scaleSize(nominal)
	inputsFor(size) // untimed
	if ph == phSlow {
		in := inputsFor(size)
		if in.updated == nil {
			in.updated = Relabeled(in.pods, 1, "2")
		}
	}
	units := size
	switch ph {
	case phByNS:
		units = byNSCalls(size)
	case phResync:
		units = 2 * size
	}
	m := newMeter(b, units)
	r := scaleBody(m, ph, size, b.N, mk)
	m.report()
	switch ph {
	case phSync:
		b.ReportMetric(r.HeapPerObject, "heapB/obj")
	case phResync:
		b.ReportMetric(float64(r.ResyncNotes[0]+r.ResyncNotes[1])/float64(2*size), "notes/obj")
	case phRelist:
		b.ReportMetric(float64(r.Notes)/float64(size), "notes/obj")
	case phSlow:
		b.ReportMetric(r.HeapPerObject, "heapB/obj")
		b.ReportMetric(r.PendingBytes, "pendB/key")
		b.ReportMetric(float64(r.Notes)/float64(size), "notes/obj")
	}
}

// scale1M reports whether the 1M sizes are enabled (CTRLKIT_BENCH_1M=1);
// without it their benchmarks run at 100k, so that `go test -bench .`
// stays within a small machine.
func scale1M() int {
	if v, _ := strconv.ParseBool(os.Getenv("CTRLKIT_BENCH_1M")); v {
		return 1_000_000
	}
	return 100_000
}

func BenchmarkS10kSync_ctrlkit(b *testing.B)    { runScale(b, 10_000, phSync, newCtrlkitScale) }
func BenchmarkS10kSync_clientgo(b *testing.B)   { runScale(b, 10_000, phSync, newClientgoScale) }
func BenchmarkS10kRelist_ctrlkit(b *testing.B)  { runScale(b, 10_000, phRelist, newCtrlkitScale) }
func BenchmarkS10kRelist_clientgo(b *testing.B) { runScale(b, 10_000, phRelist, newClientgoScale) }
func BenchmarkS10kByNS_ctrlkit(b *testing.B)    { runScale(b, 10_000, phByNS, newCtrlkitScale) }
func BenchmarkS10kByNS_clientgo(b *testing.B)   { runScale(b, 10_000, phByNS, newClientgoScale) }
func BenchmarkS10kResync_ctrlkit(b *testing.B)  { runScale(b, 10_000, phResync, newCtrlkitScale) }
func BenchmarkS10kResync_clientgo(b *testing.B) { runScale(b, 10_000, phResync, newClientgoScale) }
func BenchmarkS10kSlow_ctrlkit(b *testing.B)    { runScale(b, 10_000, phSlow, newCtrlkitScale) }
func BenchmarkS10kSlow_clientgo(b *testing.B)   { runScale(b, 10_000, phSlow, newClientgoScale) }

func BenchmarkS100kSync_ctrlkit(b *testing.B)    { runScale(b, 100_000, phSync, newCtrlkitScale) }
func BenchmarkS100kSync_clientgo(b *testing.B)   { runScale(b, 100_000, phSync, newClientgoScale) }
func BenchmarkS100kRelist_ctrlkit(b *testing.B)  { runScale(b, 100_000, phRelist, newCtrlkitScale) }
func BenchmarkS100kRelist_clientgo(b *testing.B) { runScale(b, 100_000, phRelist, newClientgoScale) }
func BenchmarkS100kByNS_ctrlkit(b *testing.B)    { runScale(b, 100_000, phByNS, newCtrlkitScale) }
func BenchmarkS100kByNS_clientgo(b *testing.B)   { runScale(b, 100_000, phByNS, newClientgoScale) }
func BenchmarkS100kResync_ctrlkit(b *testing.B)  { runScale(b, 100_000, phResync, newCtrlkitScale) }
func BenchmarkS100kResync_clientgo(b *testing.B) { runScale(b, 100_000, phResync, newClientgoScale) }
func BenchmarkS100kSlow_ctrlkit(b *testing.B)    { runScale(b, 100_000, phSlow, newCtrlkitScale) }
func BenchmarkS100kSlow_clientgo(b *testing.B)   { runScale(b, 100_000, phSlow, newClientgoScale) }

func BenchmarkS1MSync_ctrlkit(b *testing.B)    { runScale(b, scale1M(), phSync, newCtrlkitScale) }
func BenchmarkS1MSync_clientgo(b *testing.B)   { runScale(b, scale1M(), phSync, newClientgoScale) }
func BenchmarkS1MRelist_ctrlkit(b *testing.B)  { runScale(b, scale1M(), phRelist, newCtrlkitScale) }
func BenchmarkS1MRelist_clientgo(b *testing.B) { runScale(b, scale1M(), phRelist, newClientgoScale) }
func BenchmarkS1MByNS_ctrlkit(b *testing.B)    { runScale(b, scale1M(), phByNS, newCtrlkitScale) }
func BenchmarkS1MByNS_clientgo(b *testing.B)   { runScale(b, scale1M(), phByNS, newClientgoScale) }
func BenchmarkS1MResync_ctrlkit(b *testing.B)  { runScale(b, scale1M(), phResync, newCtrlkitScale) }
func BenchmarkS1MResync_clientgo(b *testing.B) { runScale(b, scale1M(), phResync, newClientgoScale) }
func BenchmarkS1MSlow_ctrlkit(b *testing.B)    { runScale(b, scale1M(), phSlow, newCtrlkitScale) }
func BenchmarkS1MSlow_clientgo(b *testing.B)   { runScale(b, scale1M(), phSlow, newClientgoScale) }

// TestScaleSmoke runs every scale body once, small, on both sides, and
// checks that they agree on what the cache holds and what the handlers
// were told.
func TestScaleSmoke(t *testing.T) {
	synctest.Test(t, scaleSmoke)
}

func scaleSmoke(t *testing.T) {
	const size = 2000
	in := inputsFor(size)
	in.updated = Relabeled(in.pods, 1, "2")
	for _, ph := range []scalePhase{phSync, phRelist, phByNS, phResync, phSlow} {
		ck := scaleBody(nopTimer{}, ph, size, 1, newCtrlkitScale)
		cg := scaleBody(nopTimer{}, ph, size, 1, newClientgoScale)
		for _, r := range []scaleResult{ck, cg} {
			if r.Cached != size {
				t.Fatalf("phase %d: %d cached, want %d", ph, r.Cached, size)
			}
		}
		switch ph {
		case phRelist:
			// Both notify the changed pods only (client-go skips a
			// Replaced delta whose resourceVersion is the cached one for
			// handlers without a due resync).
			if ck.Notes != in.changed || cg.Notes != in.changed {
				t.Fatalf("relist: notifications ctrlkit %d, client-go %d, want %d", ck.Notes, cg.Notes, in.changed)
			}
		case phByNS:
			if ck.ByNS != size/NumNamespaces || cg.ByNS != size/NumNamespaces {
				t.Fatalf("ByNS: ctrlkit %d, client-go %d, want %d", ck.ByNS, cg.ByNS, size/NumNamespaces)
			}
		case phResync:
			for _, r := range []scaleResult{ck, cg} {
				if r.ResyncNotes[0] < size || r.ResyncNotes[1] < size {
					t.Fatalf("resync: %v notifications, want %d each", r.ResyncNotes, size)
				}
			}
		case phSlow:
			// ctrlkit coalesces each pending add with its update, except
			// for the keys of the batch the blocked handler had already
			// taken (at most 64: their updates come apart); client-go
			// delivers both.
			if ck.Notes < size+1 || ck.Notes > size+64 || cg.Notes != 2*size {
				t.Fatalf("slow: notifications ctrlkit %d (want %d..%d), client-go %d (want %d)",
					ck.Notes, size+1, size+64, cg.Notes, 2*size)
			}
		}
	}
	runtime.GC()
}

// scaleWatchBuffer is the capacity of a scale watch's channel: small, so
// that it is not counted as the informer's heap; senders wait for the
// informer to take events.
const scaleWatchBuffer = 1024
