package clustertest

import (
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

func testSelectWatch(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	_, err := c.Pods().Create(ctx, Pod("default", "a", map[string]string{"app": "web"}))
	must(t, err)
	_, err = c.Pods().Create(ctx, Pod("default", "b", map[string]string{"app": "db"}))
	must(t, err)
	lw, err := c.Pods().Select(cluster.SelectOptions{LabelSelector: "app=web", FieldSelector: "spec.nodeName="})
	must(t, err)
	l, err := lw.List(ctx, source.ListOptions{})
	must(t, err)
	if len(l.Items) != 1 || l.Items[0].Name != "a" {
		t.Fatalf("list: %d items", len(l.Items))
	}
	events, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion})
	must(t, err)
	relabel := func(name, app string) {
		t.Helper()
		p, _, err := c.Pods().Get(ctx, "default/"+name)
		must(t, err)
		p.Labels["app"] = app
		_, err = c.Pods().Update(ctx, p, "")
		must(t, err)
	}
	expect := func(typ source.EventType, name string) {
		t.Helper()
		ev := <-events
		if ev.Type != typ || ev.Object == nil || ev.Object.Name != name {
			t.Fatalf("got %v %v, want %v %s", ev.Type, ev.Object, typ, name)
		}
	}
	relabel("b", "web") // starts matching
	expect(source.Added, "b")
	_, err = c.Bind(ctx, "default", "a", "n1") // leaves spec.nodeName=
	must(t, err)
	expect(source.Deleted, "a")
	relabel("b", "db") // stops matching
	expect(source.Deleted, "b")
	relabel("a", "db")                                                                  // matched neither before nor after: nothing
	_, err = c.Pods().Create(ctx, Pod("default", "c", map[string]string{"app": "web"})) // proves the above sent nothing
	must(t, err)
	expect(source.Added, "c")
	if _, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.color=red"}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("unsupported field: %v", err)
	}
	if _, err := c.Pods().Select(cluster.SelectOptions{LabelSelector: "app in (x"}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("bad label selector: %v", err)
	}
}

func testBind(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	p := Pod("default", "a", nil)
	_, err := c.Pods().Create(ctx, p)
	must(t, err)
	p.Spec.NodeName = "n1"
	if _, err := c.Pods().Update(ctx, p, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("setting nodeName by Update: %v, want ErrInvalid", err)
	}
	_, err = c.Bind(ctx, "default", "a", "n1")
	must(t, err)
	got, _, err := c.Pods().Get(ctx, "default/a")
	must(t, err)
	if got.Spec.NodeName != "n1" {
		t.Errorf("nodeName %q", got.Spec.NodeName)
	}
	if cond, ok := got.Status.GetCondition(api.PodScheduled); !ok || cond.Status != api.ConditionTrue {
		t.Errorf("PodScheduled condition missing")
	}
	if _, err := c.Bind(ctx, "default", "a", "n2"); !errors.Is(err, source.ErrConflict) {
		t.Errorf("second bind: %v, want ErrConflict", err)
	}
}
