package cluster

import (
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// A status update stores a pod that shares its unchanged spec, labels
// and owner references with the version it replaced, which the watch
// history still serves unchanged; what changed is its own; a copy Get
// returns shares nothing with either.
func TestUpdateSharesUnchangedParts(t *testing.T) {
	ctx := t.Context()
	c, err := New(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", Labels: map[string]string{"app": "web"},
			OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "u1"}}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}},
			Tolerations: []api.Toleration{{Key: "k", Operator: api.TolerationOpExists}}},
	}
	rv0, err := c.Pods().Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Pods().Watch(ctx, source.WatchOptions{ResourceVersion: rv0})
	if err != nil {
		t.Fatal(err)
	}
	cur, _, err := c.Pods().Get(ctx, "default/web")
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.Phase = api.PodRunning
	cur.Status.Conditions = []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}
	if _, err := c.Pods().UpdateStatus(ctx, cur); err != nil {
		t.Fatal(err)
	}
	l, err := c.Pods().List(ctx, source.ListOptions{ResourceVersion: rv0, ResourceVersionMatch: source.Exact})
	if err != nil {
		t.Fatal(err)
	}
	old := l.Items[0]
	ev := <-w
	next := ev.Object
	if ev.Type != source.Modified || next.Status.Phase != api.PodRunning || old.Status.Phase != api.PodPending || len(old.Status.Conditions) != 0 {
		t.Fatalf("versions: old %+v, event %s %+v", old.Status, ev.Type, next.Status)
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	if !same(old.Spec.Containers, next.Spec.Containers) || !same(old.Spec.Tolerations, next.Spec.Tolerations) ||
		!same(old.Labels, next.Labels) || !same(old.OwnerReferences, next.OwnerReferences) {
		t.Errorf("the unchanged parts are held twice")
	}
	if !reflect.DeepEqual(old.Spec, next.Spec) || old.Labels["app"] != "web" {
		t.Errorf("shared parts differ: %+v %+v", old.Spec, next.Spec)
	}
	got, _, err := c.Pods().Get(ctx, "default/web")
	if err != nil {
		t.Fatal(err)
	}
	if same(got.Spec.Containers, next.Spec.Containers) || same(got.Labels, next.Labels) {
		t.Errorf("Get's copy shares the stored object's parts")
	}
	got.Labels["app"] = "changed"
	got.Spec.Containers[0].Image = "changed"
	if old.Labels["app"] != "web" || next.Spec.Containers[0].Image != "nginx" {
		t.Errorf("changing Get's copy changed the stored versions")
	}
}

// shareUnchanged shares only what is equal, and never changes prev.
func TestShareUnchangedOnlyEqualParts(t *testing.T) {
	prev := &api.Pod{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"a": "1"}, Annotations: map[string]string{"x": "1"}},
		Spec: api.PodSpec{NodeName: "n1", Containers: []api.Container{{Name: "c"}}}}
	next := prev.DeepCopy()
	next.Annotations["x"] = "2"
	next.Spec.NodeName = "n2"
	shareUnchanged(prev, next)
	if reflect.ValueOf(prev.Labels).UnsafePointer() != reflect.ValueOf(next.Labels).UnsafePointer() {
		t.Errorf("equal labels not shared")
	}
	if prev.Annotations["x"] != "1" || next.Annotations["x"] != "2" || prev.Spec.NodeName != "n1" || next.Spec.NodeName != "n2" {
		t.Errorf("a changed field was shared: prev %+v next %+v", prev, next)
	}
	if &prev.Spec.Containers[0] != &next.Spec.Containers[0] {
		t.Errorf("equal containers not shared")
	}
	var nilPod *api.Pod
	shareUnchanged(nilPod, next) // no panic
}

// Pods created by one controller hold one copy of what they have in
// common — their template's containers and tolerations, their labels and
// owner references — while what differs stays their own; a pod of
// another controller, or of none, shares nothing with them.
func TestCreateSharesWithSiblings(t *testing.T) {
	ctx := t.Context()
	c, err := New(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	pod := func(name, owner string, image string) *api.Pod {
		p := &api.Pod{
			ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: image}},
				Tolerations: []api.Toleration{{Key: "k", Operator: api.TolerationOpExists}}},
		}
		if owner != "" {
			p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: owner, UID: api.UID("uid-" + owner), Controller: &yes}}
		}
		return p
	}
	for _, p := range []*api.Pod{pod("a1", "a", "nginx"), pod("a2", "a", "nginx"), pod("a3", "a", "redis"), pod("b1", "b", "nginx"), pod("o1", "", "nginx"), pod("o2", "", "nginx")} {
		if _, err := c.Pods().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	l, err := c.Pods().List(ctx, source.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*api.Pod{}
	for _, p := range l.Items {
		got[p.Name] = p
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	a1, a2, a3, b1, o1, o2 := got["a1"], got["a2"], got["a3"], got["b1"], got["o1"], got["o2"]
	if !same(a1.Spec.Containers, a2.Spec.Containers) || !same(a1.Spec.Tolerations, a2.Spec.Tolerations) ||
		!same(a1.Labels, a2.Labels) || !same(a1.OwnerReferences, a2.OwnerReferences) {
		t.Errorf("siblings of one template hold their common parts twice")
	}
	if same(a2.Spec.Containers, a3.Spec.Containers) || a3.Spec.Containers[0].Image != "redis" || a2.Spec.Containers[0].Image != "nginx" {
		t.Errorf("a sibling's different containers were shared: %v %v", a2.Spec.Containers, a3.Spec.Containers)
	}
	if !same(a2.Spec.Tolerations, a3.Spec.Tolerations) || !same(a2.Labels, a3.Labels) {
		t.Errorf("a sibling with other containers does not share its equal parts")
	}
	for _, p := range []*api.Pod{b1, o1, o2} {
		if same(a1.Spec.Containers, p.Spec.Containers) || same(a1.Labels, p.Labels) {
			t.Errorf("%s shares with the pods of another owner", p.Name)
		}
	}
	if same(o1.Spec.Containers, o2.Spec.Containers) {
		t.Errorf("pods of no family (no controller, no generateName) shared parts")
	}
	// A copy read back shares nothing, and changing it changes no sibling.
	cp, _, err := c.Pods().Get(ctx, "default/a2")
	if err != nil {
		t.Fatal(err)
	}
	cp.Labels["app"] = "changed"
	cp.Spec.Containers[0].Image = "changed"
	if a1.Labels["app"] != "web" || a1.Spec.Containers[0].Image != "nginx" {
		t.Errorf("changing a copy changed a stored sibling")
	}
}

// Siblings created concurrently (a ReplicaSet's slow-start batch) each
// read a complete earlier sibling: under -race, sharing with an object
// still being built is reported.
func TestCreateSharesWithSiblingsConcurrently(t *testing.T) {
	ctx := t.Context()
	c, err := New(ctx, Options{})
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 20 {
				p := &api.Pod{
					ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p-%d-%d", g, i), Namespace: "default", Labels: map[string]string{"app": "web"},
						OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "uid-rs", Controller: &yes}}},
					Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
				}
				if _, err := c.Pods().Create(ctx, p); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	l, err := c.Pods().List(ctx, source.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 160 {
		t.Fatalf("%d pods, want 160", len(l.Items))
	}
	for _, p := range l.Items {
		if p.Labels["app"] != "web" || len(p.Spec.Containers) != 1 || p.Spec.Containers[0].Image != "nginx" || p.OwnerReferences[0].UID != "uid-rs" {
			t.Errorf("%s: %+v", p.Name, p)
		}
	}
}
