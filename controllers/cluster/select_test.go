package cluster_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/source"
)

type podEvent struct {
	typ  source.EventType
	name string
}

func recv(t *testing.T, ch <-chan source.Event[*api.Pod]) (podEvent, bool) {
	t.Helper()
	synctest.Wait()
	select {
	case ev, ok := <-ch:
		if !ok {
			return podEvent{}, false
		}
		if ev.Type == source.Error {
			t.Fatalf("error event: %v", ev.Err)
		}
		return podEvent{ev.Type, ev.Object.Name}, true
	default:
		return podEvent{}, false
	}
}

// A scheduler's watch (unscheduled pods) and a kubelet's (its node's
// pods): pods move in and out of both as they are bound and deleted.
func TestSelectSchedulerAndKubelet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c := newMemory(t, cluster.Options{})
		unscheduled, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName=,status.phase!=Succeeded"})
		if err != nil {
			t.Fatal(err)
		}
		onN1, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName==n1"})
		if err != nil {
			t.Fatal(err)
		}
		sched, err := unscheduled.Watch(ctx, source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		kubelet, err := onN1.Watch(ctx, source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Pods().Create(ctx, clustertest.Pod("default", "a", nil)); err != nil {
			t.Fatal(err)
		}
		if got, _ := recv(t, sched); got != (podEvent{source.Added, "a"}) {
			t.Fatalf("scheduler: %+v", got)
		}
		if got, ok := recv(t, kubelet); ok {
			t.Fatalf("kubelet saw %+v", got)
		}
		if _, err := c.Bind(ctx, "default", "a", "n1"); err != nil {
			t.Fatal(err)
		}
		if got, _ := recv(t, sched); got != (podEvent{source.Deleted, "a"}) {
			t.Fatalf("scheduler after bind: %+v", got)
		}
		if got, _ := recv(t, kubelet); got != (podEvent{source.Added, "a"}) {
			t.Fatalf("kubelet after bind: %+v", got)
		}
		p, _, _ := c.Pods().Get(ctx, "default/a")
		p.Status.Phase = api.PodRunning
		if _, err := c.Pods().UpdateStatus(ctx, p); err != nil {
			t.Fatal(err)
		}
		if got, _ := recv(t, kubelet); got != (podEvent{source.Modified, "a"}) {
			t.Fatalf("kubelet after status: %+v", got)
		}
		if got, ok := recv(t, sched); ok {
			t.Fatalf("scheduler saw %+v", got)
		}
		if _, err := c.Pods().DeleteWith(ctx, "default/a", cluster.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
		if got, _ := recv(t, kubelet); got != (podEvent{source.Deleted, "a"}) {
			t.Fatalf("kubelet after delete: %+v", got)
		}
	})
}

// Across a relist: the watch's version expires (a tiny history), the
// client relists through the selection and watches from the list.
func TestSelectAcrossRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c := newMemory(t, cluster.Options{HistorySize: 2})
		lw, err := c.Pods().Select(cluster.SelectOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatal(err)
		}
		l, err := lw.List(ctx, source.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		old := l.ResourceVersion
		for _, n := range []string{"a", "b", "c"} {
			if _, err := c.Pods().Create(ctx, clustertest.Pod("default", n, map[string]string{"app": "web"})); err != nil {
				t.Fatal(err)
			}
		}
		p, _, _ := c.Pods().Get(ctx, "default/a")
		p.Labels["app"] = "db"
		if _, err := c.Pods().Update(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: old}); !errors.Is(err, source.ErrExpired) {
			t.Fatalf("watch from an expired version: %v, want ErrExpired", err)
		}
		l, err = lw.List(ctx, source.ListOptions{ResourceVersion: old})
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 2 || l.Items[0].Name != "b" {
			t.Fatalf("relist: %d items", len(l.Items))
		}
		ch, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		p, _, _ = c.Pods().Get(ctx, "default/b")
		p.Labels["app"] = "db"
		if _, err := c.Pods().Update(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		p, _, _ = c.Pods().Get(ctx, "default/a")
		p.Labels["app"] = "web"
		if _, err := c.Pods().Update(ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		for _, want := range []podEvent{{source.Deleted, "b"}, {source.Added, "a"}} {
			if got, _ := recv(t, ch); got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
		}
	})
}

func TestSelectFieldsOfKinds(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	ctx := context.Background()
	for _, sel := range []string{"metadata.name=default", "metadata.namespace=", "status.phase=Active"} {
		lw, err := c.Namespaces().Select(cluster.SelectOptions{FieldSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		l, err := lw.List(ctx, source.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if sel == "metadata.name=default" && len(l.Items) != 1 || sel != "metadata.name=default" && len(l.Items) != 4 {
			t.Errorf("%s: %d namespaces", sel, len(l.Items))
		}
	}
	ev := &api.Event{ObjectMeta: api.ObjectMeta{Name: "e1"}, InvolvedObject: api.ObjectReference{Kind: "Pod", Namespace: "default", Name: "web-0"}, Reason: "Scheduled", Type: "Normal"}
	if _, err := c.Events().Create(ctx, ev); err != nil {
		t.Fatal(err)
	}
	for sel, want := range map[string]int{"involvedObject.kind=Pod,involvedObject.name=web-0": 1, "reason=Killing": 0, "type=Normal": 1} {
		lw, err := c.Events().Select(cluster.SelectOptions{FieldSelector: sel})
		if err != nil {
			t.Fatal(err)
		}
		if l, _ := lw.List(ctx, source.ListOptions{}); len(l.Items) != want {
			t.Errorf("events %s: %d, want %d", sel, len(l.Items), want)
		}
	}
	if _, err := c.Secrets().Select(cluster.SelectOptions{FieldSelector: "type=Opaque"}); err != nil {
		t.Error(err)
	}
	if _, err := c.Nodes().Select(cluster.SelectOptions{FieldSelector: "spec.unschedulable=false"}); err != nil {
		t.Error(err)
	}
	if _, err := c.Deployments().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName=x"}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("pod field on deployments: %v", err)
	}
	if _, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "novalue"}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("malformed field selector: %v", err)
	}
}
