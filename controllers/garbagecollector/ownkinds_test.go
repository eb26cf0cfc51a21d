package garbagecollector_test

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The collector treats the kinds added with api.Register (apitest's
// Widget, namespaced, and Gizmo, cluster-scoped) as it treats the
// built-in ones, in both directions: as owners and as dependents.

func (e *env) widgets() client.Resource[*apitest.Widget] {
	e.t.Helper()
	r, err := client.For[*apitest.Widget](e.c)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) gizmos() client.Resource[*apitest.Gizmo] {
	e.t.Helper()
	r, err := client.For[*apitest.Gizmo](e.c)
	if err != nil {
		e.t.Fatal(err)
	}
	return r
}

func (e *env) widget(name string, owners ...api.OwnerReference) *apitest.Widget {
	e.t.Helper()
	w := &apitest.Widget{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", OwnerReferences: owners},
		Spec:       apitest.WidgetSpec{Color: "red"},
	}
	if _, err := e.widgets().Create(e.ctx, w); err != nil {
		e.t.Fatal(err)
	}
	return w
}

func (e *env) gizmo(name string, owners ...api.OwnerReference) *apitest.Gizmo {
	e.t.Helper()
	g := &apitest.Gizmo{ObjectMeta: api.ObjectMeta{Name: name, OwnerReferences: owners}}
	if _, err := e.gizmos().Create(e.ctx, g); err != nil {
		e.t.Fatal(err)
	}
	return g
}

// resourceNames lists the names of the objects of r.
func resourceNames[T api.Object](e *env, r client.Resource[T]) []string {
	e.t.Helper()
	l, err := r.List(e.ctx, source.ListOptions{})
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

// widgetChain builds Widget w owning (controller references,
// blockOwnerDeletion on) Deployment web and pod p, and ReplicaSet web-1
// of web owning pod web-1-a; podFinalizers go on p.
func (e *env) widgetChain(podFinalizers []string) *apitest.Widget {
	w := e.widget("w")
	ref := api.NewControllerRef(w)
	if ref.APIVersion != "example.ctrlkit.dev/v1" || ref.Kind != "Widget" {
		e.t.Fatalf("controller ref = %+v", ref)
	}
	d := &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default", OwnerReferences: []api.OwnerReference{ref}},
		Spec:       api.DeploymentSpec{Selector: &api.LabelSelector{MatchLabels: labels()}, Template: template()},
	}
	if _, err := e.c.Deployments().Create(e.ctx, d); err != nil {
		e.t.Fatal(err)
	}
	rs := e.replicaSet("web-1", api.NewControllerRef(d))
	e.pod("web-1-a", nil, api.NewControllerRef(rs))
	e.pod("p", podFinalizers, ref)
	e.settle()
	want(e.t, "pods before", names(e, e.c.Pods()), "p", "web-1-a")
	return w
}

func TestOwnKindOwnerBackground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.widgetChain(nil)
		e.delete(e.widgets(), "default/w", cluster.DeletePropagationBackground)
		e.settle()
		want(t, "widgets", resourceNames(e, e.widgets()))
		want(t, "deployments", names(e, e.c.Deployments()))
		want(t, "replica sets", names(e, e.c.ReplicaSets()))
		want(t, "pods", names(e, e.c.Pods()))
	})
}

func TestOwnKindOwnerForeground(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		const hold = "test.ctrlkit.io/hold"
		e.widgetChain([]string{hold})
		e.delete(e.widgets(), "default/w", cluster.DeletePropagationForeground)
		e.settle()

		// p is held by its finalizer: the widget waits for it.
		want(t, "deployments while held", names(e, e.c.Deployments()))
		want(t, "pods while held", names(e, e.c.Pods()), "p")
		w, _, err := e.widgets().Get(e.ctx, "default/w")
		if err != nil || w.DeletionTimestamp == nil || !slices.Contains(w.Finalizers, cluster.FinalizerDeleteDependents) {
			t.Fatalf("widget while held = %+v (%v), want deletionTimestamp and foregroundDeletion", w, err)
		}
		p, _ := get(e, e.c.Pods(), "default/p")
		p.Finalizers = nil
		if _, err := e.c.Pods().Update(e.ctx, p, ""); err != nil {
			t.Fatal(err)
		}
		e.settle()
		want(t, "pods", names(e, e.c.Pods()))
		want(t, "widgets", resourceNames(e, e.widgets()))
	})
}

func TestOwnKindOwnerOrphan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.widgetChain(nil)
		e.delete(e.widgets(), "default/w", cluster.DeletePropagationOrphan)
		e.settle()
		want(t, "widgets", resourceNames(e, e.widgets()))
		want(t, "deployments", names(e, e.c.Deployments()), "web")
		want(t, "pods", names(e, e.c.Pods()), "p", "web-1-a")
		d, _ := get(e, e.c.Deployments(), "default/web")
		p, _ := get(e, e.c.Pods(), "default/p")
		if len(d.OwnerReferences) != 0 || len(p.OwnerReferences) != 0 {
			t.Errorf("owner references left: deployment %v, pod %v", d.OwnerReferences, p.OwnerReferences)
		}
	})
}

// Own kinds as dependents: of a built-in kind, of another own kind, and
// of a cluster-scoped own kind.
func TestOwnKindDependents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		d := e.deployment("web")
		cm := e.configMap("default", "cm")
		e.widget("of-deployment", api.NewControllerRef(d))
		e.widget("of-configmap", api.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cm", UID: cm.UID})
		parent := e.widget("parent")
		e.widget("child", api.NewControllerRef(parent))
		node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}
		if _, err := e.c.Nodes().Create(e.ctx, node); err != nil {
			t.Fatal(err)
		}
		big := e.gizmo("big", api.NewControllerRef(node))
		e.gizmo("small", api.NewControllerRef(big))
		e.widget("of-gizmo", api.NewControllerRef(big))
		e.widget("stays")
		e.settle()
		want(t, "widgets before", resourceNames(e, e.widgets()), "child", "of-configmap", "of-deployment", "of-gizmo", "parent", "stays")

		e.delete(e.c.Deployments(), "default/web", cluster.DeletePropagationBackground)
		e.delete(e.c.ConfigMaps(), "default/cm", cluster.DeletePropagationBackground)
		e.delete(e.widgets(), "default/parent", cluster.DeletePropagationBackground)
		e.settle()
		want(t, "widgets", resourceNames(e, e.widgets()), "of-gizmo", "stays")

		// The node goes in the foreground: big, then small and of-gizmo.
		e.delete(e.c.Nodes(), "n1", cluster.DeletePropagationForeground)
		e.settle()
		want(t, "gizmos", resourceNames(e, e.gizmos()))
		want(t, "nodes", names(e, e.c.Nodes()))
		want(t, "widgets after the node", resourceNames(e, e.widgets()), "stays")
	})
}

// A dependent whose owner reference names an own kind with an owner that
// never existed is collected: the reference resolves by apiVersion and
// kind to the widgets' store, where the owner is absent. At another
// version the kind is unknown, and the dependent stays.
func TestOwnKindDanglingReference(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		e.configMap("default", "dangling", api.OwnerReference{APIVersion: "example.ctrlkit.dev/v1", Kind: "Widget", Name: "ghost", UID: "ghost-uid"})
		e.configMap("default", "other-version", api.OwnerReference{APIVersion: "example.ctrlkit.dev/v2", Kind: "Widget", Name: "ghost", UID: "ghost-uid-2"})
		e.settle()
		want(t, "config maps", names(e, e.c.ConfigMaps()), "other-version")
	})
}

// sprocket is a kind registered after the collector's New; the collector
// starts watching it at its next discovery.
type sprocket struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           struct {
		Teeth int `json:"teeth,omitempty"`
	} `json:"spec"`
}

var sprocketGVK = api.GroupVersionKind{Group: "late.ctrlkit.dev", Version: "v1", Kind: "Sprocket"}

func (*sprocket) GroupVersionKind() api.GroupVersionKind { return sprocketGVK }
func (s *sprocket) DeepCopyObject() api.Object           { return api.DeepCopyOf(s) }

func TestKindRegisteredAfterNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		if err != nil {
			t.Fatal(err)
		}
		logger := slog.New(slog.DiscardHandler)
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		gc, err := garbagecollector.New(c, f, garbagecollector.Options{Logger: logger, Workers: 2, DiscoveryPeriod: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- gc.Run(ctx) }()
		defer func() {
			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v", err)
			}
			f.Shutdown()
		}()
		e := &env{t: t, ctx: ctx, c: c}
		e.settle()

		if _, err := api.Register[*sprocket](api.KindInfo{GroupVersionKind: sprocketGVK, Resource: "sprockets", Namespaced: true}); err != nil {
			t.Fatal(err)
		}
		sprockets, err := client.For[*sprocket](c)
		if err != nil {
			t.Fatal(err)
		}
		cm := e.configMap("default", "owner")
		s := &sprocket{ObjectMeta: api.ObjectMeta{Name: "s", Namespace: "default",
			OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: cm.UID}}}}
		if _, err := sprockets.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		e.configMap("default", "of-sprocket", api.NewControllerRef(s))
		e.settle()

		e.delete(c.ConfigMaps(), "default/owner", cluster.DeletePropagationBackground)
		e.settle()
		want(t, "sprockets", resourceNames(e, sprockets))
		want(t, "config maps", names(e, c.ConfigMaps()))
	})
}
