package namespace_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/controllers/namespace"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestConditions(t *testing.T) {
	conds, changed := namespace.Conditions(nil, namespace.Remaining{
		Objects:    map[string]int{"pods.": 2, "configmaps.": 1},
		Finalizers: map[string]int{"example.com/hold": 1},
	}, t0)
	if !changed || len(conds) != 3 {
		t.Fatalf("changed %v, %d conditions", changed, len(conds))
	}
	want := map[string][3]string{
		namespace.ConditionContentFailure:      {"False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
		namespace.ConditionContentRemaining:    {"True", "SomeResourcesRemain", "Some resources are remaining: configmaps. has 1 resource instances, pods. has 2 resource instances"},
		namespace.ConditionFinalizersRemaining: {"True", "SomeFinalizersRemain", "Some finalizers are remaining: example.com/hold in 1 resource instances"},
	}
	for _, c := range conds {
		w := want[c.Type]
		if string(c.Status) != w[0] || c.Reason != w[1] || c.Message != w[2] {
			t.Errorf("%s: %s %s %q, want %v", c.Type, c.Status, c.Reason, c.Message, w)
		}
	}
	// The same again: unchanged. Then all gone: the times move only for
	// the conditions whose status changed.
	if _, changed := namespace.Conditions(conds, namespace.Remaining{Objects: map[string]int{"pods.": 2, "configmaps.": 1},
		Finalizers: map[string]int{"example.com/hold": 1}}, t0.Add(time.Minute)); changed {
		t.Error("same remainder: changed")
	}
	later := t0.Add(time.Hour)
	done, changed := namespace.Conditions(conds, namespace.Remaining{Errors: []string{"secrets.: delete x: boom"}}, later)
	if !changed {
		t.Fatal("not changed")
	}
	for _, c := range done {
		switch c.Type {
		case namespace.ConditionContentFailure:
			if c.Status != api.ConditionTrue || c.Message != "Failed to delete all resource types, 1 remaining: secrets.: delete x: boom" || !c.LastTransitionTime.Time.Equal(later) {
				t.Errorf("content failure %+v", c)
			}
		default:
			if c.Status != api.ConditionFalse || c.Reason != "ContentRemoved" || !c.LastTransitionTime.Time.Equal(later) {
				t.Errorf("%s %+v", c.Type, c)
			}
		}
	}
}

func TestPodsEstimate(t *testing.T) {
	g := func(s int64) *int64 { return &s }
	pods := []*api.Pod{
		{Spec: api.PodSpec{TerminationGracePeriodSeconds: g(30)}},
		{Spec: api.PodSpec{TerminationGracePeriodSeconds: g(600)}, Status: api.PodStatus{Phase: api.PodSucceeded}},
		{Spec: api.PodSpec{TerminationGracePeriodSeconds: g(120)}},
	}
	tests := []struct {
		since time.Duration
		want  time.Duration
	}{
		{0, 120 * time.Second},
		{time.Minute, 120 * time.Second},
		{120 * time.Second, 0},
	}
	for _, tt := range tests {
		if got := namespace.PodsEstimate(pods, t0, t0.Add(tt.since)); got != tt.want {
			t.Errorf("%v after the deletion: %v, want %v", tt.since, got, tt.want)
		}
	}
}

// Deleting a namespace holding a Deployment, a StatefulSet with claims,
// a service, a config map with its own finalizer and a pod with a long
// grace period: pods go first (the slow one after its grace period),
// then the rest; the finalizer holds the namespace until it is removed;
// creates are refused meanwhile.
func TestDeleteNamespace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1,
			// This test runs its own namespace controller.
			Manager: manager.Options{Controllers: []string{"*", "-namespace"}}})
		if err != nil {
			t.Fatal(err)
		}
		c := cp.Cluster
		f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
		nc, err := namespace.New(c, f, namespace.Options{Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		f.Start(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := nc.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
		defer func() {
			cancel()
			wg.Wait()
			f.Shutdown()
			if err := cp.Stop(); err != nil {
				t.Error(err)
			}
		}()

		objs, err := api.Decode([]byte(`
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    # They take 5 s to stop, so the controller's first pass always
    # counts them, whatever the goroutine order.
    metadata: {labels: {app: web}, annotations: {sim.ctrlkit.io/stop-after: 5s}}
    spec:
      containers: [{name: nginx, image: nginx}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: shop}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: postgres}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-db-0, namespace: shop, labels: {app: db}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: held, namespace: shop, finalizers: [example.com/hold]}
data: {a: b}
---
apiVersion: v1
kind: Pod
metadata:
  name: slow
  namespace: shop
  annotations: {sim.ctrlkit.io/stop-after: 10m}
spec:
  terminationGracePeriodSeconds: 120
  containers: [{name: c, image: busybox}]
`), api.DecodeOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := cp.Apply(ctx, objs...); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		podCount := func() int {
			sel, _ := c.Pods().Select(cluster.SelectOptions{FieldSelector: "metadata.namespace=shop"})
			l, err := sel.List(ctx, source.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return len(l.Items)
		}
		if n := podCount(); n != 4 { // 2 of the Deployment, db-0, slow
			t.Fatalf("before: %d pods in shop, want 4", n)
		}

		start := time.Now()
		if _, err := c.Namespaces().DeleteWith(ctx, "shop", cluster.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()
		if _, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "late", Namespace: "shop"}}); !errors.Is(err, cluster.ErrForbidden) {
			t.Errorf("create in a terminating namespace: %v, want ErrForbidden", err)
		}
		// Only the slow pod remains, and nothing else has gone yet.
		if n := podCount(); n != 1 {
			t.Errorf("after 30 s: %d pods, want 1 (the slow one)", n)
		}
		if _, _, err := c.Services().Get(ctx, "shop/web"); err != nil {
			t.Errorf("the service went before the pods: %v", err)
		}
		ns, _, err := c.Namespaces().Get(ctx, "shop")
		if err != nil {
			t.Fatal(err)
		}
		// Written by the first pass, which then waits the pods' grace
		// period (kcm does not watch pods). db-0 is not among them: its
		// claim has no volume to bind, so the scheduler held it, and a pod
		// never scheduled goes at once when deleted.
		if got := condition(ns, namespace.ConditionContentRemaining); got.Status != api.ConditionTrue || got.Message != "Some resources are remaining: pods. has 3 resource instances" {
			t.Errorf("NamespaceContentRemaining %+v", got)
		}

		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n := podCount(); n != 0 {
			t.Errorf("after the grace period: %d pods, want 0", n)
		}
		if _, _, err := c.Deployments().Get(ctx, "shop/web"); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("deployment: %v, want gone", err)
		}
		if _, _, err := c.PersistentVolumeClaims().Get(ctx, "shop/data-db-0"); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("claim: %v, want gone", err)
		}
		ns, _, err = c.Namespaces().Get(ctx, "shop")
		if err != nil {
			t.Fatalf("namespace went while a finalizer holds content: %v", err)
		}
		if got := condition(ns, namespace.ConditionFinalizersRemaining); got.Status != api.ConditionTrue || got.Message != "Some finalizers are remaining: example.com/hold in 1 resource instances" {
			t.Errorf("NamespaceFinalizersRemaining %+v", got)
		}
		cm, _, err := c.ConfigMaps().Get(ctx, "shop/held")
		if err != nil {
			t.Fatal(err)
		}
		cm.Finalizers = nil
		if _, err := c.ConfigMaps().Update(ctx, cm, ""); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if _, _, err := c.Namespaces().Get(ctx, "shop"); !errors.Is(err, source.ErrNotFound) {
			t.Errorf("namespace: %v, want gone", err)
		}
		t.Logf("namespace gone within %v of virtual time", time.Since(start))
	})
}

func condition(ns *api.Namespace, typ string) api.NamespaceCondition {
	for _, c := range ns.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return api.NamespaceCondition{}
}
