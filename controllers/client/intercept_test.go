package client_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// calls records the calls an InterceptFunc sees, with a copy of each
// object as sent.
type calls struct {
	mu   sync.Mutex
	seen []client.Call
}

func (c *calls) f(ctx context.Context, call client.Call, next func(context.Context) error) error {
	if call.Object != nil {
		call.Object = call.Object.DeepCopyObject()
	}
	c.mu.Lock()
	c.seen = append(c.seen, call)
	c.mu.Unlock()
	return next(ctx)
}

func (c *calls) list() []client.Call {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]client.Call(nil), c.seen...)
}

func newCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func resource[T api.Object](t *testing.T, c client.Client) client.Resource[T] {
	t.Helper()
	r, err := client.For[T](c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func newPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
	}
}

func newDeployment(name string) *api.Deployment {
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: api.DeploymentSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// Every method of Resource, the Selects' List and Watch, and Bind reach f
// with the Call that describes them; Resource and Select do not.
func TestInterceptEveryVerb(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var rec calls
		c := client.Intercept(newCluster(t), rec.f)
		deps := resource[*api.Deployment](t, c)
		pods := resource[*api.Pod](t, c)
		if got := deps.Resource(); got != "deployments" {
			t.Fatalf("Resource() = %q", got)
		}

		d := newDeployment("web")
		must(deps.Create(ctx, d))
		_, rv, err := deps.Get(ctx, "default/web")
		must(rv, err)
		if d.UID == "" || d.ResourceVersion != rv || d.Spec.Replicas == nil {
			t.Fatalf("a successful create did not overwrite the caller's object: %+v", d.ObjectMeta)
		}
		must(deps.List(ctx, source.ListOptions{Limit: 5}))
		must(deps.Watch(ctx, source.WatchOptions{ResourceVersion: rv, AllowBookmarks: true}))
		d.Spec.Paused = true
		must(deps.Update(ctx, d, rv))
		d.Status.ObservedGeneration = 2
		must(deps.UpdateStatus(ctx, d))
		patch := []byte(`{"spec":{"paused":false}}`)
		must(deps.Patch(ctx, "default/web", client.MergePatch, patch))
		must(deps.GetScale(ctx, "default/web"))
		scale := &api.Scale{Spec: api.ScaleSpec{Replicas: 3}}
		must(deps.UpdateScale(ctx, "default/web", scale))
		sel := client.SelectOptions{Namespace: "default", LabelSelector: "app=web"}
		lw, err := deps.Select(sel)
		must(lw, err)
		must(lw.List(ctx, source.ListOptions{}))
		must(lw.Watch(ctx, source.WatchOptions{}))
		grace := int64(0)
		delOpts := client.DeleteOptions{GracePeriodSeconds: &grace, PropagationPolicy: client.DeletePropagationOrphan}
		must(deps.DeleteWith(ctx, "default/web", delOpts))
		if _, err := deps.Delete(ctx, "default/gone", "7"); !client.IsNotFound(err) {
			t.Fatalf("Delete of a missing object: %v, want IsNotFound", err)
		}
		must(pods.Create(ctx, newPod("p")))
		b, err := client.BinderFor(c)
		must(b, err)
		must(b.Bind(ctx, "default", "p", "node-1"))

		want := []client.Call{
			{Verb: "create", Resource: "deployments", Key: "default/web"},
			{Verb: "get", Resource: "deployments", Key: "default/web"},
			{Verb: "list", Resource: "deployments", ListOptions: source.ListOptions{Limit: 5}},
			{Verb: "watch", Resource: "deployments", WatchOptions: source.WatchOptions{ResourceVersion: rv, AllowBookmarks: true}},
			{Verb: "update", Resource: "deployments", Key: "default/web", IfVersion: rv},
			{Verb: "update", Resource: "deployments", Subresource: "status", Key: "default/web"},
			{Verb: "patch", Resource: "deployments", Key: "default/web", PatchType: client.MergePatch, Patch: patch},
			{Verb: "get", Resource: "deployments", Subresource: "scale", Key: "default/web"},
			{Verb: "update", Resource: "deployments", Subresource: "scale", Key: "default/web", Scale: scale},
			{Verb: "list", Resource: "deployments", SelectOptions: sel},
			{Verb: "watch", Resource: "deployments", SelectOptions: sel},
			{Verb: "delete", Resource: "deployments", Key: "default/web", DeleteOptions: delOpts},
			{Verb: "delete", Resource: "deployments", Key: "default/gone", DeleteOptions: client.DeleteOptions{Preconditions: client.Preconditions{ResourceVersion: "7"}}},
			{Verb: "create", Resource: "pods", Key: "default/p"},
			{Verb: "create", Resource: "pods", Subresource: "binding", Key: "default/p", NodeName: "node-1"},
		}
		got := rec.list()
		if len(got) != len(want) {
			t.Fatalf("f saw %d calls, want %d: %+v", len(got), len(want), got)
		}
		for i := range want {
			g := got[i]
			obj := g.Object
			g.Object = nil
			if !reflect.DeepEqual(g, want[i]) {
				t.Errorf("call %d:\n got %+v\nwant %+v", i, g, want[i])
			}
			wantObj := g.Verb == "create" && g.Subresource == "" || g.Verb == "update" && g.Subresource != "scale"
			if (obj != nil) != wantObj {
				t.Errorf("call %d (%s %s/%s): Object = %v", i, g.Verb, g.Resource, g.Subresource, obj)
			}
		}
		// The objects are what was sent, not what was stored.
		if sent := got[0].Object.(*api.Deployment); sent.UID != "" || sent.ResourceVersion != "" || sent.Name != "web" {
			t.Errorf("create sent %+v", sent.ObjectMeta)
		}
		if sent := got[4].Object.(*api.Deployment); !sent.Spec.Paused || sent.ResourceVersion != rv {
			t.Errorf("update sent paused=%v rv=%q", sent.Spec.Paused, sent.ResourceVersion)
		}
		if sent := got[5].Object.(*api.Deployment); sent.Status.ObservedGeneration != 2 {
			t.Errorf("update status sent observedGeneration %d", sent.Status.ObservedGeneration)
		}
		// The calls' namespace and name.
		for i, nn := range map[int][2]string{0: {"default", "web"}, 2: {"", ""}, 9: {"default", ""}, 14: {"default", "p"}} {
			if ns, name := got[i].Namespace(), got[i].Name(); ns != nn[0] || name != nn[1] {
				t.Errorf("call %d: Namespace, Name = %q, %q; want %q, %q", i, ns, name, nn[0], nn[1])
			}
		}
	})
}

// noErr returns a function that fails t on a non-nil error, to take a
// call's results whole: must(res.Create(ctx, obj)).
func noErr(t *testing.T) func(any, error) {
	return func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

var errInjected = errors.New("injected")

// failing fails every call before next, counting them.
type failing struct {
	mu sync.Mutex
	n  int
}

func (f *failing) f(context.Context, client.Call, func(context.Context) error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	return errInjected
}

// An error returned before next fails the call with it: the inner client
// is untouched, the results are zero and the caller's object unchanged.
func TestInterceptFailBeforeNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		inner := resource[*api.Deployment](t, cl)
		innerPods := resource[*api.Pod](t, cl)
		d := newDeployment("web")
		must(inner.Create(ctx, d))
		must(innerPods.Create(ctx, newPod("p")))
		before := snapshot(t, inner, innerPods)

		var fail failing
		c := client.Intercept(cl, fail.f)
		deps := resource[*api.Deployment](t, c)
		sent := d.DeepCopy()
		sent.Spec.Paused = true
		sentBefore := sent.DeepCopy()
		created := newDeployment("other")
		createdBefore := created.DeepCopy()
		lw, err := deps.Select(client.SelectOptions{LabelSelector: "app=web"})
		must(lw, err)
		b, err := client.BinderFor(c)
		must(b, err)

		checks := []struct {
			name string
			call func() (any, error)
		}{
			{"get", func() (any, error) { o, rv, err := deps.Get(ctx, "default/web"); return pair(o, rv), err }},
			{"list", func() (any, error) { l, err := deps.List(ctx, source.ListOptions{}); return l.Items, err }},
			{"watch", func() (any, error) { w, err := deps.Watch(ctx, source.WatchOptions{}); return w, err }},
			{"select list", func() (any, error) { l, err := lw.List(ctx, source.ListOptions{}); return l.Items, err }},
			{"select watch", func() (any, error) { w, err := lw.Watch(ctx, source.WatchOptions{}); return w, err }},
			{"create", func() (any, error) { rv, err := deps.Create(ctx, created); return rv, err }},
			{"update", func() (any, error) { rv, err := deps.Update(ctx, sent, ""); return rv, err }},
			{"update status", func() (any, error) { rv, err := deps.UpdateStatus(ctx, sent); return rv, err }},
			{"patch", func() (any, error) {
				o, err := deps.Patch(ctx, "default/web", client.MergePatch, []byte(`{"spec":{"paused":true}}`))
				return o, err
			}},
			{"get scale", func() (any, error) { s, err := deps.GetScale(ctx, "default/web"); return s, err }},
			{"update scale", func() (any, error) {
				s, err := deps.UpdateScale(ctx, "default/web", &api.Scale{Spec: api.ScaleSpec{Replicas: 9}})
				return s, err
			}},
			{"delete", func() (any, error) { rv, err := deps.Delete(ctx, "default/web", ""); return rv, err }},
			{"delete with", func() (any, error) {
				rv, err := deps.DeleteWith(ctx, "default/web", client.DeleteOptions{})
				return rv, err
			}},
			{"bind", func() (any, error) { rv, err := b.Bind(ctx, "default", "p", "node-1"); return rv, err }},
		}
		for _, tc := range checks {
			res, err := tc.call()
			if !errors.Is(err, errInjected) {
				t.Errorf("%s: err = %v, want the injected error", tc.name, err)
			}
			if v := reflect.ValueOf(res); res != nil && !v.IsZero() {
				t.Errorf("%s: result %v, want the zero value", tc.name, res)
			}
		}
		if fail.n != len(checks) {
			t.Errorf("f saw %d calls, want %d", fail.n, len(checks))
		}
		if !reflect.DeepEqual(sent, sentBefore) || !reflect.DeepEqual(created, createdBefore) {
			t.Error("a failed write changed the caller's object")
		}
		if after := snapshot(t, inner, innerPods); after != before {
			t.Errorf("the store changed: %s, was %s", after, before)
		}
	})
}

func pair(o *api.Deployment, rv string) any {
	if o == nil && rv == "" {
		return nil
	}
	return [2]any{o, rv}
}

// snapshot describes the deployments and pods stored, with their versions.
func snapshot(t *testing.T, deps client.Resource[*api.Deployment], pods client.Resource[*api.Pod]) string {
	t.Helper()
	must := noErr(t)
	dl, err := deps.List(t.Context(), source.ListOptions{})
	must(dl, err)
	pl, err := pods.List(t.Context(), source.ListOptions{})
	must(pl, err)
	s := ""
	for _, d := range dl.Items {
		s += fmt.Sprintf("%s@%s replicas=%d paused=%v; ", api.Key(d), d.ResourceVersion, *d.Spec.Replicas, d.Spec.Paused)
	}
	for _, p := range pl.Items {
		s += fmt.Sprintf("%s@%s node=%q; ", api.Key(p), p.ResourceVersion, p.Spec.NodeName)
	}
	return s
}

// loseReply performs the call and then reports a server timeout.
func loseReply(ctx context.Context, _ client.Call, next func(context.Context) error) error {
	if err := next(ctx); err != nil {
		return err
	}
	return fmt.Errorf("the reply was lost: %w", client.ErrServerTimeout)
}

// Calling next and then returning an error models a lost reply: the write
// happened, the caller sees the error, zero results and its object as it
// sent it.
func TestInterceptLostReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		inner := resource[*api.Deployment](t, cl)
		c := client.Intercept(cl, loseReply)
		deps := resource[*api.Deployment](t, c)

		d := newDeployment("web")
		rv, err := deps.Create(ctx, d)
		if !client.IsServerTimeout(err) || rv != "" {
			t.Fatalf("Create = %q, %v; want a server timeout", rv, err)
		}
		if d.UID != "" || d.ResourceVersion != "" || d.Spec.Replicas != nil {
			t.Errorf("the caller's object was overwritten: %+v", d.ObjectMeta)
		}
		stored, storedRV, err := inner.Get(ctx, "default/web")
		must(stored, err)

		stored.Spec.Paused = true
		if _, err := deps.Update(ctx, stored, ""); !client.IsServerTimeout(err) {
			t.Fatalf("Update: %v", err)
		}
		if stored.ResourceVersion != storedRV {
			t.Errorf("the caller's object got resourceVersion %q, want %q", stored.ResourceVersion, storedRV)
		}
		now, nowRV, err := inner.Get(ctx, "default/web")
		must(now, err)
		if !now.Spec.Paused || nowRV == storedRV {
			t.Errorf("the update did not happen: paused=%v rv=%q", now.Spec.Paused, nowRV)
		}
		// A watch whose reply was lost is closed: the bubble ends with no
		// goroutine left blocked on it.
		if w, err := deps.Watch(ctx, source.WatchOptions{}); !client.IsServerTimeout(err) || w != nil {
			t.Fatalf("Watch = %v, %v", w, err)
		}
		if _, err := deps.DeleteWith(ctx, "default/web", client.DeleteOptions{}); !client.IsServerTimeout(err) {
			t.Fatalf("DeleteWith: %v", err)
		}
		if _, _, err := inner.Get(ctx, "default/web"); !client.IsNotFound(err) {
			t.Errorf("the delete did not happen: %v", err)
		}
	})
}

// Returning nil without calling next makes the call succeed with zero
// results and leaves the store alone.
func TestInterceptDrop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cl := newCluster(t)
		drop := func(context.Context, client.Call, func(context.Context) error) error { return nil }
		deps := resource[*api.Deployment](t, client.Intercept(cl, drop))
		d := newDeployment("web")
		if rv, err := deps.Create(ctx, d); rv != "" || err != nil {
			t.Fatalf("Create = %q, %v", rv, err)
		}
		if o, rv, err := deps.Get(ctx, "default/web"); o != nil || rv != "" || err != nil {
			t.Fatalf("Get = %v, %q, %v", o, rv, err)
		}
		if _, _, err := resource[*api.Deployment](t, cl).Get(ctx, "default/web"); !client.IsNotFound(err) {
			t.Fatalf("the dropped create reached the store: %v", err)
		}
	})
}

// Intercepting an intercepted client nests: the outer f sees each call
// first and its next runs the inner f.
func TestInterceptNests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		var mu sync.Mutex
		var trace []string
		tracer := func(name string, fail string) client.InterceptFunc {
			return func(ctx context.Context, call client.Call, next func(context.Context) error) error {
				mu.Lock()
				trace = append(trace, name+" "+call.Verb)
				mu.Unlock()
				if call.Verb == fail {
					return fmt.Errorf("%s: %w", name, errInjected)
				}
				return next(ctx)
			}
		}
		c := client.Intercept(client.Intercept(cl, tracer("inner", "delete")), tracer("outer", "get"))
		if _, ok := c.(client.Binder); !ok {
			t.Error("an intercepted intercepted cluster is not a Binder")
		}
		deps := resource[*api.Deployment](t, c)
		must(deps.Create(ctx, newDeployment("web")))
		if _, _, err := deps.Get(ctx, "default/web"); err == nil || err.Error() != "outer: injected" {
			t.Errorf("Get: %v, want the outer error", err)
		}
		if _, err := deps.Delete(ctx, "default/web", ""); err == nil || err.Error() != "inner: injected" {
			t.Errorf("Delete: %v, want the inner error", err)
		}
		want := []string{"outer create", "inner create", "outer get", "outer delete", "inner delete"}
		if !reflect.DeepEqual(trace, want) {
			t.Errorf("trace %q, want %q", trace, want)
		}
		if _, err := client.For[*api.Scale](c); !errors.Is(err, client.ErrUnknownKind) {
			t.Errorf("For of an unserved kind: %v", err)
		}
	})
}

// plainClient serves pods from a Resource that hides every method but
// Resource[T]'s: no VersionComparer, no Binder.
type plainClient struct{ pods client.Resource[*api.Pod] }

type plainPods struct{ podResource }

// podResource lets plainPods embed the interface under a name that is not
// one of its methods.
type podResource = client.Resource[*api.Pod]

func (c plainClient) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	if gvk.Kind != "Pod" {
		return nil, client.ErrUnknownKind
	}
	return plainPods{c.pods}, nil
}

// The wrapper of a source.VersionComparer is one, and so are its Selects;
// the wrapper of a resource that is not one is not either.
func TestInterceptKeepsVersionComparer(t *testing.T) {
	must := noErr(t)
	cl := newCluster(t)
	pods := resource[*api.Pod](t, client.Intercept(cl, (&calls{}).f))
	vc, ok := pods.(source.VersionComparer)
	if !ok {
		t.Fatal("the intercepted cluster's pods are not a source.VersionComparer")
	}
	if c, err := vc.CompareResourceVersions("2", "10"); err != nil || c != -1 {
		t.Errorf("CompareResourceVersions(2, 10) = %d, %v", c, err)
	}
	lw, err := pods.Select(client.SelectOptions{FieldSelector: "spec.nodeName=n1"})
	must(lw, err)
	if _, ok := lw.(source.VersionComparer); !ok {
		t.Error("a Select of the intercepted pods is not a source.VersionComparer")
	}

	plain := client.Intercept(plainClient{resource[*api.Pod](t, cl)}, (&calls{}).f)
	pp := resource[*api.Pod](t, plain)
	if _, ok := pp.(source.VersionComparer); ok {
		t.Error("the wrapper claims a VersionComparer its inner resource lacks")
	}
	if _, err := client.BinderFor(plain); !errors.Is(err, source.ErrUnsupported) {
		t.Errorf("BinderFor over a client without one: %v", err)
	}
	if client.Intercept(cl, nil) != client.Client(cl) {
		t.Error("Intercept with a nil func does not return the client itself")
	}
}

// Bind goes through f; a failure before next leaves the pod unbound.
func TestInterceptBind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		must(resource[*api.Pod](t, cl).Create(ctx, newPod("p")))
		var failBind client.InterceptFunc = func(ctx context.Context, call client.Call, next func(context.Context) error) error {
			if call.Subresource == "binding" && call.NodeName == "bad" {
				return errInjected
			}
			return next(ctx)
		}
		b, err := client.BinderFor(client.Intercept(cl, failBind))
		must(b, err)
		if _, err := b.Bind(ctx, "default", "p", "bad"); !errors.Is(err, errInjected) {
			t.Fatalf("Bind: %v", err)
		}
		p, _, err := resource[*api.Pod](t, cl).Get(ctx, "default/p")
		must(p, err)
		if p.Spec.NodeName != "" {
			t.Fatalf("a failed bind bound the pod to %q", p.Spec.NodeName)
		}
		must(b.Bind(ctx, "default", "p", "good"))
		p, _, err = resource[*api.Pod](t, cl).Get(ctx, "default/p")
		must(p, err)
		if p.Spec.NodeName != "good" {
			t.Fatalf("the pod is bound to %q", p.Spec.NodeName)
		}
	})
}

// An informer runs over an intercepted resource and one of its Selects:
// f sees its list and watch, and read-your-writes works (the informer
// found the VersionComparer).
func TestInterceptInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		cl := newCluster(t)
		var rec calls
		pods := resource[*api.Pod](t, client.Intercept(cl, rec.f))
		web, err := pods.Select(client.SelectOptions{Namespace: "default", LabelSelector: "app=web"})
		must(web, err)
		all, err := informer.New(source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{})
		must(all, err)
		sel, err := informer.New(web, api.Key[*api.Pod], informer.Options[*api.Pod]{})
		must(sel, err)
		var wg sync.WaitGroup
		wg.Go(func() { _ = all.Run(ctx) })
		wg.Go(func() { _ = sel.Run(ctx) })
		defer func() { cancel(); wg.Wait() }()
		if !informer.WaitForCacheSync(ctx, all.HasSynced, sel.HasSynced) {
			t.Fatal("not synced")
		}

		inner := resource[*api.Pod](t, cl)
		other := newPod("b")
		other.Labels = nil
		must(inner.Create(ctx, other))
		rv, err := inner.Create(ctx, newPod("a"))
		must(rv, err)
		for _, inf := range []*informer.Informer[*api.Pod]{all, sel} {
			if err := inf.WaitForResourceVersion(ctx, rv); err != nil {
				t.Fatalf("WaitForResourceVersion: %v", err)
			}
		}
		if got := len(all.Lister().List(nil)); got != 2 {
			t.Errorf("the informer of all pods holds %d, want 2", got)
		}
		if got := sel.Lister().List(nil); len(got) != 1 || got[0].Name != "a" {
			t.Errorf("the informer of app=web holds %v", got)
		}
		count := map[string]int{}
		for _, c := range rec.list() {
			k := c.Verb
			if c.SelectOptions.LabelSelector != "" {
				k += " selected"
			}
			count[k]++
		}
		for _, k := range []string{"list", "watch", "list selected", "watch selected"} {
			if count[k] == 0 {
				t.Errorf("f saw no %s: %v", k, count)
			}
		}
	})
}

// An InterceptFunc serves an older snapshot by calling a list's next
// with WithListOptions: the list, and a Select's, is the store's state at
// that version.
func TestInterceptWithListOptions(t *testing.T) {
	ctx := t.Context()
	must := noErr(t)
	cl := newCluster(t)
	inner := resource[*api.Pod](t, cl)
	old, err := inner.Create(ctx, newPod("a"))
	must(old, err)
	must(inner.Create(ctx, newPod("b")))
	stale := func(ctx context.Context, call client.Call, next func(context.Context) error) error {
		if call.Verb == "list" {
			ctx = client.WithListOptions(ctx, source.ListOptions{ResourceVersion: old, ResourceVersionMatch: source.Exact})
		}
		return next(ctx)
	}
	pods := resource[*api.Pod](t, client.Intercept(cl, stale))
	l, err := pods.List(ctx, source.ListOptions{})
	must(l, err)
	if len(l.Items) != 1 || l.Items[0].Name != "a" || l.ResourceVersion != old {
		t.Fatalf("list at %s: %d items at %s, want pod a only", old, len(l.Items), l.ResourceVersion)
	}
	web, err := pods.Select(client.SelectOptions{Namespace: "default"})
	must(web, err)
	sl, err := web.List(ctx, source.ListOptions{})
	must(sl, err)
	if len(sl.Items) != 1 {
		t.Fatalf("select's list at %s: %d items, want 1", old, len(sl.Items))
	}
	// Without the hook the list is the latest.
	l, err = resource[*api.Pod](t, cl).List(ctx, source.ListOptions{})
	must(l, err)
	if len(l.Items) != 2 {
		t.Fatalf("the inner list has %d items, want 2", len(l.Items))
	}
}
