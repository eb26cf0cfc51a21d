package scheduler

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
)

// Numbers on the development machine (2 vCPUs, Intel Xeon, go1.26.8,
// -benchtime 1x), pods/s:
//
//	                          Decide   SchedulingBasic pct=0   pct=100
//	 500 nodes,  1,000 pods   15,900    7,000                   6,200
//	5000 nodes,  1,000 pods    9,400    6,100                   1,250
//	5000 nodes, 10,000 pods    8,600    4,700                     820
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

// countingBinder counts binds and closes done at want.
type countingBinder struct {
	Binder
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (b *countingBinder) Bind(ctx context.Context, pod *api.Pod, node string) error {
	err := b.Binder.Bind(ctx, pod, node)
	if err == nil && b.n.Add(1) == b.want {
		close(b.done)
	}
	return err
}

// BenchmarkSchedulingBasic runs the whole scheduler over fake.Source (the
// in-process store standing in for kube-apiserver): informers, queue,
// decisions, binds written back to the store and observed by the watch.
// pods/s counts from the first measured pod's creation to its last bind.
//
// The pct dimension is Options.PercentageOfNodesToScore: 0 is kube-
// scheduler's adaptive default (what scheduler_perf runs), 100 evaluates
// every node for every pod.
func BenchmarkSchedulingBasic(b *testing.B) {
	for _, tc := range basicCases {
		for _, pct := range []int{0, 100} {
			b.Run(fmt.Sprintf("%dNodes_%dPods/pct=%d", tc.nodes, tc.measurePods, pct), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					ctx, cancel := context.WithCancel(context.Background())
					pods, _ := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{WatchBuffer: 1 << 16})
					nodes, _ := fake.NewSource(api.Key[*api.Node], fake.Options[*api.Node]{})
					for i := range tc.nodes {
						_, _ = nodes.Create(ctx, perfNode(i))
					}
					binder := &countingBinder{Binder: PodWriter{Pods: pods}, want: int64(tc.initPods), done: make(chan struct{})}
					s, err := New(Options{Pods: pods, Nodes: nodes, Binder: binder, Status: PodWriter{Pods: pods}, PercentageOfNodesToScore: pct, Logger: slog.New(slog.DiscardHandler)})
					if err != nil {
						b.Fatal(err)
					}
					var wg sync.WaitGroup
					wg.Go(func() { _ = s.Run(ctx) })
					for i := range tc.initPods {
						_, _ = pods.Create(ctx, perfPod("init", i))
					}
					<-binder.done
					binder.n.Store(0)
					binder.want = int64(tc.measurePods)
					binder.done = make(chan struct{})
					b.StartTimer()
					start := time.Now()
					for i := range tc.measurePods {
						_, _ = pods.Create(ctx, perfPod("measure", i))
					}
					<-binder.done
					b.ReportMetric(float64(tc.measurePods)/time.Since(start).Seconds(), "pods/s")
					b.StopTimer()
					cancel()
					wg.Wait()
					b.StartTimer()
				}
			})
		}
	}
}
