package cluster_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/source"
)

// allow is an admission function that admits everything, so the
// benchmarks pay for the chain.
func allow(context.Context, cluster.Attributes) error { return nil }

// Create, update (a label) and delete of a pod through an admission chain
// of three functions.
func BenchmarkCreateUpdateDelete(b *testing.B) {
	ctx := context.Background()
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{allow, allow, allow}})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		p := clustertest.Pod("default", fmt.Sprintf("p-%d", i), map[string]string{"app": "web"})
		if _, err := c.Pods().Create(ctx, p); err != nil {
			b.Fatal(err)
		}
		p.Labels["v"] = "2"
		if _, err := c.Pods().Update(ctx, p, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Pods().Delete(ctx, api.Key(p), ""); err != nil {
			b.Fatal(err)
		}
	}
}

// A watch selecting app=web among 10k pods: each iteration moves one pod
// into or out of the selection and receives the Added or Deleted event.
// The setup includes the watch's seed list of the 10k objects.
func BenchmarkFilteredWatch10k(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		b.Fatal(err)
	}
	const n = 10000
	pods := make([]*api.Pod, n)
	for i := range n {
		pods[i] = clustertest.Pod("default", fmt.Sprintf("p-%d", i), map[string]string{"app": "db"})
		if _, err := c.Pods().Create(ctx, pods[i]); err != nil {
			b.Fatal(err)
		}
	}
	lw, err := c.Pods().Select(cluster.SelectOptions{LabelSelector: "app=web"})
	if err != nil {
		b.Fatal(err)
	}
	ch, err := lw.Watch(ctx, source.WatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pods[i%n]
		want := source.Added
		if p.Labels["app"] == "web" {
			p.Labels["app"], want = "db", source.Deleted
		} else {
			p.Labels["app"] = "web"
		}
		if _, err := c.Pods().Update(ctx, p, ""); err != nil {
			b.Fatal(err)
		}
		if ev := <-ch; ev.Type != want {
			b.Fatalf("got %v, want %v", ev.Type, want)
		}
		i++
	}
}
