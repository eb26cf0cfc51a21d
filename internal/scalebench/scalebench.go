package scalebench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// Quiet is the quiet period the scenarios settle with. The default
// (controlplane.DefaultQuiet, 30 s) is meant for virtual time; in real
// time it would be wall time spent doing nothing. Every controller's
// immediate retries and the kubelet's 1 s container start are shorter.
const Quiet = 3 * time.Second

// Poll is how often the scenarios look at their
// conditions (in informer caches of their own).
const Poll = 50 * time.Millisecond

// Default sizes, without CTRLKIT_SCALE_NODES and CTRLKIT_SCALE_PODS.
const (
	DefaultNodes = 10
	DefaultPods  = 100
)

// Store returns the store options of one run's control plane, and a
// function that releases what they hold (nil: nothing), called once the
// control plane has stopped. A nil Store is the in-memory backend.
type Store func(tb testing.TB) (opts cluster.Options, release func())

// Timer is what a scenario pauses around its untimed parts: a
// *testing.B, or NopTimer.
type Timer interface {
	StartTimer()
	StopTimer()
}

// NopTimer is a Timer that does nothing, for a scenario run by a test.
type NopTimer struct{}

// StartTimer does nothing.
func (NopTimer) StartTimer() {}

// StopTimer does nothing.
func (NopTimer) StopTimer() {}

// EnvInt returns the positive integer in the environment variable name,
// or def when it is unset, and an error for anything else.
func EnvInt(name string, def int) (int, error) {
	v := os.Getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive integer", name, v)
	}
	return n, nil
}

// Sizes returns CTRLKIT_SCALE_NODES and CTRLKIT_SCALE_PODS, DefaultNodes
// and DefaultPods when unset; it fails tb on a malformed value.
func Sizes(tb testing.TB) (nodes, pods int) {
	tb.Helper()
	nodes, err1 := EnvInt("CTRLKIT_SCALE_NODES", DefaultNodes)
	pods, err2 := EnvInt("CTRLKIT_SCALE_PODS", DefaultPods)
	if err := errors.Join(err1, err2); err != nil {
		tb.Fatal(err)
	}
	return nodes, pods
}

// Deployments returns CTRLKIT_SCALE_DEPLOYMENTS, 1 when unset: how many
// Deployments share the pods of Deployment (issue 33's 100,000 pods are
// 20 Deployments of 5,000); it fails tb on a malformed value.
func Deployments(tb testing.TB) int {
	tb.Helper()
	d, err := EnvInt("CTRLKIT_SCALE_DEPLOYMENTS", 1)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// maxRSS is the process's peak resident set size in bytes (getrusage's
// ru_maxrss), or NaN where it is not known.
func maxRSS() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Maxrss) * 1024 // kilobytes on Linux
}

// writeHeapProfile writes a heap profile of the settled cluster, before
// it stops, to $CTRLKIT_SCALE_HEAPPROFILE plus suffix when that is set.
func writeHeapProfile(tb testing.TB, suffix string) {
	path := os.Getenv("CTRLKIT_SCALE_HEAPPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path + suffix)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		tb.Fatal(err)
	}
}

// LiveHeap is the heap the last of two forced collections found live
// (runtime/metrics' /gc/heap/live:bytes): what a scenario keeps alive,
// for the heap metrics here and in other modules' benchmarks (realkube's
// side by side). Unlike HeapAlloc read after the collection, it leaves
// out what the cluster's goroutines allocate meanwhile (a node status
// write in flight), which moved the figure by ±1 KB per pod run to run.
func LiveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// cpuSeconds is the process's CPU time, user and system, from
// /proc/self/stat (Linux; in clock ticks of 1/100 s). Elsewhere it
// returns NaN and cpu-s reads NaN. (runtime/metrics' /cpu/classes/...
// counts the time Ps are busy, which on a loaded machine is GOMAXPROCS ×
// wall time whether the OS runs the process or not.)
func cpuSeconds() float64 {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return math.NaN()
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return math.NaN()
	}
	// After the command: state(3) … utime(14) stime(15).
	u, err1 := strconv.ParseFloat(f[11], 64)
	st, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return math.NaN()
	}
	return (u + st) / 100
}

// waitFor polls cond until it holds and returns when it first did.
func waitFor(tb testing.TB, ctx context.Context, what string, cond func() bool) time.Time {
	tb.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			tb.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(Poll):
		}
	}
	return time.Now()
}

// settle runs Settle and returns when the cluster last changed.
func settle(tb testing.TB, ctx context.Context, cp *controlplane.ControlPlane) time.Time {
	tb.Helper()
	if err := cp.Settle(ctx, Quiet); err != nil {
		tb.Fatal(err)
	}
	return time.Now().Add(-Quiet)
}

// cache is an informer of one kind the scenario reads its conditions
// from: a List of the store every Poll would cost a backend that is not
// in memory a read and a decode of every object (10,000 pods 20 times a
// second over etcd), more than the cluster itself does.
type cache[T any] struct {
	inf  *informer.Informer[T]
	stop context.CancelFunc
}

// watch starts an informer of s and waits until it has synced.
func watch[T api.Object](tb testing.TB, ctx context.Context, s *cluster.Store[T]) *cache[T] {
	tb.Helper()
	inf, err := informer.New(source.ListWatcher[T](s), api.Key[T], informer.Options[T]{Name: "scalebench " + s.Resource()})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, stop := context.WithCancel(ctx)
	go inf.Run(ctx) // it ends with ctx; a cache that never syncs fails waitFor
	c := &cache[T]{inf: inf, stop: stop}
	waitFor(tb, ctx, s.Resource()+" cache synced", inf.HasSynced)
	return c
}

// close stops the informer and waits until it has, so that its cache is
// garbage before the heap is measured.
func (c *cache[T]) close() {
	c.stop()
	<-c.inf.Done()
}

// counter keeps, through an event handler, how many cached objects
// match, so that a condition polled 20 times a second costs a load, not
// a walk of every cached object (100,000 pods: 8 % of the 100,000-pod
// run's CPU went to that walk). A resync or a relist's replay calls
// OnUpdate with both states, so the count stays exact.
func (c *cache[T]) counter(tb testing.TB, match func(T) bool) *atomic.Int64 {
	tb.Helper()
	n := new(atomic.Int64)
	_, err := c.inf.AddEventHandler(informer.HandlerFuncs[T]{
		AddFunc: func(o T, _ bool) {
			if match(o) {
				n.Add(1)
			}
		},
		UpdateFunc: func(old, o T) {
			switch was, is := match(old), match(o); {
			case is && !was:
				n.Add(1)
			case was && !is:
				n.Add(-1)
			}
		},
		DeleteFunc: func(o T, _ bool) {
			if match(o) {
				n.Add(-1)
			}
		},
	}, informer.HandlerOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func nodeReady(nd *api.Node) bool {
	for _, c := range nd.Status.Conditions {
		if c.Type == api.NodeReady && c.Status == api.ConditionTrue {
			return true
		}
	}
	return false
}

// waitNodesReady waits until n Nodes are Ready and returns when they
// first were.
func waitNodesReady(tb testing.TB, ctx context.Context, cp *controlplane.ControlPlane, n int) time.Time {
	tb.Helper()
	nodes := watch(tb, ctx, cp.Cluster.Nodes())
	defer nodes.close()
	ready := nodes.counter(tb, nodeReady)
	return waitFor(tb, ctx, "nodes Ready", func() bool { return ready.Load() >= int64(n) })
}

// deployment is a Deployment called name of KWOK's benchmark pod: one
// container, no requests.
func deployment(name string, replicas int) *api.Deployment {
	r := int32(replicas)
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}}
	d.Spec.Replicas = &r
	d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": name}}
	d.Spec.Template.Labels = map[string]string{"app": name}
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}
	return d
}

// running is a started control plane and what releases its store.
type running struct {
	*controlplane.ControlPlane
	release func()
}

// store makes one run's store options (untimed: before a scenario
// starts its clock).
func store(tb testing.TB, st Store) store1 {
	tb.Helper()
	if st == nil {
		return store1{}
	}
	opts, release := st(tb)
	return store1{opts: opts, release: release}
}

// store1 is one run's store.
type store1 struct {
	opts    cluster.Options
	release func()
}

// start starts a control plane of n nodes (0: Start's default, one)
// spread over three zones (none for n = 0) on st.
func start(tb testing.TB, ctx context.Context, st store1, n int) *running {
	tb.Helper()
	opts := controlplane.Options{Nodes: n, Cluster: st.opts}
	if n > 0 {
		opts.Zones = 3
	}
	cp, err := controlplane.Start(ctx, opts)
	if err != nil {
		if st.release != nil {
			st.release()
		}
		tb.Fatal(err)
	}
	return &running{ControlPlane: cp, release: st.release}
}

func (r *running) stop(tb testing.TB) {
	tb.Helper()
	err := r.Stop()
	if r.release != nil {
		r.release()
	}
	if err != nil {
		tb.Fatal(err)
	}
}

// EmptyResult is what Empty measured.
type EmptyResult struct {
	// Start is until controlplane.Start returned; Settled until the
	// last change before quiet.
	Start, Settled time.Duration
	// CPU is the process's CPU seconds until Settle returned.
	CPU float64
}

// Empty starts a control plane with one node (Start's least) and
// settles it: what envtest's start is to a test suite.
func Empty(tb testing.TB, ctx context.Context, st Store) EmptyResult {
	tb.Helper()
	s1 := store(tb, st)
	cpu0, t0 := cpuSeconds(), time.Now()
	r := start(tb, ctx, s1, 0)
	started := time.Now()
	last := settle(tb, ctx, r.ControlPlane)
	res := EmptyResult{Start: started.Sub(t0), Settled: last.Sub(t0), CPU: cpuSeconds() - cpu0}
	r.stop(tb)
	return res
}

// NodesResult is what Nodes measured.
type NodesResult struct {
	// Ready is until every Node was Ready; Settled until the last change
	// before quiet.
	Ready, Settled time.Duration
	// CPU is the process's CPU seconds until Settle returned.
	CPU float64
	// HeapPerNode is the live heap the settled cluster added, per node.
	HeapPerNode float64
	// WritesPerNode is ControlPlane.Writes per node.
	WritesPerNode float64
}

// Nodes starts n nodes and waits until every Node is Ready, then
// settles.
func Nodes(tb testing.TB, ctx context.Context, st Store, n int) NodesResult {
	tb.Helper()
	s1 := store(tb, st)
	h0 := LiveHeap()
	cpu0, t0 := cpuSeconds(), time.Now()
	r := start(tb, ctx, s1, n)
	cp := r.ControlPlane
	ready := waitNodesReady(tb, ctx, cp, n)
	last := settle(tb, ctx, cp)
	res := NodesResult{Ready: ready.Sub(t0), Settled: last.Sub(t0), CPU: cpuSeconds() - cpu0,
		WritesPerNode: float64(cp.Writes()) / float64(n)}
	writeHeapProfile(tb, "")
	res.HeapPerNode = (float64(LiveHeap()) - float64(h0)) / float64(n)
	r.stop(tb)
	return res
}

// PodsResult is what Deployment measured.
type PodsResult struct {
	// Running is until every pod ran, Available until the Deployment
	// was available, Settled until the last change before quiet.
	Running, Available, Settled time.Duration
	// CPU is the process's CPU seconds until Settle returned.
	CPU float64
	// HeapPerPod is the live heap the settled Deployment added, per
	// pod; WritesPerPod is ControlPlane.Writes over the span, per pod.
	HeapPerPod, WritesPerPod float64
	// Expiries and Relists are the reflectors' (reflector.ProcessTotals)
	// over the span.
	Expiries, Relists int64
	// MaxRSS is the process's peak resident set size in bytes at the
	// end (getrusage), its nodes' start included.
	MaxRSS float64
}

// Deployment starts n nodes, settles them (untimed: timer stopped), then
// creates Deployments (one, or Deployments' count) of replicas pods in
// all and times them until settled.
func Deployment(tb testing.TB, ctx context.Context, st Store, n, replicas int, timer Timer) PodsResult {
	tb.Helper()
	timer.StopTimer()
	r := start(tb, ctx, store(tb, st), n)
	cp := r.ControlPlane
	waitNodesReady(tb, ctx, cp, n)
	settle(tb, ctx, cp)
	pods, deployments := watch(tb, ctx, cp.Cluster.Pods()), watch(tb, ctx, cp.Cluster.Deployments())
	running := pods.counter(tb, func(p *api.Pod) bool { return p.Status.Phase == api.PodRunning })
	h0, w0 := LiveHeap(), cp.Writes()
	writeHeapProfile(tb, ".base") // what the pods phase adds: pprof -diff_base
	timer.StartTimer()
	tot0 := reflector.ProcessTotals()
	cpu0, t0 := cpuSeconds(), time.Now()
	ds := Deployments(tb)
	for i := range ds {
		// The first takes the remainder of an uneven split.
		name, share := "scale", replicas/ds
		if i == 0 {
			share += replicas % ds
		}
		if ds > 1 {
			name = fmt.Sprintf("scale-%d", i)
		}
		if err := cp.Apply(ctx, deployment(name, share)); err != nil {
			tb.Fatal(err)
		}
	}
	runningAt := waitFor(tb, ctx, "pods Running", func() bool { return running.Load() >= int64(replicas) })
	available := waitFor(tb, ctx, "Deployments available", func() bool {
		avail := 0
		for _, d := range deployments.inf.Lister().List(nil) {
			if d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas != *d.Spec.Replicas {
				return false
			}
			avail += int(d.Status.AvailableReplicas)
		}
		return avail == replicas
	})
	last := settle(tb, ctx, cp)
	res := PodsResult{Running: runningAt.Sub(t0), Available: available.Sub(t0), Settled: last.Sub(t0), CPU: cpuSeconds() - cpu0,
		WritesPerPod: float64(cp.Writes()-w0) / float64(replicas)}
	tot := reflector.ProcessTotals()
	res.Expiries, res.Relists = tot.Expired-tot0.Expired, tot.Relists-tot0.Relists
	timer.StopTimer()
	pods.close()
	deployments.close()
	res.HeapPerPod = (float64(LiveHeap()) - float64(h0)) / float64(replicas)
	res.MaxRSS = maxRSS()
	writeHeapProfile(tb, "")
	r.stop(tb)
	timer.StartTimer()
	return res
}

// metric is one figure a benchmark reports: the mean of its runs, or
// with peak their largest.
type metric struct {
	unit string
	v    float64
	peak bool
}

// loop runs one scenario b.N times and reports each of its metrics.
func loop(b *testing.B, run func() []metric) {
	var sum []metric
	for b.Loop() {
		ms := run()
		if sum == nil {
			sum = make([]metric, len(ms))
			copy(sum, ms)
			continue
		}
		for i, m := range ms {
			if m.peak {
				sum[i].v = max(sum[i].v, m.v)
			} else {
				sum[i].v += m.v
			}
		}
	}
	for _, m := range sum {
		if !m.peak {
			m.v /= float64(b.N)
		}
		b.ReportMetric(m.v, m.unit)
	}
}

func (r EmptyResult) metrics() []metric {
	return []metric{{unit: "start-s", v: r.Start.Seconds()}, {unit: "settled-s", v: r.Settled.Seconds()}, {unit: "cpu-s", v: r.CPU}}
}

func (r NodesResult) metrics() []metric {
	return []metric{
		{unit: "ready-s", v: r.Ready.Seconds()}, {unit: "settled-s", v: r.Settled.Seconds()},
		{unit: "cpu-s", v: r.CPU}, {unit: "heapB/node", v: r.HeapPerNode}, {unit: "writes/node", v: r.WritesPerNode},
	}
}

func (r PodsResult) metrics() []metric {
	return []metric{
		{unit: "running-s", v: r.Running.Seconds()}, {unit: "available-s", v: r.Available.Seconds()},
		{unit: "settled-s", v: r.Settled.Seconds()}, {unit: "cpu-s", v: r.CPU},
		{unit: "heapB/pod", v: r.HeapPerPod}, {unit: "writes/pod", v: r.WritesPerPod},
		{unit: "expiries", v: float64(r.Expiries)}, {unit: "relists", v: float64(r.Relists)},
		{unit: "maxRSS-MB", v: r.MaxRSS / (1 << 20), peak: true},
	}
}

// BenchmarkStartEmpty runs Empty b.N times and reports start-s,
// settled-s and cpu-s.
func BenchmarkStartEmpty(b *testing.B, store Store) {
	loop(b, func() []metric { return Empty(b, b.Context(), store).metrics() })
}

// BenchmarkNodesReady runs Nodes at Sizes' nodes, in a sub-benchmark
// "nodes=N", and reports ready-s, settled-s, cpu-s, heapB/node and
// writes/node.
func BenchmarkNodesReady(b *testing.B, store Store) {
	nodes, _ := Sizes(b)
	b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
		loop(b, func() []metric { return Nodes(b, b.Context(), store, nodes).metrics() })
	})
}

// BenchmarkDeployment runs Deployment at Sizes' nodes and pods, in a
// sub-benchmark "nodes=N/pods=R", and reports running-s, available-s,
// settled-s, cpu-s, heapB/pod, writes/pod, expiries, relists and
// maxRSS-MB (the process's peak). CTRLKIT_SCALE_DEPLOYMENTS splits the
// pods among that many Deployments.
func BenchmarkDeployment(b *testing.B, store Store) {
	nodes, pods := Sizes(b)
	if pods > 110*nodes {
		b.Fatalf("%d pods do not fit on %d nodes of 110 pods", pods, nodes)
	}
	name := fmt.Sprintf("nodes=%d/pods=%d", nodes, pods)
	if ds := Deployments(b); ds > 1 {
		name += fmt.Sprintf("/deployments=%d", ds)
	}
	b.Run(name, func(b *testing.B) {
		loop(b, func() []metric { return Deployment(b, b.Context(), store, nodes, pods, b).metrics() })
	})
}
