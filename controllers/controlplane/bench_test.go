package controlplane_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// Scale scenarios on shapes others have published (issue 20), as
// benchmarks. They run in real time: synctest.Test takes a *testing.T
// only, and in a bubble CPU work takes no time at all, which is what
// these measure. (TestScaleSmoke runs the same bodies, tiny, in a
// bubble, so that plain `go test` keeps them from rotting.)
//
//	go test -run='^$' -bench=Scale -benchtime=1x ./controllers/controlplane/
//	CTRLKIT_SCALE_NODES=5000 CTRLKIT_SCALE_PODS=10000 go test -run='^$' -bench=Scale -benchtime=1x -timeout=30m ./controllers/controlplane/
//
// Sizes default to 10 nodes and 100 pods. Each pod of the Deployment
// requests nothing, so a node takes up to 110 (its pods capacity):
// CTRLKIT_SCALE_PODS must be at most 110 × CTRLKIT_SCALE_NODES.
//
// Metrics (one iteration's, averaged over b.N):
//
//   - *-s: wall seconds from the scenario's start (Start called, or the
//     Deployment created) until the condition: ready-s every Node Ready,
//     running-s every pod Running, available-s the Deployment's
//     availableReplicas = replicas, settled-s the last change before
//     Settle found the cluster quiet (Settle's return minus its quiet
//     period, scaleQuiet).
//   - cpu-s: CPU seconds (user+system) of the process over the span,
//     up to Settle's return (so including its quiet period, when the
//     kubelets' heartbeats still run).
//   - heapB/node, heapB/pod: live heap after two forced collections,
//     settled, minus the same before (before Start for nodes, before the
//     Deployment for pods), per node or pod.
//   - writes/node, writes/pod: cp.Writes() over the span (every change
//     Settle counts: creates, deletes, updates other than heartbeats).
//   - expiries, relists (BenchmarkScaleDeployment): over the span, the
//     source.ErrExpired (410 Gone) the process's reflectors were told —
//     a watch ended because its reader fell behind, or a version no
//     longer served — and the relists they made
//     (reflector.ProcessTotals). Both should be 0: a watch that keeps
//     reading is never ended, and a relist of 10,000 pods by thousands of
//     kubelets is the load spike a burst must not cause.

// scaleQuiet is the quiet period the scale scenarios settle with. The
// default (30 s) is meant for virtual time; in real time it would be
// wall time spent doing nothing. Every controller's immediate retries
// and the kubelet's 1 s container start are shorter.
const scaleQuiet = 3 * time.Second

// scalePoll is how often the scenarios look at the store for their
// conditions (a List of read-only shared objects).
const scalePoll = 50 * time.Millisecond

func envInt(tb testing.TB, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func scaleNodes(tb testing.TB) int { return envInt(tb, "CTRLKIT_SCALE_NODES", 10) }
func scalePods(tb testing.TB) int  { return envInt(tb, "CTRLKIT_SCALE_PODS", 100) }

// writeHeapProfile writes a heap profile of the settled cluster, before
// it stops, to $CTRLKIT_SCALE_HEAPPROFILE when that is set (go test's
// -memprofile is written after the cluster has stopped): what holds the
// heap per pod.
func writeHeapProfile(tb testing.TB) {
	path := os.Getenv("CTRLKIT_SCALE_HEAPPROFILE")
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		tb.Fatal(err)
	}
}

// liveHeap is HeapAlloc after two forced collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
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
	for !cond() {
		select {
		case <-ctx.Done():
			tb.Fatalf("waiting for %s: %v", what, ctx.Err())
		case <-time.After(scalePoll):
		}
	}
	return time.Now()
}

// settle runs Settle and returns when the cluster last changed.
func settle(tb testing.TB, ctx context.Context, cp *controlplane.ControlPlane) time.Time {
	if err := cp.Settle(ctx, scaleQuiet); err != nil {
		tb.Fatal(err)
	}
	return time.Now().Add(-scaleQuiet)
}

func allNodesReady(tb testing.TB, ctx context.Context, cp *controlplane.ControlPlane, n int) func() bool {
	return func() bool {
		l, err := cp.Cluster.Nodes().List(ctx, source.ListOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		if len(l.Items) < n {
			return false
		}
		for _, nd := range l.Items {
			ready := false
			for _, c := range nd.Status.Conditions {
				ready = ready || c.Type == api.NodeReady && c.Status == api.ConditionTrue
			}
			if !ready {
				return false
			}
		}
		return true
	}
}

// scaleDeployment is KWOK's benchmark pod: one container, no requests.
func scaleDeployment(replicas int) *api.Deployment {
	r := int32(replicas)
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "scale"}}
	d.Spec.Replicas = &r
	d.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "scale"}}
	d.Spec.Template.Labels = map[string]string{"app": "scale"}
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}
	return d
}

// scaleCluster is a control plane of n nodes spread over three zones.
type scaleCluster struct {
	*controlplane.ControlPlane
}

func startCluster(tb testing.TB, ctx context.Context, n int) *scaleCluster {
	cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: n, Zones: 3})
	if err != nil {
		tb.Fatal(err)
	}
	return &scaleCluster{ControlPlane: cp}
}

func (cl *scaleCluster) stop(tb testing.TB) {
	if err := cl.Stop(); err != nil {
		tb.Fatal(err)
	}
}

type emptyResult struct {
	start, settled time.Duration
	cpu            float64
}

// runEmpty starts a control plane with one node (Start's least) and
// settles it: what envtest's start is to a test suite.
func runEmpty(tb testing.TB, ctx context.Context) emptyResult {
	cpu0, t0 := cpuSeconds(), time.Now()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	started := time.Now()
	last := settle(tb, ctx, cp)
	r := emptyResult{start: started.Sub(t0), settled: last.Sub(t0), cpu: cpuSeconds() - cpu0}
	if err := cp.Stop(); err != nil {
		tb.Fatal(err)
	}
	return r
}

type nodesResult struct {
	ready, settled time.Duration
	cpu            float64
	heapPerNode    float64
	writesPerNode  float64
}

// runNodes starts n nodes and waits until every Node is Ready, then
// settles.
func runNodes(tb testing.TB, ctx context.Context, n int) nodesResult {
	h0 := liveHeap()
	cpu0, t0 := cpuSeconds(), time.Now()
	cl := startCluster(tb, ctx, n)
	cp := cl.ControlPlane
	ready := waitFor(tb, ctx, "nodes Ready", allNodesReady(tb, ctx, cp, n))
	last := settle(tb, ctx, cp)
	r := nodesResult{ready: ready.Sub(t0), settled: last.Sub(t0), cpu: cpuSeconds() - cpu0,
		writesPerNode: float64(cp.Writes()) / float64(n)}
	writeHeapProfile(tb)
	r.heapPerNode = (float64(liveHeap()) - float64(h0)) / float64(n)
	cl.stop(tb)
	return r
}

type podsResult struct {
	running, available, settled time.Duration
	cpu                         float64
	heapPerPod, writesPerPod    float64
	expiries, relists           int64
}

// runDeployment starts n nodes, settles them (untimed), then creates a
// Deployment of replicas pods and times it until settled.
func runDeployment(tb testing.TB, ctx context.Context, n, replicas int, timer interface {
	StartTimer()
	StopTimer()
}) podsResult {
	timer.StopTimer()
	cl := startCluster(tb, ctx, n)
	cp := cl.ControlPlane
	waitFor(tb, ctx, "nodes Ready", allNodesReady(tb, ctx, cp, n))
	settle(tb, ctx, cp)
	h0, w0 := liveHeap(), cp.Writes()
	timer.StartTimer()
	tot0 := reflector.ProcessTotals()
	cpu0, t0 := cpuSeconds(), time.Now()
	if err := cp.Apply(ctx, scaleDeployment(replicas)); err != nil {
		tb.Fatal(err)
	}
	c := cp.Cluster
	running := waitFor(tb, ctx, "pods Running", func() bool {
		l, err := c.Pods().List(ctx, source.ListOptions{})
		if err != nil {
			tb.Fatal(err)
		}
		k := 0
		for _, p := range l.Items {
			if p.Status.Phase == api.PodRunning {
				k++
			}
		}
		return k >= replicas
	})
	available := waitFor(tb, ctx, "Deployment available", func() bool {
		d, _, err := c.Deployments().Get(ctx, "default/scale")
		if err != nil {
			tb.Fatal(err)
		}
		return d.Status.ObservedGeneration >= d.Generation && int(d.Status.AvailableReplicas) == replicas && int(d.Status.UpdatedReplicas) == replicas
	})
	last := settle(tb, ctx, cp)
	r := podsResult{running: running.Sub(t0), available: available.Sub(t0), settled: last.Sub(t0), cpu: cpuSeconds() - cpu0,
		writesPerPod: float64(cp.Writes()-w0) / float64(replicas)}
	tot := reflector.ProcessTotals()
	r.expiries, r.relists = tot.Expired-tot0.Expired, tot.Relists-tot0.Relists
	timer.StopTimer()
	r.heapPerPod = (float64(liveHeap()) - float64(h0)) / float64(replicas)
	writeHeapProfile(tb)
	cl.stop(tb)
	timer.StartTimer()
	return r
}

// BenchmarkScaleStartEmpty: controlplane.Start and Settle of a cluster
// with one node (envtest takes 5–15 s to start an API server and etcd).
// start-s is Start's return; settled-s the last change before quiet.
func BenchmarkScaleStartEmpty(b *testing.B) {
	var sum emptyResult
	for b.Loop() {
		r := runEmpty(b, b.Context())
		sum.start += r.start
		sum.settled += r.settled
		sum.cpu += r.cpu
	}
	n := float64(b.N)
	b.ReportMetric(sum.start.Seconds()/n, "start-s")
	b.ReportMetric(sum.settled.Seconds()/n, "settled-s")
	b.ReportMetric(sum.cpu/n, "cpu-s")
}

// BenchmarkScaleNodesReady: N simulated nodes from Start until every
// Node is Ready (KWOK's CI: 5,000 nodes Ready within 60 s against a real
// API server).
func BenchmarkScaleNodesReady(b *testing.B) {
	nodes := scaleNodes(b)
	b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
		var sum nodesResult
		for b.Loop() {
			r := runNodes(b, b.Context(), nodes)
			sum.ready += r.ready
			sum.settled += r.settled
			sum.cpu += r.cpu
			sum.heapPerNode += r.heapPerNode
			sum.writesPerNode += r.writesPerNode
		}
		n := float64(b.N)
		b.ReportMetric(sum.ready.Seconds()/n, "ready-s")
		b.ReportMetric(sum.settled.Seconds()/n, "settled-s")
		b.ReportMetric(sum.cpu/n, "cpu-s")
		b.ReportMetric(sum.heapPerNode/n, "heapB/node")
		b.ReportMetric(sum.writesPerNode/n, "writes/node")
	})
}

// BenchmarkScaleDeployment: a Deployment of R replicas on N Ready nodes,
// from its creation until settled — through the deployment and
// replicaset controllers, the scheduler and the kubelets (KWOK: 10,000
// pods, pre-bound with no scheduler, Running within 60 s). The nodes'
// start is not timed.
func BenchmarkScaleDeployment(b *testing.B) {
	nodes, pods := scaleNodes(b), scalePods(b)
	if pods > 110*nodes {
		b.Fatalf("%d pods do not fit on %d nodes of 110 pods", pods, nodes)
	}
	b.Run(fmt.Sprintf("nodes=%d/pods=%d", nodes, pods), func(b *testing.B) {
		var sum podsResult
		for b.Loop() {
			r := runDeployment(b, b.Context(), nodes, pods, b)
			sum.running += r.running
			sum.available += r.available
			sum.settled += r.settled
			sum.cpu += r.cpu
			sum.heapPerPod += r.heapPerPod
			sum.writesPerPod += r.writesPerPod
			sum.expiries += r.expiries
			sum.relists += r.relists
		}
		n := float64(b.N)
		b.ReportMetric(sum.running.Seconds()/n, "running-s")
		b.ReportMetric(sum.available.Seconds()/n, "available-s")
		b.ReportMetric(sum.settled.Seconds()/n, "settled-s")
		b.ReportMetric(sum.cpu/n, "cpu-s")
		b.ReportMetric(sum.heapPerPod/n, "heapB/pod")
		b.ReportMetric(sum.writesPerPod/n, "writes/pod")
		b.ReportMetric(float64(sum.expiries)/n, "expiries")
		b.ReportMetric(float64(sum.relists)/n, "relists")
	})
}
