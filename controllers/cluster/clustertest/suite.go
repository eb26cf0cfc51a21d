package clustertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// NewCluster returns a fresh, empty cluster built with opts (plus the
// backend under test); it must clean up with t.Cleanup.
type NewCluster func(t *testing.T, opts cluster.Options) *cluster.Cluster

// Run runs the suite, each case as a subtest with a cluster of its own.
func Run(t *testing.T, newCluster NewCluster) {
	cases := []struct {
		name string
		fn   func(t *testing.T, newCluster NewCluster)
	}{
		{"DefaultNamespaces", testDefaultNamespaces},
		{"Create", testCreate},
		{"CreateNamespaceLifecycle", testNamespaceLifecycle},
		{"Invalid", testInvalid},
		{"Admission", testAdmission},
		{"UpdateConflict", testUpdateConflict},
		{"UpdateNoop", testUpdateNoop},
		{"Generation", testGeneration},
		{"Status", testStatus},
		{"Immutable", testImmutable},
		{"DeleteFinalizers", testDeleteFinalizers},
		{"DeletePropagation", testDeletePropagation},
		{"DeletePodGraceful", testDeletePodGraceful},
		{"DeletePreconditions", testDeletePreconditions},
		{"SelectWatch", testSelectWatch},
		{"Bind", testBind},
		{"ObjectSizeLimit", testObjectSizeLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.fn(t, newCluster) })
	}
}

func ctxOf(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Pod returns a minimal valid pod.
func Pod(namespace, name string, labels map[string]string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
	}
}

// Deployment returns a minimal valid deployment selecting app=name.
func Deployment(namespace, name string) *api.Deployment {
	l := map[string]string{"app": name}
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name},
		Spec: api.DeploymentSpec{
			Selector: &api.LabelSelector{MatchLabels: l},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: l},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}
}

func testDefaultNamespaces(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	for _, n := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		ns, _, err := c.Namespaces().Get(ctx, n)
		must(t, err)
		if ns.Status.Phase != api.NamespaceActive {
			t.Errorf("%s: phase %q", n, ns.Status.Phase)
		}
		if n == "kube-node-lease" {
			continue
		}
		if _, err := c.Namespaces().Delete(ctx, n, ""); !errors.Is(err, cluster.ErrForbidden) {
			t.Errorf("delete %s: %v, want ErrForbidden", n, err)
		}
	}
}

func testCreate(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	d := Deployment("", "web")
	rv, err := c.Deployments().Create(ctx, d)
	must(t, err)
	if d.ResourceVersion != rv || rv == "" {
		t.Errorf("resourceVersion %q, returned %q", d.ResourceVersion, rv)
	}
	if d.Namespace != "default" || d.UID == "" || d.Generation != 1 || d.CreationTimestamp.IsZero() {
		t.Errorf("server fields not set: %+v", d.ObjectMeta)
	}
	if d.APIVersion != "apps/v1" || d.Kind != "Deployment" {
		t.Errorf("type meta %+v", d.TypeMeta)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("replicas not defaulted")
	}
	got, gotRV, err := c.Deployments().Get(ctx, "default/web")
	must(t, err)
	if gotRV != rv || got.UID != d.UID || got.ResourceVersion != rv {
		t.Errorf("get: rv %q uid %q", gotRV, got.UID)
	}
	if _, err := c.Deployments().Create(ctx, Deployment("default", "web")); !errors.Is(err, source.ErrAlreadyExists) {
		t.Errorf("second create: %v, want ErrAlreadyExists", err)
	}
	p := Pod("default", "", nil)
	p.GenerateName = "web-"
	_, err = c.Pods().Create(ctx, p)
	must(t, err)
	if len(p.Name) != len("web-")+5 || p.Name[:4] != "web-" {
		t.Errorf("generated name %q", p.Name)
	}
	if _, _, err := c.Pods().Get(ctx, "default/"+p.Name); err != nil {
		t.Error(err)
	}
	if _, _, err := c.Pods().Get(ctx, "default/nope"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("get missing: %v", err)
	}
	// The cluster-scoped kinds are keyed by name.
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}
	_, err = c.Nodes().Create(ctx, n)
	must(t, err)
	if _, _, err := c.Nodes().Get(ctx, "n1"); err != nil {
		t.Error(err)
	}
}

func testNamespaceLifecycle(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	if _, err := c.Pods().Create(ctx, Pod("missing", "a", nil)); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("create in a missing namespace: %v, want ErrNotFound", err)
	}
	_, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "demo"}})
	must(t, err)
	_, err = c.Pods().Create(ctx, Pod("demo", "a", nil))
	must(t, err)
	_, err = c.Namespaces().Delete(ctx, "demo", "")
	must(t, err)
	ns, _, err := c.Namespaces().Get(ctx, "demo")
	must(t, err)
	if ns.Status.Phase != api.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Fatalf("deleted namespace: phase %q, deletionTimestamp %v", ns.Status.Phase, ns.DeletionTimestamp)
	}
	if _, err := c.Pods().Create(ctx, Pod("demo", "b", nil)); !errors.Is(err, cluster.ErrForbidden) {
		t.Errorf("create in a terminating namespace: %v, want ErrForbidden", err)
	}
	// The namespace controller empties it and removes its finalizer.
	_, err = c.Pods().DeleteWith(ctx, "demo/a", cluster.DeleteOptions{GracePeriodSeconds: new(int64)})
	must(t, err)
	ns.Spec.Finalizers = nil
	_, err = c.Namespaces().Update(ctx, ns, "")
	must(t, err)
	if _, _, err := c.Namespaces().Get(ctx, "demo"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("finalized namespace: %v, want it gone", err)
	}
}

func testInvalid(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	d := Deployment("default", "Bad_Name")
	d.Spec.Template.Labels = map[string]string{"app": "other"}
	_, err := c.Deployments().Create(ctx, d)
	if !errors.Is(err, cluster.ErrInvalid) {
		t.Fatalf("create: %v, want ErrInvalid", err)
	}
	var inv *cluster.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("%T is not an *InvalidError", err)
	}
	for _, path := range []string{"metadata.name", "spec.template.metadata.labels"} {
		if _, ok := inv.Field(path); !ok {
			t.Errorf("no error at %s in %v", path, err)
		}
	}
	if _, _, err := c.Deployments().Get(ctx, "default/Bad_Name"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("an invalid object was stored: %v", err)
	}
}

func testAdmission(t *testing.T, newCluster NewCluster) {
	errQuota := errors.New("exceeded quota")
	var seen []cluster.Attributes
	c := newCluster(t, cluster.Options{Admission: []cluster.AdmissionFunc{
		func(ctx context.Context, a cluster.Attributes) error {
			seen = append(seen, a)
			if a.Resource == "pods" && a.Object.GetObjectMeta().Labels["big"] == "true" {
				return errQuota
			}
			return nil
		},
	}})
	ctx := ctxOf(t)
	seen = nil
	_, err := c.Pods().Create(ctx, Pod("default", "small", nil))
	must(t, err)
	if _, err := c.Pods().Create(ctx, Pod("default", "big", map[string]string{"big": "true"})); !errors.Is(err, errQuota) {
		t.Errorf("rejected create: %v, want the admission error", err)
	}
	if _, _, err := c.Pods().Get(ctx, "default/big"); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("a rejected pod was stored")
	}
	p, _, err := c.Pods().Get(ctx, "default/small")
	must(t, err)
	p.Labels = map[string]string{"big": "true"}
	if _, err := c.Pods().Update(ctx, p, ""); !errors.Is(err, errQuota) {
		t.Errorf("rejected update: %v", err)
	}
	if len(seen) < 3 || seen[0].Operation != cluster.OperationCreate || seen[2].Operation != cluster.OperationUpdate || seen[2].OldObject == nil {
		t.Errorf("admission saw %+v", seen)
	}
}

func testUpdateConflict(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	p := Pod("default", "a", nil)
	_, err := c.Pods().Create(ctx, p)
	must(t, err)
	stale := p.DeepCopy()
	p.Labels = map[string]string{"v": "1"}
	_, err = c.Pods().Update(ctx, p, "")
	must(t, err)
	stale.Labels = map[string]string{"v": "2"}
	if _, err := c.Pods().Update(ctx, stale, ""); !errors.Is(err, source.ErrConflict) {
		t.Errorf("update with a stale resourceVersion: %v, want ErrConflict", err)
	}
	stale.ResourceVersion = ""
	_, err = c.Pods().Update(ctx, stale, "")
	must(t, err)
	if stale.Labels["v"] != "2" {
		t.Errorf("unconditional update: %v", stale.Labels)
	}
	if _, err := c.Pods().Update(ctx, Pod("default", "missing", nil), ""); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("update missing: %v", err)
	}
}

func testUpdateNoop(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	p := Pod("default", "a", nil)
	rv, err := c.Pods().Create(ctx, p)
	must(t, err)
	events, err := c.Pods().Watch(ctx, source.WatchOptions{ResourceVersion: rv})
	must(t, err)
	same := p.DeepCopy()
	rv2, err := c.Pods().Update(ctx, same, "")
	must(t, err)
	if rv2 != rv {
		t.Errorf("a no-op update got version %q, want %q", rv2, rv)
	}
	p.Labels = map[string]string{"x": "y"}
	rv3, err := c.Pods().Update(ctx, p, "")
	must(t, err)
	// The first event is the real change: the no-op sent none.
	ev := <-events
	if ev.Type != source.Modified || ev.ResourceVersion != rv3 || ev.Object.Labels["x"] != "y" {
		t.Errorf("first event %v at %s, want the labelled update at %s", ev.Type, ev.ResourceVersion, rv3)
	}
}

func testGeneration(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	d := Deployment("default", "web")
	_, err := c.Deployments().Create(ctx, d)
	must(t, err)
	d.Labels = map[string]string{"team": "a"}
	_, err = c.Deployments().Update(ctx, d, "")
	must(t, err)
	if d.Generation != 1 {
		t.Errorf("a metadata change bumped generation to %d", d.Generation)
	}
	d.Spec.Replicas = new(int32)
	*d.Spec.Replicas = 3
	_, err = c.Deployments().Update(ctx, d, "")
	must(t, err)
	if d.Generation != 2 {
		t.Errorf("a spec change: generation %d, want 2", d.Generation)
	}
	d.Generation = 7 // ignored: server-owned
	d.Spec.Paused = true
	_, err = c.Deployments().Update(ctx, d, "")
	must(t, err)
	if d.Generation != 3 {
		t.Errorf("generation %d, want 3", d.Generation)
	}
}

func testStatus(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	d := Deployment("default", "web")
	d.Status.Replicas = 9 // reset on create
	_, err := c.Deployments().Create(ctx, d)
	must(t, err)
	if d.Status.Replicas != 0 {
		t.Errorf("create kept status %+v", d.Status)
	}
	d.Status.Replicas = 2
	rv := d.ResourceVersion
	rv2, err := c.Deployments().Update(ctx, d, "")
	must(t, err)
	if d.Status.Replicas != 0 || rv2 != rv {
		t.Errorf("Update wrote status: %+v (rv %s -> %s)", d.Status, rv, rv2)
	}
	d.Status.Replicas = 2
	d.Status.ObservedGeneration = 1
	d.Spec.Paused = true // ignored by UpdateStatus
	_, err = c.Deployments().UpdateStatus(ctx, d)
	must(t, err)
	got, _, err := c.Deployments().Get(ctx, "default/web")
	must(t, err)
	if got.Status.Replicas != 2 || got.Spec.Paused || got.Generation != 1 {
		t.Errorf("after UpdateStatus: status %+v paused %v generation %d", got.Status, got.Spec.Paused, got.Generation)
	}
	if _, err := c.ConfigMaps().UpdateStatus(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "x"}}); !errors.Is(err, cluster.ErrBadRequest) {
		t.Errorf("UpdateStatus of a kind without status: %v", err)
	}
}

func testImmutable(t *testing.T, newCluster NewCluster) {
	c := newCluster(t, cluster.Options{})
	ctx := ctxOf(t)
	d := Deployment("default", "web")
	_, err := c.Deployments().Create(ctx, d)
	must(t, err)
	d.Spec.Selector.MatchLabels = map[string]string{"app": "web", "v": "2"}
	d.Spec.Template.Labels = map[string]string{"app": "web", "v": "2"}
	_, err = c.Deployments().Update(ctx, d, "")
	var inv *cluster.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("selector change: %v", err)
	}
	if _, ok := inv.Field("spec.selector"); !ok {
		t.Errorf("no error at spec.selector: %v", err)
	}
	p := Pod("default", "p", nil)
	_, err = c.Pods().Create(ctx, p)
	must(t, err)
	p.Spec.Containers[0].Image = "nginx:1.28" // allowed
	_, err = c.Pods().Update(ctx, p, "")
	must(t, err)
	p.Spec.RestartPolicy = api.RestartPolicyNever // not allowed
	if _, err := c.Pods().Update(ctx, p, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("pod restartPolicy change: %v, want ErrInvalid", err)
	}
}

func ptr[V any](v V) *V { return &v }
