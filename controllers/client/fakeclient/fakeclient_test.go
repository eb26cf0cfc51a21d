package fakeclient_test

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
	"github.com/ctrlkit/ctrlkit/controllers/client/fakeclient"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

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

func newPod(name string) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
	}
}

func newDeployment(name string) *api.Deployment {
	return &api.Deployment{
		ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec: api.DeploymentSpec{
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

// strip returns a without the fields compared on their own.
func strip(a fakeclient.Action) fakeclient.Action {
	a.Object, a.Scale, a.Err = nil, nil, nil
	return a
}

// Every call is recorded with what it sent, copied, and the error it
// returned.
func TestRecordsEveryCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		fc := fakeclient.New(newCluster(t))
		deps := resource[*api.Deployment](t, fc)
		pods := resource[*api.Pod](t, fc)
		nodes := resource[*api.Node](t, fc)

		d := newDeployment("web")
		must(deps.Create(ctx, d))
		d.Spec.Paused = true
		must(deps.Update(ctx, d, ""))
		d.Status.ObservedGeneration = 7
		must(deps.UpdateStatus(ctx, d))
		patch := []byte(`{"spec":{"paused":false}}`)
		must(deps.Patch(ctx, "default/web", client.MergePatch, patch))
		scale := &api.Scale{Spec: api.ScaleSpec{Replicas: 4}}
		must(deps.UpdateScale(ctx, "default/web", scale))
		must(deps.GetScale(ctx, "default/web"))
		sel, err := pods.Select(client.SelectOptions{Namespace: "kube-system", LabelSelector: "app=web"})
		must(sel, err)
		must(sel.List(ctx, source.ListOptions{Limit: 2}))
		must(nodes.Watch(ctx, source.WatchOptions{AllowBookmarks: true}))
		gen := newPod("")
		gen.GenerateName = "web-"
		must(pods.Create(ctx, gen))
		grace := int64(5)
		must(deps.DeleteWith(ctx, "default/web", client.DeleteOptions{GracePeriodSeconds: &grace}))
		_, _, notFound := deps.Get(ctx, "default/web")

		// The caller changes what it sent: the record keeps the copy.
		patch[2] = 'X'
		scale.Spec.Replicas = 100
		grace = 99
		d.Name = "changed"

		want := []fakeclient.Action{
			{Verb: "create", Resource: "deployments", Namespace: "default", Name: "web"},
			{Verb: "update", Resource: "deployments", Namespace: "default", Name: "web"},
			{Verb: "update", Resource: "deployments", Subresource: "status", Namespace: "default", Name: "web"},
			{Verb: "patch", Resource: "deployments", Namespace: "default", Name: "web", PatchType: client.MergePatch, Patch: []byte(`{"spec":{"paused":false}}`)},
			{Verb: "update", Resource: "deployments", Subresource: "scale", Namespace: "default", Name: "web"},
			{Verb: "get", Resource: "deployments", Subresource: "scale", Namespace: "default", Name: "web"},
			{Verb: "list", Resource: "pods", Namespace: "kube-system", SelectOptions: client.SelectOptions{Namespace: "kube-system", LabelSelector: "app=web"}, ListOptions: source.ListOptions{Limit: 2}},
			{Verb: "watch", Resource: "nodes", WatchOptions: source.WatchOptions{AllowBookmarks: true}},
			{Verb: "create", Resource: "pods", Namespace: "default"},
			{Verb: "delete", Resource: "deployments", Namespace: "default", Name: "web", DeleteOptions: client.DeleteOptions{GracePeriodSeconds: ptr(int64(5))}},
			{Verb: "get", Resource: "deployments", Namespace: "default", Name: "web"},
		}
		got := fc.Actions()
		if len(got) != len(want) {
			t.Fatalf("%d actions, want %d: %v", len(got), len(want), got)
		}
		for i := range want {
			if !reflect.DeepEqual(strip(got[i]), want[i]) {
				t.Errorf("action %d:\n got %+v\nwant %+v", i, strip(got[i]), want[i])
			}
		}
		if o := got[0].Object.(*api.Deployment); o.Name != "web" || o.UID != "" || o.ResourceVersion != "" {
			t.Errorf("the create recorded %+v, not what was sent", o.ObjectMeta)
		}
		if o := got[1].Object.(*api.Deployment); !o.Spec.Paused || o.Name != "web" {
			t.Errorf("the update recorded paused=%v name=%q", o.Spec.Paused, o.Name)
		}
		if o := got[2].Object.(*api.Deployment); o.Status.ObservedGeneration != 7 {
			t.Errorf("the status update recorded observedGeneration %d", o.Status.ObservedGeneration)
		}
		if got[4].Scale == nil || got[4].Scale.Spec.Replicas != 4 {
			t.Errorf("the scale update recorded %+v", got[4].Scale)
		}
		if o := got[8].Object.(*api.Pod); o.GenerateName != "web-" {
			t.Errorf("the create recorded generateName %q", o.GenerateName)
		}
		if !client.IsNotFound(got[10].Err) || got[10].Err != notFound {
			t.Errorf("the get recorded error %v, want the one returned (%v)", got[10].Err, notFound)
		}
		for i, a := range got[:10] {
			if a.Err != nil {
				t.Errorf("action %d recorded error %v", i, a.Err)
			}
		}
		if s := got[2].String(); s != "update deployments/status default/web" {
			t.Errorf("String() = %q", s)
		}
		if !got[2].Matches("update", "deployments") || !got[2].Matches("update", "deployments/status") || got[2].Matches("update", "deployments/scale") {
			t.Error("Matches is wrong for an update of deployments/status")
		}
	})
}

func ptr[T any](v T) *T { return &v }

// A reactor that handles a call decides it before the store: with an
// error the call fails and nothing is written; with nil the call is
// dropped. The first reactor in the chain that handles a call wins.
func TestReactors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		fc := fakeclient.New(cl)
		pods := resource[*api.Pod](t, fc)
		inner := resource[*api.Pod](t, cl)
		must(pods.Create(ctx, newPod("p")))

		errA, errB := errors.New("a"), errors.New("b")
		var seen []fakeclient.Action
		var mu sync.Mutex
		fc.AddReactor("*", "*", func(a fakeclient.Action) (bool, error) {
			mu.Lock()
			seen = append(seen, a)
			mu.Unlock()
			return false, nil
		})
		fc.AddReactor("update", "pods/status", func(fakeclient.Action) (bool, error) { return true, errB })
		fc.PrependReactor("update", "pods", func(a fakeclient.Action) (bool, error) {
			return a.Subresource == "status", errA
		})
		fc.PrependReactor("delete", "*", func(fakeclient.Action) (bool, error) { return true, nil })

		p, _, err := pods.Get(ctx, "default/p")
		must(p, err)
		p.Status.Phase = api.PodRunning
		before := p.DeepCopy()
		if _, err := pods.UpdateStatus(ctx, p); !errors.Is(err, errA) {
			t.Fatalf("UpdateStatus: %v, want the first reactor's error", err)
		}
		if !reflect.DeepEqual(p, before) {
			t.Error("a failed update changed the caller's object")
		}
		if rv, err := pods.Delete(ctx, "default/p", ""); rv != "" || err != nil {
			t.Fatalf("a dropped delete returned %q, %v", rv, err)
		}
		stored, _, err := inner.Get(ctx, "default/p")
		must(stored, err)
		if stored.Status.Phase == api.PodRunning || stored.DeletionTimestamp != nil {
			t.Fatalf("a handled call reached the store: %+v", stored.Status)
		}
		// A plain update passes every reactor and reaches the store.
		p.Labels["x"] = "y"
		must(pods.Update(ctx, p, ""))
		stored, _, err = inner.Get(ctx, "default/p")
		must(stored, err)
		if stored.Labels["x"] != "y" {
			t.Error("an unhandled update did not reach the store")
		}
		mu.Lock()
		defer mu.Unlock()
		var verbs []string
		for _, a := range seen {
			verbs = append(verbs, a.Verb+" "+a.Subresource)
		}
		// The delete and the status update were handled before the last
		// reactor; the get and the update reached it.
		if want := []string{"get ", "update "}; !reflect.DeepEqual(verbs, want) {
			t.Errorf("the catch-all reactor saw %q, want %q", verbs, want)
		}
		errs := map[string]error{}
		for _, a := range fc.Writes() {
			errs[a.String()] = a.Err
		}
		if !errors.Is(errs["update pods/status default/p (a)"], errA) {
			t.Errorf("the failed status update is not recorded with its error: %v", fc.Writes())
		}
	})
}

// FailNth fails the nth matching call only, counting from when it is
// set and only the calls that match.
func TestFailNth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		fc := fakeclient.New(cl)
		pods := resource[*api.Pod](t, fc)
		must(pods.Create(ctx, newPod("before")))
		fc.FailNth("create", "pods", 3, nil)
		var errs []error
		for i := range 5 {
			must(pods.List(ctx, source.ListOptions{}))
			_, err := pods.Create(ctx, newPod(fmt.Sprint("p", i)))
			errs = append(errs, err)
		}
		for i, err := range errs {
			if (i == 2) != errors.Is(err, fakeclient.ErrInjected) || i != 2 && err != nil {
				t.Errorf("create %d: %v", i, err)
			}
		}
		if _, _, err := resource[*api.Pod](t, cl).Get(ctx, "default/p2"); !client.IsNotFound(err) {
			t.Errorf("the failed create reached the store: %v", err)
		}
		if n := len(fc.Writes()); n != 6 {
			t.Errorf("%d writes recorded, want 6", n)
		}
		fc.Reset()
		if n := len(fc.Actions()); n != 0 {
			t.Errorf("%d actions after Reset", n)
		}
		if _, _, err := pods.Get(ctx, "default/p0"); err != nil {
			t.Fatal(err)
		}
		if a := fc.Actions(); len(a) != 1 || a[0].String() != "get pods default/p0" {
			t.Errorf("after Reset: %v", a)
		}
	})
}

// LoseReplyNth lets the call happen and then fails it with a server
// timeout; the caller's object stays as it sent it.
func TestLoseReplyNth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cl := newCluster(t)
		fc := fakeclient.New(cl)
		pods := resource[*api.Pod](t, fc)
		fc.LoseReplyNth("create", "pods", 1, nil)
		p := newPod("p")
		rv, err := pods.Create(ctx, p)
		if !client.IsServerTimeout(err) || rv != "" {
			t.Fatalf("Create = %q, %v; want a server timeout", rv, err)
		}
		if p.UID != "" || p.ResourceVersion != "" {
			t.Errorf("the caller's object was overwritten: %+v", p.ObjectMeta)
		}
		if _, _, err := resource[*api.Pod](t, cl).Get(ctx, "default/p"); err != nil {
			t.Fatalf("the create did not happen: %v", err)
		}
		if _, err := pods.Create(ctx, p); !client.IsAlreadyExists(err) {
			t.Errorf("the retry: %v, want IsAlreadyExists", err)
		}
		w := fc.Writes()
		if len(w) != 2 || !client.IsServerTimeout(w[0].Err) || !client.IsAlreadyExists(w[1].Err) {
			t.Errorf("writes %v", w)
		}
	})
}

// The fake is a Binder; Bind is recorded as the create of pods/binding
// and reactors decide it like any call.
func TestBind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx := t.Context()
		cl := newCluster(t)
		fc := fakeclient.New(cl)
		must(resource[*api.Pod](t, fc).Create(ctx, newPod("p")))
		b, err := client.BinderFor(fc)
		must(b, err)
		fc.FailNth("create", "pods/binding", 1, client.ErrServerTimeout)
		if _, err := b.Bind(ctx, "default", "p", "n1"); !client.IsServerTimeout(err) {
			t.Fatalf("Bind: %v", err)
		}
		must(b.Bind(ctx, "default", "p", "n2"))
		p, _, err := resource[*api.Pod](t, cl).Get(ctx, "default/p")
		must(p, err)
		if p.Spec.NodeName != "n2" {
			t.Errorf("the pod is on %q", p.Spec.NodeName)
		}
		w := fc.Writes()
		if len(w) != 3 || w[1].NodeName != "n1" || w[2].NodeName != "n2" || w[2].String() != "create pods/binding default/p" {
			t.Errorf("writes %v", w)
		}

		// Over a client without a binding subresource, Bind fails, recorded.
		nb := fakeclient.New(noBinder{cl})
		if _, err := nb.Bind(ctx, "default", "p", "n1"); !errors.Is(err, source.ErrUnsupported) {
			t.Errorf("Bind without a Binder: %v", err)
		}
		if a := nb.Actions(); len(a) != 1 || !errors.Is(a[0].Err, source.ErrUnsupported) {
			t.Errorf("actions %v", a)
		}
	})
}

// noBinder hides the cluster's Bind.
type noBinder struct{ c *cluster.Cluster }

func (n noBinder) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	return n.c.ResourceFor(gvk)
}

// Calls from many goroutines, reactors added meanwhile, and a reactor
// that calls the Client itself: every call is recorded once, without a
// race or a deadlock.
func TestConcurrentUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cl := newCluster(t)
		fc := fakeclient.New(cl)
		pods := resource[*api.Pod](t, fc)
		fc.PrependReactor("delete", "pods", func(a fakeclient.Action) (bool, error) {
			_, _, err := pods.Get(ctx, api.NamespacedKey(a.Namespace, a.Name)) // re-enters the Client
			return false, err
		})
		const n = 20
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				name := fmt.Sprint("p", i)
				if _, err := pods.Create(ctx, newPod(name)); err != nil {
					t.Error(err)
				}
				if _, err := pods.Delete(ctx, "default/"+name, ""); err != nil {
					t.Error(err)
				}
			})
			wg.Go(func() { fc.AddReactor("get", "nodes", func(fakeclient.Action) (bool, error) { return false, nil }) })
			wg.Go(func() { _ = fc.Actions() })
		}
		wg.Wait()
		count := map[string]int{}
		for _, a := range fc.Actions() {
			count[a.Verb]++
		}
		if want := map[string]int{"create": n, "delete": n, "get": n}; !reflect.DeepEqual(count, want) {
			t.Errorf("recorded %v, want %v", count, want)
		}
	})
}

// An informer over the fake records its list and watch, and an injected
// watch failure makes its reflector watch again.
func TestInformerOverFake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		must := noErr(t)
		ctx, cancel := context.WithCancel(t.Context())
		cl := newCluster(t)
		fc := fakeclient.New(cl)
		pods := resource[*api.Pod](t, fc)
		fc.FailNth("watch", "pods", 1, fmt.Errorf("broken: %w", source.ErrTransient))
		inf, err := informer.New(source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{})
		must(inf, err)
		var wg sync.WaitGroup
		wg.Go(func() { _ = inf.Run(ctx) })
		defer func() { cancel(); wg.Wait() }()
		if !informer.WaitForCacheSync(ctx, inf.HasSynced) {
			t.Fatal("not synced")
		}
		// The pod is created after the list: only a watch brings it.
		rv, err := resource[*api.Pod](t, cl).Create(ctx, newPod("p"))
		must(rv, err)
		if err := inf.WaitForResourceVersion(ctx, rv); err != nil {
			t.Fatal(err)
		}
		var watches []error
		for _, a := range fc.Actions() {
			if a.Verb == "watch" {
				watches = append(watches, a.Err)
			}
		}
		if len(watches) < 2 || !errors.Is(watches[0], source.ErrTransient) || watches[len(watches)-1] != nil {
			t.Errorf("watches recorded with errors %v", watches)
		}
		if len(fc.Writes()) != 0 {
			t.Errorf("an informer wrote: %v", fc.Writes())
		}
	})
}
