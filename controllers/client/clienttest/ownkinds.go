package clienttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// ownKindsSuite returns the subtests of RunOwnKinds.
func ownKindsSuite() []testCase {
	return []testCase{
		{"CreateDefaultsAndMeta", testOwnCreate},
		{"Invalid", testOwnInvalid},
		{"UpdateGenerationAndStatus", testOwnUpdate},
		{"Scale", testOwnScale},
		{"FinalizerAndWatch", testOwnFinalizer},
		{"Select", testOwnSelect},
		{"ClusterScoped", testOwnClusterScoped},
		{"OwnedBuiltin", testOwnOwnsBuiltin},
	}
}

// OwnKindsCases returns the names of RunOwnKinds' subtests, in order.
func OwnKindsCases() []string {
	s := ownKindsSuite()
	names := make([]string, len(s))
	for i, c := range s {
		names[i] = c.name
	}
	return names
}

// RunOwnKinds runs the suite of the kinds a user adds with api.Register
// (apitest.Widget, namespaced with status and scale subresources and a
// strategy; apitest.Gizmo, cluster-scoped) against the clients newClient
// returns: each must serve them through client.For with the semantics of
// a built-in kind. Like Run, each case works in namespaces of its own.
func RunOwnKinds(t *testing.T, newClient NewClient) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	run := &runState{id: hex.EncodeToString(b[:])}
	for _, c := range ownKindsSuite() {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			t.Cleanup(cancel)
			c.fn(t, &env{run: run, ctx: ctx, c: newClient(t)})
		})
	}
}

// Widget returns a widget of color in namespace.
func Widget(namespace, name, color string) *apitest.Widget {
	return &apitest.Widget{ObjectMeta: api.ObjectMeta{Namespace: namespace, Name: name}, Spec: apitest.WidgetSpec{Color: color}}
}

// A created widget gets uid, generation 1, a resourceVersion, its
// TypeMeta, a generated name and the kind's defaults; Get returns it.
func testOwnCreate(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	w := Widget(ns, "", "red")
	w.GenerateName = "w-"
	rv, err := ws.Create(e.ctx, w)
	must(t, err)
	if len(w.Name) <= 2 || w.Name[:2] != "w-" || w.UID == "" || w.Generation != 1 || w.ResourceVersion != rv || rv == "" {
		t.Fatalf("created widget: name %q uid %q generation %d rv %q (returned %q)", w.Name, w.UID, w.Generation, w.ResourceVersion, rv)
	}
	if w.APIVersion != "example.ctrlkit.dev/v1" || w.Kind != "Widget" {
		t.Fatalf("created widget's TypeMeta = %+v", w.TypeMeta)
	}
	if w.Spec.Replicas == nil || *w.Spec.Replicas != 1 {
		t.Fatalf("spec.replicas = %v, want the default 1", w.Spec.Replicas)
	}
	got, grv, err := ws.Get(e.ctx, ns+"/"+w.Name)
	must(t, err)
	if got.UID != w.UID || grv != rv || got.Spec.Color != "red" || *got.Spec.Replicas != 1 {
		t.Fatalf("Get = %+v at %q", got, grv)
	}
	_, err = ws.Create(e.ctx, Widget(ns, w.Name, "blue"))
	wantErr(t, "create a taken name", err, "IsAlreadyExists")
	_, err = ws.Create(e.ctx, Widget(e.missingNamespace(), "a", "blue"))
	wantErr(t, "create in a missing namespace", err, "IsNotFound")
}

// The kind's Validate and ValidateUpdate reject writes with every field
// error, as IsInvalid; metadata is validated as for built-in kinds.
func testOwnInvalid(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	_, err := ws.Create(e.ctx, Widget(ns, "a", "purple"))
	wantErr(t, "create an unsupported color", err, "IsInvalid")
	var inv *client.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("%T is not a *client.InvalidError", err)
	}
	if fe, ok := inv.Field("spec.color"); !ok || fe.Type != client.FieldUnsupported {
		t.Fatalf("field error of spec.color = %+v, %v; error %v", fe, ok, err)
	}
	_, err = ws.Create(e.ctx, Widget(ns, "Not_A_Name", "red"))
	wantErr(t, "create a malformed name", err, "IsInvalid")
	w := Widget(ns, "a", "red")
	_, err = ws.Create(e.ctx, w)
	must(t, err)
	w.Spec.Color = "blue"
	_, err = ws.Update(e.ctx, w, "")
	wantErr(t, "change an immutable field", err, "IsInvalid")
}

// Update bumps the generation on a spec change only and ignores the
// status; UpdateStatus writes the status alone, without a new
// generation; a no-op update writes nothing.
func testOwnUpdate(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	w := Widget(ns, "a", "green")
	_, err := ws.Create(e.ctx, w)
	must(t, err)
	rv0 := w.ResourceVersion
	noop, err := ws.Update(e.ctx, w, "")
	must(t, err)
	if noop != rv0 {
		t.Fatalf("a no-op update wrote: rv %q -> %q", rv0, noop)
	}
	three := int32(3)
	w.Spec.Replicas = &three
	w.Status.Replicas = 7
	_, err = ws.Update(e.ctx, w, "")
	must(t, err)
	if w.Generation != 2 || w.Status.Replicas != 0 {
		t.Fatalf("after a spec update: generation %d, status.replicas %d; want 2 and the update's status ignored", w.Generation, w.Status.Replicas)
	}
	w.Status = apitest.WidgetStatus{Replicas: 3, ObservedGeneration: w.Generation}
	w.Spec.Labels = map[string]string{"ignored": "yes"}
	_, err = ws.UpdateStatus(e.ctx, w)
	must(t, err)
	got, _, err := ws.Get(e.ctx, ns+"/a")
	must(t, err)
	if got.Status.Replicas != 3 || got.Status.ObservedGeneration != 2 || got.Generation != 2 || got.Spec.Labels != nil {
		t.Fatalf("after UpdateStatus: %+v", got)
	}
	stale := got.DeepCopyObject().(*apitest.Widget)
	stale.ResourceVersion = rv0
	_, err = ws.Update(e.ctx, stale, "")
	wantErr(t, "update at a stale resourceVersion", err, "IsConflict")
}

// The scale subresource reads and writes where ScaleFields says.
func testOwnScale(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	w := Widget(ns, "a", "blue")
	w.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	_, err := ws.Create(e.ctx, w)
	must(t, err)
	sc, err := ws.GetScale(e.ctx, ns+"/a")
	must(t, err)
	if sc.Spec.Replicas != 1 || sc.Status.Selector != "app=a" || sc.Name != "a" {
		t.Fatalf("GetScale = %+v", sc)
	}
	sc.Spec.Replicas = 4
	_, err = ws.UpdateScale(e.ctx, ns+"/a", sc)
	must(t, err)
	got, _, err := ws.Get(e.ctx, ns+"/a")
	must(t, err)
	if *got.Spec.Replicas != 4 || got.Generation != 2 {
		t.Fatalf("after UpdateScale: replicas %d generation %d", *got.Spec.Replicas, got.Generation)
	}
	gz := resource[*apitest.Gizmo](t, e)
	_, err = gz.GetScale(e.ctx, "x")
	if err == nil {
		t.Fatal("GetScale of a kind without the subresource succeeded")
	}
}

// A widget with a finalizer is only marked by a delete and goes when the
// finalizer is removed; a watch sees Added, Modified, Deleted, typed.
func testOwnFinalizer(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	l, err := ws.List(e.ctx, source.ListOptions{})
	must(t, err)
	events := watch(t, e, ws, client.SelectOptions{Namespace: ns}, l.ResourceVersion)
	w := Widget(ns, "a", "red")
	w.Finalizers = []string{"example.ctrlkit.dev/cleanup"}
	_, err = ws.Create(e.ctx, w)
	must(t, err)
	expect(t, nextChange(t, e, events), source.Added, "a")
	_, err = ws.Delete(e.ctx, ns+"/a", "")
	must(t, err)
	ev := nextChange(t, e, events)
	expect(t, ev, source.Modified, "a")
	if ev.Object.DeletionTimestamp == nil {
		t.Fatal("a delete of a widget with a finalizer did not mark it")
	}
	got, _, err := ws.Get(e.ctx, ns+"/a")
	must(t, err)
	got.Finalizers = nil
	_, err = ws.Update(e.ctx, got, "")
	must(t, err)
	expect(t, nextChange(t, e, events), source.Deleted, "a")
	_, _, err = ws.Get(e.ctx, ns+"/a")
	wantErr(t, "get a widget whose last finalizer went", err, "IsNotFound")
}

// Label and metadata field selectors select widgets; an unknown field
// is a bad request.
func testOwnSelect(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	for _, n := range []string{"a", "b", "c"} {
		w := Widget(ns, n, "red")
		w.Labels = map[string]string{"tier": map[string]string{"a": "web", "b": "web", "c": "db"}[n]}
		_, err := ws.Create(e.ctx, w)
		must(t, err)
	}
	if got := names(list(t, e, ws, client.SelectOptions{Namespace: ns, LabelSelector: "tier=web"}).Items); got != "a,b" {
		t.Fatalf("tier=web selects %s, want a,b", got)
	}
	if got := names(list(t, e, ws, client.SelectOptions{Namespace: ns, FieldSelector: "metadata.name!=a"}).Items); got != "b,c" {
		t.Fatalf("metadata.name!=a selects %s, want b,c", got)
	}
	lw, err := ws.Select(client.SelectOptions{Namespace: ns, FieldSelector: "spec.color=red"})
	if err == nil { // some clients fail only at the request
		_, err = lw.List(e.ctx, source.ListOptions{})
	}
	wantErr(t, "select by a field the kind does not have", err, "IsBadRequest")
}

// A cluster-scoped own kind is keyed by name and refuses a namespace.
func testOwnClusterScoped(t *testing.T, e *env) {
	gz := resource[*apitest.Gizmo](t, e)
	name := "gizmo-" + e.run.id + "-" + e.namespace(t)[len("clienttest-"):]
	g := &apitest.Gizmo{ObjectMeta: api.ObjectMeta{Name: name}, Size: "xl"}
	_, err := gz.Create(e.ctx, g)
	must(t, err)
	t.Cleanup(func() { _, _ = gz.Delete(context.WithoutCancel(e.ctx), name, "") })
	got, _, err := gz.Get(e.ctx, name)
	must(t, err)
	if got.Size != "xl" || got.Namespace != "" || got.Generation != 1 {
		t.Fatalf("Get = %+v", got)
	}
	got.Size = "s"
	_, err = gz.Update(e.ctx, got, "")
	must(t, err)
	if got.Generation != 2 {
		t.Fatalf("an update of a kind without spec: generation %d, want 2 (every change counts)", got.Generation)
	}
}

// A built-in object owned by a widget: deleting the widget in the
// foreground waits for its dependents (the garbage collector, where one
// runs, deletes them; here the owner stays marked while they exist).
func testOwnOwnsBuiltin(t *testing.T, e *env) {
	ns := e.namespace(t)
	ws := resource[*apitest.Widget](t, e)
	w := Widget(ns, "owner", "red")
	_, err := ws.Create(e.ctx, w)
	must(t, err)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "child", nil)
	cm.OwnerReferences = []api.OwnerReference{{APIVersion: "example.ctrlkit.dev/v1", Kind: "Widget", Name: w.Name, UID: w.UID}}
	_, err = cms.Create(e.ctx, cm)
	must(t, err)
	_, err = ws.DeleteWith(e.ctx, ns+"/owner", client.DeleteOptions{PropagationPolicy: client.DeletePropagationForeground})
	must(t, err)
	got, _, err := ws.Get(e.ctx, ns+"/owner")
	must(t, err)
	if got.DeletionTimestamp == nil || len(got.Finalizers) != 1 || got.Finalizers[0] != "foregroundDeletion" {
		t.Fatalf("foreground delete of a widget: %+v", got.ObjectMeta)
	}
}
