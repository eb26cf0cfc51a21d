package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// Unconditional updates racing on one object all land (the store retries
// lost races); conditional ones from the same version: exactly one wins.
func TestConcurrentUpdates(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	p := clustertest.Pod("default", "p", nil)
	if _, err := c.Pods().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for {
				cur, _, err := c.Pods().Get(ctx, "default/p")
				if err != nil {
					t.Error(err)
					return
				}
				if cur.Annotations == nil {
					cur.Annotations = map[string]string{}
				}
				cur.Annotations[fmt.Sprint("k", i)] = "v"
				if _, err := c.Pods().Update(ctx, cur, ""); errors.Is(err, source.ErrConflict) {
					continue // read-modify-write, as a controller does
				} else if err != nil {
					t.Error(err)
				}
				return
			}
		})
	}
	wg.Wait()
	got, _, _ := c.Pods().Get(ctx, "default/p")
	if len(got.Annotations) != n {
		t.Errorf("%d annotations, want %d: lost updates", len(got.Annotations), n)
	}
	base := got.ResourceVersion
	wins := 0
	var mu sync.Mutex
	for i := range n {
		wg.Go(func() {
			cur := got.DeepCopy()
			cur.Labels = map[string]string{"winner": fmt.Sprint(i)}
			cur.ResourceVersion = base
			_, err := c.Pods().Update(ctx, cur, "")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, source.ErrConflict):
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Errorf("%d conditional updates won, want 1", wins)
	}
}

// The store keeps its own copies: changing the caller's object after a
// write, or what Get returned, changes nothing stored.
func TestCopies(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	p := clustertest.Pod("default", "p", map[string]string{"a": "1"})
	if _, err := c.Pods().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Labels["a"] = "changed"
	got, _, _ := c.Pods().Get(ctx, "default/p")
	if got.Labels["a"] != "1" {
		t.Fatal("the caller's object is shared with the store")
	}
	got.Labels["a"] = "changed"
	again, _, _ := c.Pods().Get(ctx, "default/p")
	if again.Labels["a"] != "1" {
		t.Fatal("Get's object is shared with the store")
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	if _, err := cluster.New(ctx, cluster.Options{HistorySize: -1}); err == nil {
		t.Error("negative HistorySize: no error")
	}
	if _, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{nil}}); err == nil {
		t.Error("nil admission func: no error")
	}
	c := newMemory(t, cluster.Options{})
	if _, err := c.Pods().Create(ctx, nil); err == nil {
		t.Error("nil pod: no error")
	}
	if _, err := c.Pods().Update(ctx, nil, ""); err == nil {
		t.Error("nil pod update: no error")
	}
	//nolint:staticcheck // a nil context on purpose
	if _, err := c.Pods().Create(nil, clustertest.Pod("default", "p", nil)); err == nil {
		t.Error("nil context: no error")
	}
	if _, err := c.CreateObject(ctx, nil); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("CreateObject(nil): %v", err)
	}
	if _, err := c.Pods().DeleteWith(ctx, "default/p", cluster.DeleteOptions{GracePeriodSeconds: ptr(int64(-1))}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("negative grace: %v", err)
	}
	if _, err := c.Bind(ctx, "default", "p", ""); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("bind to no node: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.Pods().Create(cancelled, clustertest.Pod("default", "p", nil)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestStoreFor(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	s, ok := cluster.StoreFor[*api.Pod](c)
	if !ok || s != c.Pods() || s.Resource() != "pods" {
		t.Errorf("StoreFor[*api.Pod] = %v, %v", s, ok)
	}
	for _, res := range []string{
		c.Nodes().Resource(), c.Services().Resource(), c.Endpoints().Resource(), c.ReplicaSets().Resource(),
		c.ReplicationControllers().Resource(), c.Deployments().Resource(), c.StatefulSets().Resource(),
		c.DaemonSets().Resource(), c.ControllerRevisions().Resource(), c.Jobs().Resource(), c.CronJobs().Resource(),
		c.Namespaces().Resource(), c.ResourceQuotas().Resource(), c.ServiceAccounts().Resource(), c.ConfigMaps().Resource(),
		c.Secrets().Resource(), c.PersistentVolumes().Resource(), c.PersistentVolumeClaims().Resource(),
		c.StorageClasses().Resource(), c.HorizontalPodAutoscalers().Resource(), c.Leases().Resource(), c.Events().Resource(),
	} {
		if res == "" {
			t.Error("a store without a resource name")
		}
	}
	// Every kind of controllers/api has a store.
	for _, gvk := range api.Kinds() {
		obj, _ := api.New(gvk.Kind)
		obj.GetObjectMeta().Name = "x"
		if _, err := c.CreateObject(context.Background(), obj); errors.Is(err, cluster.ErrBadRequest) {
			t.Errorf("%s: %v", gvk.Kind, err)
		}
	}
}

// A Store is a source.Writer: fake.Recorder records a controller's writes
// through it.
func TestRecorder(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	rec := fake.NewRecorder[*api.Pod](c.Pods(), api.Key[*api.Pod])
	p := clustertest.Pod("default", "p", nil)
	if _, err := rec.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Delete(ctx, "default/p", ""); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Writes()); n != 2 {
		t.Errorf("%d writes recorded, want 2", n)
	}
}
