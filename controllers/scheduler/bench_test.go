package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
)

// Numbers on the development machine (2 vCPUs, go1.26.8, -benchtime 1x),
// pods/s, before (dcd5e81: PodTopologySpread, InterPodAffinity and the
// verdicts walking or sized by every node per attempt) and after the
// cache's pod index; measured while other builds loaded the machine
// (load average 15-20), so each pair was run back to back and the wall
// clock flatters neither:
//
//	                                     before    after   B/op before → after
//	Decide 5000 nodes, 10,000 pods        2,800    3,500   27.8 KB → 9.4 KB per pod
//	SchedulingBasic 5000/10,000 pct=0     2,000    2,450   38 KB → 20 KB per pod
//	SchedulingPodAntiAffinity 5000Nodes      19      820   660 KB → 26 KB per pod
//	TopologySpreading 5000Nodes_5000Pods    127    2,300
//
// On an idle machine (the table before this change) Decide ran 8,600 and
// SchedulingBasic 5000/10,000 4,700 pods/s at pct=0; under the load
// above the scheduler got about half a core (2.3 cpu-s of a 3.6 s run
// for 11,000 pods with informers and binds).
//
// Issue 33 goal 4, before (bc66f18) and after the counters for the pod's
// own terms, inclusion policies and scoring terms, the filters and
// scores skipped by their PreFilter/PreScore and the shared reason
// lists: each pair run back to back at load average 9-11 on the 2 vCPUs,
// pods/s and µs of process CPU per measured pod (informers, binds and the
// fake store included):
//
//	                                           pods/s before → after   µs CPU/pod before → after
//	SchedulingBasic 5000Nodes_10000Pods pct=0    5,383 → 5,748            158 → 117
//	SchedulingPodAntiAffinity 5000Nodes_2000Pods 1,078 → 1,659            503 → 317
//	TopologySpreading 5000Nodes_5000Pods         3,216 → 5,841            223 → 149
//	SchedulingPodAffinity 5000Nodes_5000Pods        68 → 4,111          9,837 → 171
//	SchedulingWithNodeInclusionPolicy 5000Nodes    324 → 1,964          2,361 → 349
//
// kube-scheduler's CI threshold for SchedulingBasic 5000Nodes_10000Pods
// in v1.37 is 680 pods/s on 6 cores with a real (in-process) API server
// and etcd; fake.Source writes in memory, so the comparison flatters us.
//
// The shape of kube-scheduler's scheduler_perf SchedulingBasic: nodes
// from node-default.yaml (4 cpu, 32Gi, 110 pods), pods from
// pod-default.yaml (100m, 500Mi), some pods already bound (initPods),
// then measurePods scheduled and timed.
var basicCases = []struct {
	nodes, initPods, measurePods int
}{
	{500, 500, 1000},
	{5000, 1000, 1000},
	{5000, 1000, 10000},
}

func perfNode(i int) *api.Node {
	return mkNode(fmt.Sprintf("node-%05d", i), "4", "32Gi", 110, withLabels(api.LabelTopologyZone, fmt.Sprint("zone-", i%3)))
}

func perfPod(prefix string, i int) *api.Pod {
	return mkPod(fmt.Sprintf("%s-%05d", prefix, i), "100m", "500Mi")
}

// BenchmarkDecide measures the pure core as the loop runs it (decide
// with reused buffers, then Assume), without informers or binds: pods/s is
// what one core can decide.
func BenchmarkDecide(b *testing.B) {
	for _, tc := range basicCases {
		b.Run(fmt.Sprintf("%dNodes_%dPods", tc.nodes, tc.measurePods), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				c := NewCache(0)
				for i := range tc.nodes {
					c.SetNode(perfNode(i))
				}
				for i := range tc.initPods {
					c.AddPod(bound(perfPod("init", i), fmt.Sprintf("node-%05d", i%tc.nodes)))
				}
				pods := make([]*PodInfo, tc.measurePods)
				for i := range pods {
					pods[i] = NewPodInfo(perfPod("measure", i))
				}
				r := rngSeed(1)
				ss := Weights{}.scorers()
				var sc scratch
				next := 0
				b.StartTimer()
				start := time.Now()
				for _, pi := range pods {
					nodes := c.Nodes()
					var d *decision
					d, next = decide(pi, nodes, c.names, ss, r, start, &sc, next, NumFeasibleNodesToFind(0, len(nodes)), volumeState{}, pluginEnv{anyAffinity: c.withAffinity > 0})
					if d.node == "" {
						b.Fatal(d.message)
					}
					_ = c.Assume(pi.Pod, d.node)
				}
				b.ReportMetric(float64(tc.measurePods)/time.Since(start).Seconds(), "pods/s")
			}
		})
	}
}

// countingBinder counts binds and closes the phase's done at its want.
// The phase is swapped between a run's untimed and timed pods while the
// last untimed bind may still be returning, hence atomic.
type countingBinder struct {
	Binder
	n     atomic.Int64
	phase atomic.Pointer[bindPhase]
}

// bindPhase is a number of binds to wait for.
type bindPhase struct {
	want int64
	done chan struct{}
}

func (b *countingBinder) Bind(ctx context.Context, pod *api.Pod, node string) error {
	err := b.Binder.Bind(ctx, pod, node)
	if err == nil {
		if p := b.phase.Load(); b.n.Add(1) == p.want {
			close(p.done)
		}
	}
	return err
}

// perfRun is one run of a scheduler_perf workload over fake.Source:
// nodes, then initPods scheduled untimed, then measurePods created and
// timed from the first creation to the last bind; it reports pods/s.
func perfRun(b *testing.B, pct int, nodeCount, initPods, measurePods int, node func(int) *api.Node, initPod, measurePod func(int) *api.Pod) {
	b.StopTimer()
	ctx, cancel := context.WithCancel(context.Background())
	pods, _ := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{WatchBuffer: 1 << 16})
	nodes, _ := fake.NewSource(api.Key[*api.Node], fake.Options[*api.Node]{})
	for i := range nodeCount {
		_, _ = nodes.Create(ctx, node(i))
	}
	binder := &countingBinder{Binder: PodWriter{Pods: pods}}
	binder.phase.Store(&bindPhase{want: int64(initPods), done: make(chan struct{})})
	s, err := New(Options{Pods: pods, Nodes: nodes, Binder: binder, Status: PodWriter{Pods: pods}, PercentageOfNodesToScore: pct, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = s.Run(ctx) })
	for i := range initPods {
		_, _ = pods.Create(ctx, initPod(i))
	}
	if initPods > 0 {
		<-binder.phase.Load().done
	}
	binder.n.Store(0)
	measured := &bindPhase{want: int64(measurePods), done: make(chan struct{})}
	binder.phase.Store(measured)
	b.StartTimer()
	start, cpu0 := time.Now(), processCPU()
	for i := range measurePods {
		_, _ = pods.Create(ctx, measurePod(i))
	}
	<-measured.done
	b.ReportMetric(float64(measurePods)/time.Since(start).Seconds(), "pods/s")
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(measurePods), "µs-cpu/pod")
	b.StopTimer()
	cancel()
	wg.Wait()
	b.StartTimer()
}

// processCPU is the CPU time (user and system) the process has used so
// far, so that a run on a loaded machine reports the CPU per pod as well
// as the wall clock's pods/s.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSchedulingBasic runs the whole scheduler over fake.Source (the
// in-process store standing in for kube-apiserver): informers, queue,
// decisions, binds written back to the store and observed by the watch.
// pods/s counts from the first measured pod's creation to its last bind.
//
// The pct dimension is Options.PercentageOfNodesToScore: 0 is kube-
// scheduler's adaptive default (what scheduler_perf runs), 100 evaluates
// every node for every pod. Under -short or the race detector (the test
// command's one run of every benchmark) only the first, smallest case
// runs.
func BenchmarkSchedulingBasic(b *testing.B) {
	cases := basicCases
	if testing.Short() || raceEnabled {
		cases = cases[:1]
	}
	for _, tc := range cases {
		for _, pct := range []int{0, 100} {
			b.Run(fmt.Sprintf("%dNodes_%dPods/pct=%d", tc.nodes, tc.measurePods, pct), func(b *testing.B) {
				for b.Loop() {
					perfRun(b, pct, tc.nodes, tc.initPods, tc.measurePods, perfNode,
						func(i int) *api.Pod { return perfPod("init", i) },
						func(i int) *api.Pod { return perfPod("measure", i) })
				}
			})
		}
	}
}

// perfShape is a scheduler_perf workload's size: the performance-labelled
// one at 5,000 nodes, and a small one for -short and the race detector
// (the test command's -benchtime=1x).
type perfShape struct{ nodes, initPods, measurePods int }

func perfShapeFor(full, short perfShape) perfShape {
	if testing.Short() || raceEnabled {
		return short
	}
	return full
}

// BenchmarkSchedulingPodAntiAffinity is scheduler_perf's
// SchedulingPodAntiAffinity/5000Nodes_2000Pods
// (test/integration/scheduler_perf/affinity/performance-config.yaml in
// kubernetes v1.37): 5,000 nodes of node-default.yaml (4 cpu, 32Gi, 110
// pods, labelled kubernetes.io/hostname as scheduler_perf's node preparer
// does), 1,000 pods of pod-with-pod-anti-affinity.yaml (label color=green,
// required anti-affinity to color=green over kubernetes.io/hostname in
// namespaces sched-0 and sched-1) in sched-0, then 2,000 measured in
// sched-1. The v1.37 threshold is 180 pods/s; issue 33's goal is 1.5×
// that, 270 pods/s, on 2 cores. -short: 500 nodes, 100 + 400 pods.
func BenchmarkSchedulingPodAntiAffinity(b *testing.B) {
	sh := perfShapeFor(perfShape{5000, 1000, 2000}, perfShape{500, 100, 400})
	pod := func(ns, name string) *api.Pod {
		p := mkPod(name, "100m", "500Mi", withPodAffinity(nil, terms(api.PodAffinityTerm{
			TopologyKey:   api.LabelHostname,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"color": "green"}},
			Namespaces:    []string{"sched-1", "sched-0"},
		})))
		p.Namespace, p.Labels = ns, map[string]string{"color": "green"}
		return p
	}
	b.Run(fmt.Sprintf("%dNodes_%dPods", sh.nodes, sh.measurePods), func(b *testing.B) {
		for b.Loop() {
			perfRun(b, 0, sh.nodes, sh.initPods, sh.measurePods, perfNode,
				func(i int) *api.Pod { return pod("sched-0", fmt.Sprintf("init-%05d", i)) },
				func(i int) *api.Pod { return pod("sched-1", fmt.Sprintf("measure-%05d", i)) })
		}
	})
}

// BenchmarkTopologySpreading is scheduler_perf's
// TopologySpreading/5000Nodes_5000Pods
// (test/integration/scheduler_perf/topology_spreading/performance-config.yaml
// in kubernetes v1.37): 5,000 nodes of node-default.yaml labelled
// topology.kubernetes.io/zone moon-1, moon-2 or moon-3 (round robin here,
// where scheduler_perf's labelNodePrepareStrategy picks), 5,000 pods of
// pod-default.yaml, then 5,000 measured pods of
// pod-with-topology-spreading.yaml (label color=blue, maxSkew 5 over the
// zone, DoNotSchedule, selecting color=blue). The v1.37 threshold is 460
// pods/s; issue 33's goal is 1.5× that, 690 pods/s, on 2 cores. -short:
// 500 nodes, 1,000 + 1,000 pods.
func BenchmarkTopologySpreading(b *testing.B) {
	sh := perfShapeFor(perfShape{5000, 5000, 5000}, perfShape{500, 1000, 1000})
	node := func(i int) *api.Node {
		return mkNode(fmt.Sprintf("node-%05d", i), "4", "32Gi", 110, withLabels(api.LabelTopologyZone, fmt.Sprint("moon-", i%3+1)))
	}
	b.Run(fmt.Sprintf("%dNodes_%dPods", sh.nodes, sh.measurePods), func(b *testing.B) {
		for b.Loop() {
			perfRun(b, 0, sh.nodes, sh.initPods, sh.measurePods, node,
				func(i int) *api.Pod { return perfPod("init", i) },
				func(i int) *api.Pod {
					p := mkPod(fmt.Sprintf("spreading-%05d", i), "100m", "500Mi",
						withSpread(5, api.LabelTopologyZone, DoNotSchedule, &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}}))
					p.Labels = map[string]string{"color": "blue"}
					return p
				})
		}
	})
}

// BenchmarkSchedulingPodAffinity is scheduler_perf's
// SchedulingPodAffinity/5000Nodes_5000Pods
// (test/integration/scheduler_perf/affinity/performance-config.yaml in
// kubernetes v1.37): 5,000 nodes of node-default.yaml all labelled
// topology.kubernetes.io/zone zone1, 5,000 pods of
// pod-with-pod-affinity.yaml (label color=blue, required affinity to
// color=blue over the zone in namespaces sched-1 and sched-0) in sched-0,
// then 5,000 measured in sched-1: a pod's own required affinity term,
// read from the cache's counter. The v1.37 threshold is 70 pods/s; 1.5×
// is 105. -short: 500 nodes, 500 + 1,000 pods.
func BenchmarkSchedulingPodAffinity(b *testing.B) {
	sh := perfShapeFor(perfShape{5000, 5000, 5000}, perfShape{500, 500, 1000})
	node := func(i int) *api.Node {
		return mkNode(fmt.Sprintf("node-%05d", i), "4", "32Gi", 110, withLabels(api.LabelTopologyZone, "zone1"))
	}
	pod := func(ns, name string) *api.Pod {
		p := mkPod(name, "100m", "500Mi", withPodAffinity(terms(api.PodAffinityTerm{
			TopologyKey:   api.LabelTopologyZone,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}},
			Namespaces:    []string{"sched-1", "sched-0"},
		}), nil))
		p.Namespace, p.Labels = ns, map[string]string{"color": "blue"}
		return p
	}
	b.Run(fmt.Sprintf("%dNodes_%dPods", sh.nodes, sh.measurePods), func(b *testing.B) {
		for b.Loop() {
			perfRun(b, 0, sh.nodes, sh.initPods, sh.measurePods, node,
				func(i int) *api.Pod { return pod("sched-0", fmt.Sprintf("init-%05d", i)) },
				func(i int) *api.Pod { return pod("sched-1", fmt.Sprintf("measure-%05d", i)) })
		}
	})
}

// BenchmarkSchedulingWithNodeInclusionPolicy is scheduler_perf's
// SchedulingWithNodeInclusionPolicy/5000Nodes
// (test/integration/scheduler_perf/topology_spreading/performance-config.yaml
// in kubernetes v1.37): 4,000 nodes of node-default.yaml and 1,000 of
// node-with-taint.yaml (foo:NoSchedule), then 4,000 measured pods of
// pod-with-node-inclusion-policy.yaml (label foo=bar, maxSkew 1 over the
// hostname, DoNotSchedule, nodeAffinityPolicy and nodeTaintsPolicy
// Honor): a spread constraint whose inclusion policies exclude the
// tainted nodes, over 4,000 hostname domains. The v1.37 threshold is 270
// pods/s; 1.5× is 405. -short: 400 + 100 nodes, 400 pods.
func BenchmarkSchedulingWithNodeInclusionPolicy(b *testing.B) {
	normal, tainted := 4000, 1000
	if testing.Short() || raceEnabled {
		normal, tainted = 400, 100
	}
	node := func(i int) *api.Node {
		n := mkNode(fmt.Sprintf("node-%05d", i), "4", "32Gi", 110)
		if i >= normal {
			n.Spec.Taints = []api.Taint{{Key: "foo", Effect: api.TaintEffectNoSchedule}}
		}
		return n
	}
	honor := policyHonor
	b.Run(fmt.Sprintf("%dNodes", normal+tainted), func(b *testing.B) {
		for b.Loop() {
			perfRun(b, 0, normal+tainted, 0, normal, node, nil,
				func(i int) *api.Pod {
					p := mkPod(fmt.Sprintf("spreading-%05d", i), "100m", "500Mi",
						withSpread(1, api.LabelHostname, DoNotSchedule, &api.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}}, func(c *api.TopologySpreadConstraint) {
							c.NodeAffinityPolicy, c.NodeTaintsPolicy = &honor, &honor
						}))
					p.Labels = map[string]string{"foo": "bar"}
					return p
				})
		}
	})
}
