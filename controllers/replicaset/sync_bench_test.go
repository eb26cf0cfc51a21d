package replicaset

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
)

// BenchmarkSyncSettled is one sync of a settled ReplicaSet of a
// Deployment (selector app=web,pod-template-hash=h1) over 5,000 cached
// pods, all Running and Ready, plus 5,000 pods of a sibling set in the
// namespace: the sync the controller runs on each pod event of a large
// set. It writes nothing, and takes its counts from the tally (the first
// sync built it): what it costs does not grow with the set.
func BenchmarkSyncSettled(b *testing.B) {
	const pods = 5000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		b.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	var key string
	for _, hash := range []string{"h1", "h2"} {
		labels := map[string]string{"app": "web", "pod-template-hash": hash}
		replicas := int32(pods)
		rs := &api.ReplicaSet{
			ObjectMeta: api.ObjectMeta{Name: "web-" + hash, Namespace: "default"},
			Spec: api.ReplicaSetSpec{
				Replicas: &replicas,
				Selector: &api.LabelSelector{MatchLabels: labels},
				Template: api.PodTemplateSpec{
					ObjectMeta: api.ObjectMeta{Labels: labels},
					Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx"}}},
				},
			},
		}
		if _, err := c.ReplicaSets().Create(ctx, rs); err != nil {
			b.Fatal(err)
		}
		rs, _, err := c.ReplicaSets().Get(ctx, api.Key(rs))
		if err != nil {
			b.Fatal(err)
		}
		if key == "" {
			key = api.Key(rs)
		}
		for i := range pods {
			p := &api.Pod{
				ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("web-%s-%05d", hash, i), Namespace: "default", Labels: labels,
					OwnerReferences: []api.OwnerReference{api.NewControllerRef(rs)}},
				Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "app", Image: "nginx"}}},
			}
			if _, err := c.Pods().Create(ctx, p); err != nil {
				b.Fatal(err)
			}
			p, _, err := c.Pods().Get(ctx, api.Key(p))
			if err != nil {
				b.Fatal(err)
			}
			p.Status.Phase = api.PodRunning
			p.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(time.Now())}}
			if _, err := c.Pods().UpdateStatus(ctx, p); err != nil {
				b.Fatal(err)
			}
		}
	}
	k, err := replicaSetKind(c)
	if err != nil {
		b.Fatal(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	m, err := newManager(c, f, k, "replicaset-controller", Options{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	f.Start(ctx)
	defer f.Shutdown()
	if !f.WaitForCacheSync(ctx) {
		b.Fatal("caches did not sync")
	}
	// The first sync writes the status; wait until the cache has it, so
	// that the measured syncs find nothing to write.
	if _, err := m.sync(ctx, key); err != nil {
		b.Fatal(err)
	}
	if err := f.WaitForLatest(ctx); err != nil {
		b.Fatal(err)
	}
	if rs, _ := m.owners.Lister().Get(key); rs.Status.AvailableReplicas != pods {
		b.Fatalf("status %+v, want %d available", rs.Status, pods)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.sync(ctx, key); err != nil {
			b.Fatal(err)
		}
	}
}
