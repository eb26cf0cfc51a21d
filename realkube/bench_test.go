package realkube_test

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/kube/managercmd"
	"github.com/ctrlkit/ctrlkit/realkube"
	"k8s.io/client-go/tools/clientcmd"
)

// BenchmarkControllers measures the reference controllers' throughput
// through the client contract: a Deployment of R replicas created on N
// simulated nodes, timed until it is available (every pod created by the
// ReplicaSet, scheduled, started by a simulated kubelet and Ready). The
// servers:
//
//   - kube-apiserver: a real kube-apiserver v1.37.2 over its embedded
//     etcd, with `ctrlkit manager`, `ctrlkit scheduler` and `ctrlkit
//     nodes` as its controller manager, scheduler and kubelets, over
//     HTTPS through kube.Client;
//   - ctrlkit-apiserver: the same three commands against ctrlkit's own
//     API server (what `ctrlkit up --listen` serves) over HTTP;
//   - in-process: ctrlkit's control plane with the controllers on the
//     store (`ctrlkit up` itself).
//
// Over HTTP the manager and the scheduler run at kube-controller-manager's
// client rate limits (--kube-api-qps=20 --kube-api-burst=30) and raised
// to 1,000; the nodes at 1,000. Sizes: CTRLKIT_BENCH_NODES (default 10)
// and CTRLKIT_BENCH_REPLICAS (default 100). Metrics: pods/s (replicas
// over the time to available) and s/deployment.
func BenchmarkControllers(b *testing.B) {
	nodes, replicas := envInt(b, "CTRLKIT_BENCH_NODES", 10), envInt(b, "CTRLKIT_BENCH_REPLICAS", 100)
	size := fmt.Sprintf("nodes=%d/replicas=%d", nodes, replicas)
	for _, server := range []string{"kube-apiserver", "ctrlkit-apiserver"} {
		for _, limit := range []struct {
			name       string
			qps, burst int
		}{{"qps=20", 20, 30}, {"qps=1000", 1000, 1000}} {
			b.Run("server="+server+"/"+limit.name+"/"+size, func(b *testing.B) {
				var kubeconfig string
				if server == "kube-apiserver" {
					kubeconfig = realServer(b)
				} else {
					kubeconfig = ctrlkitServer(b)
				}
				c := runCommands(b, kubeconfig, nodes, limit.qps, limit.burst)
				benchDeployments(b, c, nodes, replicas)
			})
		}
	}
	b.Run("server=in-process/"+size, func(b *testing.B) {
		cp, err := controlplane.Start(b.Context(), controlplane.Options{Nodes: nodes})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cp.Stop() })
		benchDeployments(b, cp.Cluster, nodes, replicas)
	})
}

// benchDeployments waits until the n nodes of c are Ready (untimed), then
// creates b.N Deployments of replicas each, one after the other, each
// timed until available.
func benchDeployments(b *testing.B, c client.Client, n, replicas int) {
	ctx := b.Context()
	changed := watchAll(b, c)
	deps := resource[*api.Deployment](b, c)
	waitNodesReady(b, c, changed, n)
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		d := webDeployment()
		d.Name = fmt.Sprintf("web-%d", i)
		d.Spec.Replicas = ptr(int32(replicas))
		d.Spec.Selector.MatchLabels["run"] = d.Name
		d.Spec.Template.Labels = map[string]string{"app": "web", "run": d.Name}
		if _, err := deps.Create(ctx, d); err != nil {
			b.Fatal(err)
		}
		until(b, changed, d.Name+" available", func() bool {
			got, _, err := deps.Get(ctx, "default/"+d.Name)
			return err == nil && got.Status.ObservedGeneration == got.Generation &&
				got.Status.AvailableReplicas == int32(replicas) && got.Status.UpdatedReplicas == int32(replicas)
		})
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(replicas*b.N)/elapsed.Seconds(), "pods/s")
	b.ReportMetric(elapsed.Seconds()/float64(b.N), "s/deployment")
}

// until waits for done, re-evaluated at each change, for at most ten
// minutes.
func until(b testing.TB, changed <-chan struct{}, what string, done func() bool) {
	b.Helper()
	deadline := time.NewTimer(10 * time.Minute)
	defer deadline.Stop()
	for !done() {
		select {
		case <-changed:
		case <-deadline.C:
			b.Fatalf("%s: not reached in 10 minutes", what)
		}
	}
}

// realServer starts a kube-apiserver and returns a kubeconfig file
// reaching it.
func realServer(b *testing.B) string {
	s, err := realkube.Start(b, realkube.Options{})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "kubeconfig")
	if err := s.WriteKubeconfig(path); err != nil {
		b.Fatal(err)
	}
	return path
}

// ctrlkitServer serves ctrlkit's API over HTTP from an empty cluster (no
// controllers of its own) and returns a kubeconfig file reaching it.
func ctrlkitServer(b *testing.B) string {
	c, err := cluster.New(b.Context(), cluster.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := apiserver.New(c, apiserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	b.Cleanup(hs.Close)
	path := filepath.Join(b.TempDir(), "kubeconfig")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: %q}\nusers:\n- name: u\n  user: {token: bench}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\n", hs.URL)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}

// runCommands runs `ctrlkit manager` and `ctrlkit scheduler` at the given
// client rate limits and `ctrlkit nodes` against kubeconfig until the
// benchmark ends, and returns a client of that server without limits.
func runCommands(b *testing.B, kubeconfig string, nodes, qps, burst int) client.Client {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	run := func(name string, main func(context.Context, []string, io.Writer, io.Writer) int, args ...string) {
		wg.Go(func() {
			if code := main(ctx, append([]string{"--kubeconfig", kubeconfig}, args...), io.Discard, io.Discard); code != 0 {
				b.Errorf("%s exited %d", name, code)
			}
		})
	}
	limits := []string{"--kube-api-qps=" + strconv.Itoa(qps), "--kube-api-burst=" + strconv.Itoa(burst)}
	run("manager", managercmd.Main, append(limits, "--secure-port=0", "--leader-elect=false",
		"--controllers=*,-horizontal-pod-autoscaler-controller")...)
	run("scheduler", managercmd.SchedulerMain, limits...)
	run("nodes", managercmd.NodesMain, "--count="+strconv.Itoa(nodes), "--kube-api-qps=1000", "--kube-api-burst=1000")
	b.Cleanup(func() { cancel(); wg.Wait() })
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	c, err := kube.NewClient(cfg, kube.ClientOptions{QPS: -1})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}
