package bench

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// timer is the part of *testing.B a workload body uses: it prepares its
// inputs, calls ResetTimer, runs the timed part and calls StopTimer
// before cleaning up. The smoke test passes nopTimer.
type timer interface {
	ResetTimer()
	StartTimer()
	StopTimer()
}

type nopTimer struct{}

func (nopTimer) ResetTimer() {}
func (nopTimer) StartTimer() {}
func (nopTimer) StopTimer()  {}

// sizes are the sizes of the benchmarks' inputs: those of the issue
// (NumKeys keys, NumPods pods, W4B's 100k items), or small ones under
// -short and the race detector, so that `go test -race -bench .
// -benchtime=1x` checks the harness quickly (timings under the race
// detector mean nothing anyway).
type sizes struct{ keys, pods, delayed int }

var benchSizes = sync.OnceValue(func() sizes {
	if testing.Short() || raceEnabled {
		return sizes{keys: 1 << 12, pods: 2000, delayed: 2000}
	}
	return sizes{keys: NumKeys, pods: NumPods, delayed: 100_000}
})

// numPods is the number of pods of the fifo, indexer and informer
// benchmarks.
func numPods() int { return benchSizes().pods }

// Inputs, generated once per process and shared by both sides of a pair.
var (
	benchKeys = sync.OnceValue(func() []string { return Keys(benchSizes().keys) })
	// benchPods are numPods()·1.1 pods: W5b lists the extra tenth.
	benchPods = sync.OnceValues(func() ([]v1.Pod, []*v1.Pod) { return Pods(numPods() + numPods()/10) })
)

func pods() []*v1.Pod { _, p := benchPods(); return p }

// rvs returns n resourceVersions "from".."from+n-1".
func rvs(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(from + i)
	}
	return out
}

// meter wraps *testing.B for workloads whose op is a batch of units
// (objects, items): besides the usual per-op numbers it reports ns, B,
// allocs and CPU time per unit, over the timed part only.
type meter struct {
	b       *testing.B
	units   int
	running bool
	t0      time.Time
	cpu0    int64
	ms0     runtime.MemStats
	ns      int64
	cpu     int64
	bytes   uint64
	allocs  uint64
}

func newMeter(b *testing.B, units int) *meter {
	b.ReportAllocs()
	m := &meter{b: b, units: units, running: true}
	m.mark()
	return m
}

func (m *meter) mark() {
	runtime.ReadMemStats(&m.ms0)
	m.cpu0 = cpuNanos()
	m.t0 = time.Now()
}

func (m *meter) ResetTimer() {
	m.b.ResetTimer()
	m.ns, m.cpu, m.bytes, m.allocs = 0, 0, 0, 0
	if m.running {
		m.mark()
	}
}

func (m *meter) StartTimer() {
	if !m.running {
		m.b.StartTimer()
		m.running = true
		m.mark()
	}
}

func (m *meter) StopTimer() {
	if !m.running {
		return
	}
	m.ns += time.Since(m.t0).Nanoseconds()
	m.cpu += cpuNanos() - m.cpu0
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.bytes += ms.TotalAlloc - m.ms0.TotalAlloc
	m.allocs += ms.Mallocs - m.ms0.Mallocs
	m.running = false
	m.b.StopTimer()
}

// report adds the per-unit metrics; call it after the body returned.
func (m *meter) report() {
	m.StopTimer()
	n := float64(m.b.N) * float64(m.units)
	if n == 0 {
		return
	}
	m.b.ReportMetric(float64(m.ns)/n, "ns/obj")
	m.b.ReportMetric(float64(m.cpu)/n, "cpu-ns/obj")
	m.b.ReportMetric(float64(m.bytes)/n, "B/obj")
	m.b.ReportMetric(float64(m.allocs)/n, "allocs/obj")
}

// perOp wraps *testing.B for workloads whose op is one item: it adds the
// process CPU time per op (a loaded machine distorts it less than wall
// time).
type perOp struct {
	b       *testing.B
	running bool
	cpu0    int64
	cpu     int64
}

func newPerOp(b *testing.B) *perOp {
	b.ReportAllocs()
	return &perOp{b: b, running: true, cpu0: cpuNanos()}
}

func (p *perOp) ResetTimer() {
	p.b.ResetTimer()
	p.cpu, p.cpu0 = 0, cpuNanos()
}

func (p *perOp) StartTimer() {
	if !p.running {
		p.b.StartTimer()
		p.running = true
		p.cpu0 = cpuNanos()
	}
}

func (p *perOp) StopTimer() {
	if p.running {
		p.cpu += cpuNanos() - p.cpu0
		p.running = false
		p.b.StopTimer()
	}
}

func (p *perOp) report() {
	p.StopTimer()
	if p.b.N > 0 {
		p.b.ReportMetric(float64(p.cpu)/float64(p.b.N), "cpu-ns/op")
	}
}

// heapInUse returns the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
