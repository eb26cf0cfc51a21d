package realkube_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/internal/scalebench"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
	"github.com/ctrlkit/ctrlkit/realkube"
	"github.com/ctrlkit/ctrlkit/source"
)

// The real control plane's components run at kube-controller-manager's
// and kube-scheduler's client limits raised to 1,000 requests a second,
// as the simulated kubelets do: the comparison is of the control planes,
// not of their default rate limits.
var realLimits = []string{"--kube-api-qps=1000", "--kube-api-burst=1000"}

// A side is one control plane on which a Deployment is created and timed
// until available.
type side struct {
	name  string
	start func(tb testing.TB, nodes int) client.Client
}

var sides = []side{
	{"kubernetes", startKubernetes},
	{"ctrlkit", startCtrlkit},
}

// startKubernetes starts a real Kubernetes v1.37.2 control plane in this
// process — kube-apiserver over etcd, kube-controller-manager and
// kube-scheduler, from k8s.io/kubernetes — with nodes simulated kubelets
// (`ctrlkit nodes`, the same as ctrlkit's side runs in process) as its
// nodes, and returns an unthrottled client of it.
func startKubernetes(tb testing.TB, nodes int) client.Client {
	s, err := realkube.Start(tb, realkube.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if err := s.StartControllerManager(tb, realLimits...); err != nil {
		tb.Fatal(err)
	}
	if err := s.StartScheduler(tb, realLimits...); err != nil {
		tb.Fatal(err)
	}
	path := tb.TempDir() + "/kubeconfig"
	if err := s.WriteKubeconfig(path); err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		args := []string{"--kubeconfig", path, "--count=" + strconv.Itoa(nodes), "--kube-api-qps=1000", "--kube-api-burst=1000"}
		if code := managercmd.NodesMain(ctx, args, io.Discard, io.Discard); code != 0 {
			tb.Errorf("ctrlkit nodes exited %d", code)
		}
	})
	tb.Cleanup(func() { cancel(); wg.Wait() })
	c, err := kube.NewClient(s.Config(), kube.ClientOptions{QPS: -1})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// startCtrlkit starts ctrlkit's control plane in this process, what
// `ctrlkit up` runs: its store and admission, the controllers, the
// scheduler and nodes simulated kubelets.
func startCtrlkit(tb testing.TB, nodes int) client.Client {
	cp, err := controlplane.Start(context.Background(), controlplane.Options{Nodes: nodes})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cp.Stop() })
	return cp.Cluster
}

// sideResult is one run of a side: the time from the Deployment's
// creation until it is available, and the live heap the control plane
// holds then.
type sideResult struct {
	available time.Duration
	heapMB    float64
}

// runSide starts the side's control plane with n nodes, waits until they
// are Ready (untimed), creates a Deployment of replicas pods, times it
// until available, and measures the live heap grown since before the
// start (the control plane, its nodes and its clients), all of which it
// stops before returning.
func runSide(tb testing.TB, sd side, nodes, replicas int, startAfter string) sideResult {
	tb.Helper()
	sc := &scope{TB: tb}
	defer sc.close()
	h0 := scalebench.LiveHeap()
	c := sd.start(sc, nodes)
	changed := watchAll(sc, c)
	waitNodesReady(sc, c, changed, nodes)
	d := webDeployment()
	d.Name = "side"
	d.Spec.Replicas = ptr(int32(replicas))
	d.Spec.Selector.MatchLabels["run"] = d.Name
	d.Spec.Template.Labels = map[string]string{"app": "web", "run": d.Name}
	if startAfter != "" {
		d.Spec.Template.Annotations = map[string]string{kubelet.AnnotationStartAfter: startAfter}
	}
	deps := resource[*api.Deployment](sc, c)
	start := time.Now()
	if _, err := deps.Create(context.Background(), d); err != nil {
		tb.Fatal(err)
	}
	until(sc, changed, sd.name+": Deployment available", func() bool {
		got, _, err := deps.Get(context.Background(), "default/"+d.Name)
		return err == nil && got.Status.ObservedGeneration == got.Generation &&
			got.Status.AvailableReplicas == int32(replicas) && got.Status.UpdatedReplicas == int32(replicas)
	})
	r := sideResult{available: time.Since(start)}
	r.heapMB = (float64(scalebench.LiveHeap()) - float64(h0)) / (1 << 20)
	return r
}

// waitNodesReady waits until n Nodes of c are Ready.
func waitNodesReady(tb testing.TB, c client.Client, changed <-chan struct{}, n int) {
	lw, err := resource[*api.Node](tb, c).Select(client.SelectOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	until(tb, changed, "nodes Ready", func() bool {
		l, err := lw.List(context.Background(), source.ListOptions{})
		if err != nil {
			return false
		}
		ready := 0
		for _, node := range l.Items {
			for _, cond := range node.Status.Conditions {
				if cond.Type == api.NodeReady && cond.Status == api.ConditionTrue {
					ready++
				}
			}
		}
		return ready == n
	})
}

// scope is a testing.TB whose cleanups run at close, so that one
// iteration of a benchmark starts and stops a control plane of its own.
type scope struct {
	testing.TB
	mu       sync.Mutex
	cleanups []func()
}

// Cleanup registers f to run at close, in last-in first-out order.
func (s *scope) Cleanup(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cleanups = append(s.cleanups, f)
}

func (s *scope) close() {
	s.mu.Lock()
	fs := s.cleanups
	s.cleanups = nil
	s.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// sideSizes are the nodes/replicas pairs of CTRLKIT_SIDE_SIZES
// ("100/1000,500/3000"); by default one small size, so that CI runs the
// benchmark once quickly.
func sideSizes(tb testing.TB) [][2]int {
	v := os.Getenv("CTRLKIT_SIDE_SIZES")
	if v == "" {
		v = "5/20"
	}
	var sizes [][2]int
	for _, p := range strings.Split(v, ",") {
		n, r, ok := strings.Cut(strings.TrimSpace(p), "/")
		nodes, err1 := strconv.Atoi(n)
		replicas, err2 := strconv.Atoi(r)
		if !ok || err1 != nil || err2 != nil || nodes < 1 || replicas < 1 || replicas > 110*nodes {
			tb.Fatalf("CTRLKIT_SIDE_SIZES=%q: want NODES/REPLICAS pairs (at most 110 pods a node), comma-separated", v)
		}
		sizes = append(sizes, [2]int{nodes, replicas})
	}
	return sizes
}

// sideStarts are the container start delays of CTRLKIT_SIDE_START
// ("1s,0s"), each a sub-benchmark: the simulated kubelets' time to create
// a container (the sim.ctrlkit.io/start-after annotation on the pod
// template), the same on both sides. By default "0s": containers start
// at once, so that the time is the control planes' — the simulated
// kubelets' one-second start (their default) would be a second both
// sides spend waiting.
func sideStarts(tb testing.TB) []string {
	v := os.Getenv("CTRLKIT_SIDE_START")
	if v == "" {
		v = "0s"
	}
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if d, err := time.ParseDuration(s); err != nil || d < 0 {
			tb.Fatalf("CTRLKIT_SIDE_START=%q: want durations (\"0s\", \"1s\"), comma-separated", v)
		}
		out = append(out, s)
	}
	return out
}

// BenchmarkSideBySide runs the same Deployment on a real Kubernetes
// v1.37.2 control plane (kube-apiserver, etcd, kube-controller-manager
// and kube-scheduler, in this process, at client limits of 1,000
// requests a second; `ctrlkit nodes` as its kubelets) and on ctrlkit's
// (`ctrlkit up`'s control plane, in this process), one after the other
// in each iteration, and reports each side's time from creation until
// available and the live heap it holds then, and the ratios: speedup-x
// (kubernetes' time over ctrlkit's) and heap-x (kubernetes' heap over
// ctrlkit's). Nodes start untimed. Sizes: CTRLKIT_SIDE_SIZES, e.g.
// "100/1000,500/3000"; container start delays: CTRLKIT_SIDE_START (see
// sideStarts; bench/README.md has the figures).
func BenchmarkSideBySide(b *testing.B) {
	for _, size := range sideSizes(b) {
		for _, startAfter := range sideStarts(b) {
			benchmarkSide(b, size[0], size[1], startAfter)
		}
	}
}

// benchmarkSide is BenchmarkSideBySide at one size and start delay.
func benchmarkSide(b *testing.B, nodes, replicas int, startAfter string) {
	b.Run(fmt.Sprintf("nodes=%d/replicas=%d/start=%s", nodes, replicas, startAfter), func(b *testing.B) {
		var sum [2]sideResult
		for range b.N {
			for i, sd := range sides {
				r := runSide(b, sd, nodes, replicas, startAfter)
				sum[i].available += r.available
				sum[i].heapMB += r.heapMB
			}
		}
		n := float64(b.N)
		k, c := sum[0], sum[1]
		b.ReportMetric(k.available.Seconds()/n, "kubernetes-s")
		b.ReportMetric(c.available.Seconds()/n, "ctrlkit-s")
		b.ReportMetric(k.available.Seconds()/c.available.Seconds(), "speedup-x")
		b.ReportMetric(k.heapMB/n, "kubernetes-heapMB")
		b.ReportMetric(c.heapMB/n, "ctrlkit-heapMB")
		b.ReportMetric(k.heapMB/c.heapMB, "heap-x")
	})
}

// A real kube-controller-manager and kube-scheduler run with ctrlkit's
// simulated kubelets as their nodes: a Deployment becomes available, and
// a foreground deletion lets kcm's garbage collector remove its
// ReplicaSet and pods — what BenchmarkSideBySide's real side relies on.
func TestRealControlPlane(t *testing.T) {
	c := startKubernetes(t, 2)
	changed := watchAll(t, c)
	waitNodesReady(t, c, changed, 2)
	deps := resource[*api.Deployment](t, c)
	ctx := context.Background()
	if _, err := deps.Create(ctx, webDeployment()); err != nil {
		t.Fatal(err)
	}
	until(t, changed, "web available", func() bool {
		got, _, err := deps.Get(ctx, "default/web")
		return err == nil && got.Status.ObservedGeneration == got.Generation && got.Status.AvailableReplicas == 3
	})
	pods := resource[*api.Pod](t, c)
	l, err := list(ctx, pods, "app=web")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range l.Items {
		if p.Spec.NodeName == "" || p.Status.Phase != api.PodRunning {
			t.Fatalf("pod %s: node %q, phase %s; want scheduled by kube-scheduler and Running", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
	}
	if _, err := deps.DeleteWith(ctx, "default/web", client.DeleteOptions{PropagationPolicy: client.DeletePropagationForeground}); err != nil {
		t.Fatal(err)
	}
	rss := resource[*api.ReplicaSet](t, c)
	until(t, changed, "web's ReplicaSet and pods collected", func() bool {
		r, err1 := list(ctx, rss, "app=web")
		p, err2 := list(ctx, pods, "app=web")
		return err1 == nil && err2 == nil && len(r.Items) == 0 && len(p.Items) == 0
	})
}
