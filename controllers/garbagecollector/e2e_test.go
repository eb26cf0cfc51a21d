package garbagecollector_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// env is a cluster with a running collector, inside a synctest bubble.
type env struct {
	t      *testing.T
	ctx    context.Context
	c      *cluster.Cluster
	events *events.Memory
}

func start(t *testing.T) *env { return startWith(t, cluster.Options{}) }

func startWith(t *testing.T, opts cluster.Options) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	rec := events.NewMemory()
	gc, err := garbagecollector.New(c, f, garbagecollector.Options{Recorder: rec, Logger: logger, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
		f.Shutdown()
	})
	e := &env{t: t, ctx: ctx, c: c, events: rec}
	e.settle()
	return e
}

// settle lets a minute of virtual time pass (the collector's informers
// sync, retries back off) and waits until every goroutine of the bubble
// is idle.
func (e *env) settle() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

func labels() map[string]string { return map[string]string{"app": "web"} }

func template() api.PodTemplateSpec {
	return api.PodTemplateSpec{
		ObjectMeta: api.ObjectMeta{Labels: labels()},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
	}
}

func (e *env) deployment(name string) *api.Deployment {
	e.t.Helper()
	d := &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       api.DeploymentSpec{Selector: &api.LabelSelector{MatchLabels: labels()}, Template: template()},
	}
	if _, err := e.c.Deployments().Create(e.ctx, d); err != nil {
		e.t.Fatal(err)
	}
	return d
}

func (e *env) replicaSet(name string, owners ...api.OwnerReference) *api.ReplicaSet {
	e.t.Helper()
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", OwnerReferences: owners},
		Spec:       api.ReplicaSetSpec{Selector: &api.LabelSelector{MatchLabels: labels()}, Template: template()},
	}
	if _, err := e.c.ReplicaSets().Create(e.ctx, rs); err != nil {
		e.t.Fatal(err)
	}
	return rs
}

func (e *env) pod(name string, finalizers []string, owners ...api.OwnerReference) *api.Pod {
	e.t.Helper()
	p := &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: labels(), OwnerReferences: owners, Finalizers: finalizers},
		Spec:       template().Spec,
	}
	if _, err := e.c.Pods().Create(e.ctx, p); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) configMap(namespace, name string, owners ...api.OwnerReference) *api.ConfigMap {
	e.t.Helper()
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace, OwnerReferences: owners}}
	if _, err := e.c.ConfigMaps().Create(e.ctx, cm); err != nil {
		e.t.Fatal(err)
	}
	return cm
}

func (e *env) delete(s interface {
	DeleteWith(context.Context, string, cluster.DeleteOptions) (string, error)
}, key string, policy cluster.PropagationPolicy) {
	e.t.Helper()
	if _, err := s.DeleteWith(e.ctx, key, cluster.DeleteOptions{PropagationPolicy: policy}); err != nil {
		e.t.Fatal(err)
	}
}

// names lists the names of the objects of a kind.
func names[T api.Object](e *env, s *cluster.Store[T]) []string {
	e.t.Helper()
	l, err := s.List(e.ctx, source.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, o := range l.Items {
		out = append(out, o.GetObjectMeta().Name)
	}
	slices.Sort(out)
	return out
}

func get[T api.Object](e *env, s *cluster.Store[T], key string) (T, bool) {
	e.t.Helper()
	obj, _, err := s.Get(e.ctx, key)
	if errors.Is(err, source.ErrNotFound) {
		return obj, false
	}
	if err != nil {
		e.t.Fatal(err)
	}
	return obj, true
}

func want(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %q, want %q", what, got, want)
	}
}

func uids(refs []api.OwnerReference) []string {
	var out []string
	for _, r := range refs {
		out = append(out, string(r.UID))
	}
	return out
}

// chain builds Deployment web → ReplicaSets web-1 and web-2 → pods
// web-1-a, web-1-b and web-2-a by hand, with controller references (as
// the controllers set them, blockOwnerDeletion on); podFinalizers go on
// web-1-a.
func (e *env) chain(podFinalizers []string) (*api.Deployment, *api.ReplicaSet) {
	d := e.deployment("web")
	rs := e.replicaSet("web-1", api.NewControllerRef(d))
	e.pod("web-1-a", podFinalizers, api.NewControllerRef(rs))
	e.pod("web-1-b", nil, api.NewControllerRef(rs))
	rs2 := e.replicaSet("web-2", api.NewControllerRef(d))
	e.pod("web-2-a", nil, api.NewControllerRef(rs2))
	e.settle()
	want(e.t, "pods before", names(e, e.c.Pods()), "web-1-a", "web-1-b", "web-2-a")
	return d, rs
}

func TestBackgroundCascade(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.chain(nil)
		e.delete(e.c.Deployments(), "default/web", cluster.DeletePropagationBackground)
		e.settle()
		want(t, "deployments", names(e, e.c.Deployments()))
		want(t, "replica sets", names(e, e.c.ReplicaSets()))
		want(t, "pods", names(e, e.c.Pods()))
	})
}

func TestForegroundCascade(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		const hold = "test.ctrlkit.io/hold"
		e.chain([]string{hold})
		e.delete(e.c.Deployments(), "default/web", cluster.DeletePropagationForeground)
		e.settle()

		// web-1-a is held by its finalizer: it is being deleted, and its
		// owners wait for it, in foreground deletion.
		want(t, "pods while held", names(e, e.c.Pods()), "web-1-a")
		want(t, "replica sets while held", names(e, e.c.ReplicaSets()), "web-1")
		p, _ := get(e, e.c.Pods(), "default/web-1-a")
		if p.DeletionTimestamp == nil {
			t.Error("web-1-a has no deletionTimestamp")
		}
		d, ok := get(e, e.c.Deployments(), "default/web")
		if !ok || d.DeletionTimestamp == nil || !slices.Contains(d.Finalizers, cluster.FinalizerDeleteDependents) {
			t.Fatalf("deployment while held = %v (found %v), want deletionTimestamp and foregroundDeletion", d, ok)
		}
		rs, ok := get(e, e.c.ReplicaSets(), "default/web-1")
		if !ok || rs.DeletionTimestamp == nil || !slices.Contains(rs.Finalizers, cluster.FinalizerDeleteDependents) {
			t.Fatalf("replica set while held = %v (found %v), want deletionTimestamp and foregroundDeletion (kcm deletes it in the foreground)", rs, ok)
		}

		p.Finalizers = nil
		if _, err := e.c.Pods().Update(e.ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		e.settle()
		want(t, "pods", names(e, e.c.Pods()))
		want(t, "replica sets", names(e, e.c.ReplicaSets()))
		want(t, "deployments", names(e, e.c.Deployments()))
	})
}

// A dependent without blockOwnerDeletion does not hold its owner back: the
// owner goes at once and the dependent is collected afterwards.
func TestForegroundNonBlockingDependent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		const hold = "test.ctrlkit.io/hold"
		owner := e.configMap("default", "owner")
		ref := api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}
		e.pod("p", []string{hold}, ref)
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/owner", cluster.DeletePropagationForeground)
		e.settle()
		want(t, "config maps", names(e, e.c.ConfigMaps()))
		p, ok := get(e, e.c.Pods(), "default/p")
		if !ok || p.DeletionTimestamp == nil {
			t.Fatalf("pod = %v (found %v), want it being deleted", p, ok)
		}
	})
}

func TestOrphan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.chain(nil)
		e.delete(e.c.ReplicaSets(), "default/web-1", cluster.DeletePropagationOrphan)
		e.settle()
		want(t, "pods", names(e, e.c.Pods()), "web-1-a", "web-1-b", "web-2-a")
		want(t, "replica sets", names(e, e.c.ReplicaSets()), "web-2")
		for _, name := range []string{"web-1-a", "web-1-b"} {
			p, _ := get(e, e.c.Pods(), "default/"+name)
			if len(p.OwnerReferences) != 0 {
				t.Errorf("%s still has owner references %v", name, p.OwnerReferences)
			}
		}
		want(t, "deployments", names(e, e.c.Deployments()), "web")
		p, _ := get(e, e.c.Pods(), "default/web-2-a")
		if len(p.OwnerReferences) != 1 {
			t.Errorf("web-2-a lost its owner: %v", p.OwnerReferences)
		}

		// Orphaning the deployment leaves web-2 without owner, and its pod
		// with its own.
		e.delete(e.c.Deployments(), "default/web", cluster.DeletePropagationOrphan)
		e.settle()
		want(t, "deployments after orphaning", names(e, e.c.Deployments()))
		rs, ok := get(e, e.c.ReplicaSets(), "default/web-2")
		if !ok || len(rs.OwnerReferences) != 0 {
			t.Errorf("web-2 = %v (found %v), want it without owner references", rs, ok)
		}
		p, _ = get(e, e.c.Pods(), "default/web-2-a")
		if len(p.OwnerReferences) != 1 || p.OwnerReferences[0].UID != rs.UID {
			t.Errorf("web-2-a owners = %v, want web-2", p.OwnerReferences)
		}
	})
}

// A namespaced dependent may have a cluster-scoped owner.
func TestClusterScopedOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}
		if _, err := e.c.Nodes().Create(e.ctx, n); err != nil {
			t.Fatal(err)
		}
		e.configMap("default", "dep", api.NewControllerRef(n))
		e.settle()
		want(t, "config maps before", names(e, e.c.ConfigMaps()), "dep")
		e.delete(e.c.Nodes(), "n1", "")
		e.settle()
		want(t, "config maps", names(e, e.c.ConfigMaps()))
	})
}

func TestTwoOwnersOneDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		a, b := e.configMap("default", "a"), e.configMap("default", "b")
		e.pod("p", nil,
			api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: a.UID},
			api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "b", UID: b.UID})
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/a", cluster.DeletePropagationBackground)
		e.settle()
		p, ok := get(e, e.c.Pods(), "default/p")
		if !ok {
			t.Fatal("pod p was collected; it still has owner b")
		}
		want(t, "owners of p", uids(p.OwnerReferences), string(b.UID))

		e.delete(e.c.ConfigMaps(), "default/b", cluster.DeletePropagationBackground)
		e.settle()
		want(t, "pods", names(e, e.c.Pods()))
	})
}

// A failed write is retried with the queue's back-off until it succeeds.
func TestRetryAfterFailedWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		errRejected := errors.New("rejected")
		var rejected atomic.Int32
		e := startWith(t, cluster.Options{Admission: []cluster.AdmissionFunc{
			func(_ context.Context, a cluster.Attributes) error {
				if a.Resource == "pods" && a.Operation == cluster.OperationUpdate && rejected.Load() < 3 {
					rejected.Add(1)
					return errRejected
				}
				return nil
			},
		}})
		a, b := e.configMap("default", "a"), e.configMap("default", "b")
		e.pod("p", nil,
			api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: a.UID},
			api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "b", UID: b.UID})
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/a", "")
		e.settle()
		if rejected.Load() != 3 {
			t.Errorf("%d updates rejected, want 3", rejected.Load())
		}
		p, _ := get(e, e.c.Pods(), "default/p")
		want(t, "owners of p", uids(p.OwnerReferences), string(b.UID))
	})
}

// An owner deleted and created again under the same name is a different
// object: the live read sees another UID, and the dependent goes.
func TestOwnerRecreatedWithNewUID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		old := e.configMap("default", "owner")
		e.configMap("default", "dep", api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: old.UID})
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/owner", "")
		e.configMap("default", "owner")
		e.settle()
		want(t, "config maps", names(e, e.c.ConfigMaps()), "owner")
	})
}

// A dependent created with a reference to an owner that never existed is
// collected: the graph's virtual owner is checked live.
func TestOwnerNeverExisted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.configMap("default", "dep", api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "ghost", UID: "no-such-uid"})
		e.settle()
		want(t, "config maps", names(e, e.c.ConfigMaps()))
	})
}

func cycle(e *env) {
	a := e.configMap("default", "a")
	b := e.configMap("default", "b", api.NewControllerRef(a))
	a.OwnerReferences = []api.OwnerReference{api.NewControllerRef(b)}
	if _, err := e.c.ConfigMaps().Update(e.ctx, a, ""); err != nil {
		e.t.Fatal(err)
	}
	e.settle()
	want(e.t, "config maps before", names(e, e.c.ConfigMaps()), "a", "b")
}

func TestCycle(t *testing.T) {
	for _, policy := range []cluster.PropagationPolicy{cluster.DeletePropagationBackground, cluster.DeletePropagationForeground} {
		t.Run(string(policy), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := start(t)
				cycle(e)
				e.delete(e.c.ConfigMaps(), "default/a", policy)
				e.settle()
				want(t, "config maps", names(e, e.c.ConfigMaps()))
			})
		})
	}
}

// A reference to a kind the cluster does not serve leaves its dependent
// alone, even when its other owner is gone, and does not stop the
// collector.
func TestUnknownKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		widget := api.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "widget-uid"}
		owner := e.configMap("default", "owner")
		e.configMap("default", "only-widget", widget)
		// A version the cluster no longer serves names no kind either.
		e.configMap("default", "old-version", api.OwnerReference{APIVersion: "extensions/v1beta1", Kind: "Deployment", Name: "web", UID: "old-uid"})
		e.configMap("default", "widget-and-owner", widget, api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID})
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/owner", "")
		e.settle()
		want(t, "config maps", names(e, e.c.ConfigMaps()), "old-version", "only-widget", "widget-and-owner")

		// Not wedged: a cascade still happens.
		e.chain(nil)
		e.delete(e.c.Deployments(), "default/web", "")
		e.settle()
		want(t, "pods", names(e, e.c.Pods()))
	})
}

// A namespaced owner must be in its dependent's namespace. Kubernetes
// 1.20+ looks the owner up in the dependent's namespace, finds nothing,
// treats the reference as absent — the dependent is collected — and
// reports OwnerRefInvalidNamespace about it.
func TestCrossNamespaceOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		if _, err := e.c.Namespaces().Create(e.ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "other"}}); err != nil {
			t.Fatal(err)
		}
		owner := e.configMap("other", "owner")
		e.settle()
		e.configMap("default", "dep", api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID})
		e.settle()
		if _, ok := get(e, e.c.ConfigMaps(), "default/dep"); ok {
			t.Error("default/dep survives; kcm treats its owner as absent")
		}
		if _, ok := get(e, e.c.ConfigMaps(), "other/owner"); !ok {
			t.Error("other/owner was deleted")
		}
		wantEvent(t, e, "dep", garbagecollector.ReasonOwnerRefInvalidNamespace)
	})
}

// A cluster-scoped dependent cannot have a namespaced owner: it is never
// collected, and OwnerRefInvalidNamespace is reported.
func TestClusterScopedDependentOfNamespacedOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		owner := e.configMap("default", "owner")
		pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pv",
			OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}}}
		if _, err := e.c.PersistentVolumes().Create(e.ctx, pv); err != nil {
			t.Fatal(err)
		}
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/owner", "")
		e.settle()
		want(t, "persistent volumes", names(e, e.c.PersistentVolumes()), "pv")
		wantEvent(t, e, "pv", garbagecollector.ReasonOwnerRefInvalidNamespace)
	})
}

func wantEvent(t *testing.T, e *env, name, reason string) {
	t.Helper()
	for _, ev := range e.events.Events() {
		if ev.Regarding.Name == name && ev.Reason == reason && ev.Type == events.Warning {
			return
		}
	}
	t.Errorf("no Warning %s event about %s in %s", reason, name, strings.Join(e.events.Strings(), "; "))
}

func TestNewErrors(t *testing.T) {
	ctx := t.Context()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{})
	if _, err := garbagecollector.New(nil, f, garbagecollector.Options{}); err == nil {
		t.Error("New(nil cluster) succeeded")
	}
	if _, err := garbagecollector.New(c, nil, garbagecollector.Options{}); err == nil {
		t.Error("New(nil factory) succeeded")
	}
	if _, err := garbagecollector.New(c, f, garbagecollector.Options{Workers: -1}); err == nil {
		t.Error("New(Workers: -1) succeeded")
	}
}

// Events are not in the graph (kcm's DefaultIgnoredResources): an Event
// whose owner is deleted stays; an object an Event owns is checked live
// and stays while the Event exists.
func TestEventsIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		owner := e.configMap("default", "owner")
		ev := &api.Event{
			ObjectMeta:     api.ObjectMeta{Name: "ev", Namespace: "default", OwnerReferences: []api.OwnerReference{api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}},
			InvolvedObject: api.ObjectReference{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: owner.Name, UID: owner.UID},
			Reason:         "Test", Message: "owned", Type: "Normal",
		}
		if _, err := e.c.Events().Create(e.ctx, ev); err != nil {
			t.Fatal(err)
		}
		e.configMap("default", "dep", api.OwnerReference{APIVersion: "v1", Kind: "Event", Name: ev.Name, UID: ev.UID})
		e.configMap("default", "dep2", api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID})
		e.settle()
		e.delete(e.c.ConfigMaps(), "default/owner", cluster.DeletePropagationBackground)
		e.settle()
		want(t, "configmaps", names(e, e.c.ConfigMaps()), "dep")
		want(t, "events", names(e, e.c.Events()), "ev")
	})
}
