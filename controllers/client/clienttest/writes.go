package clienttest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Create stores the object with the server's fields (uid, generation 1,
// resourceVersion, creationTimestamp), its defaults and no status, and
// overwrites the caller's object with what it stored; a taken name is
// IsAlreadyExists.
func testCreate(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	d.Status.Replicas = 9 // the server resets the status of a new object
	rv, err := deployments.Create(e.ctx, d)
	must(t, err)
	if rv == "" || d.ResourceVersion != rv {
		t.Errorf("returned resourceVersion %q, object's %q", rv, d.ResourceVersion)
	}
	if d.UID == "" || d.Generation != 1 || d.CreationTimestamp.IsZero() || d.Namespace != ns {
		t.Errorf("server fields: uid %q generation %d created %v namespace %q", d.UID, d.Generation, d.CreationTimestamp, d.Namespace)
	}
	if d.Status.Replicas != 0 {
		t.Errorf("create kept the status %+v", d.Status)
	}
	// Defaults are visible in the returned object (apps/v1 and core/v1
	// defaulting).
	ps := d.Spec.Template.Spec
	switch {
	case d.Spec.Replicas == nil || *d.Spec.Replicas != 1:
		t.Errorf("spec.replicas not defaulted to 1: %v", d.Spec.Replicas)
	case d.Spec.Strategy.Type != api.RollingUpdateDeploymentStrategyType:
		t.Errorf("spec.strategy.type %q, want RollingUpdate", d.Spec.Strategy.Type)
	case ps.RestartPolicy != api.RestartPolicyAlways:
		t.Errorf("restartPolicy %q, want Always", ps.RestartPolicy)
	case ps.TerminationGracePeriodSeconds == nil || *ps.TerminationGracePeriodSeconds != 30:
		t.Errorf("terminationGracePeriodSeconds %v, want 30", ps.TerminationGracePeriodSeconds)
	case ps.Containers[0].ImagePullPolicy != api.PullIfNotPresent:
		t.Errorf("imagePullPolicy %q, want IfNotPresent", ps.Containers[0].ImagePullPolicy)
	}
	got, gotRV, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if gotRV != rv || got.ResourceVersion != rv || got.UID != d.UID || *got.Spec.Replicas != 1 {
		t.Errorf("get: resourceVersion %q (%q), uid %q; created %q, %q", gotRV, got.ResourceVersion, got.UID, rv, d.UID)
	}
	again := Deployment(ns, "web")
	_, err = deployments.Create(e.ctx, again)
	wantErr(t, "create a taken name", err, "IsAlreadyExists")
	if again.UID != "" || again.ResourceVersion != "" {
		t.Errorf("a failed create changed the caller's object: %+v", again.ObjectMeta)
	}
}

// Create honours metadata.generateName when the object has no name.
func testCreateGenerateName(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "", nil)
	cm.GenerateName = "gen-"
	_, err := cms.Create(e.ctx, cm)
	must(t, err)
	if !strings.HasPrefix(cm.Name, "gen-") || len(cm.Name) <= len("gen-") {
		t.Fatalf("generated name %q", cm.Name)
	}
	_, _, err = cms.Get(e.ctx, ns+"/"+cm.Name)
	must(t, err)
}

// An invalid object is IsInvalid with a cause per field, and not stored.
func testCreateInvalid(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "Bad_Name")
	d.Spec.Template.Labels = map[string]string{"app": "other"} // not selected by the selector
	_, err := deployments.Create(e.ctx, d)
	wantErr(t, "create an invalid object", err, "IsInvalid")
	var inv *client.InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("%T is not a *client.InvalidError", err)
	}
	for _, path := range []string{"metadata.name", "spec.template.metadata.labels"} {
		if fe, ok := inv.Field(path); !ok {
			t.Errorf("no cause at %s in %v", path, err)
		} else if fe.Type != client.FieldInvalid {
			t.Errorf("cause at %s is %q, want %q", path, fe.Type, client.FieldInvalid)
		}
	}
	_, _, err = deployments.Get(e.ctx, ns+"/Bad_Name")
	wantErr(t, "get the invalid object", err, "IsNotFound")
}

// A create in a namespace that does not exist is IsNotFound.
func testCreateMissingNamespace(t *testing.T, e *env) {
	ns := e.missingNamespace()
	_, err := resource[*api.ConfigMap](t, e).Create(e.ctx, ConfigMap(ns, "a", nil))
	wantErr(t, "create in a missing namespace", err, "IsNotFound")
}

// Get of a missing object, or of one in a missing namespace, is
// IsNotFound; Get returns a private copy.
func testGet(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	_, _, err := cms.Get(e.ctx, ns+"/missing")
	wantErr(t, "get a missing object", err, "IsNotFound")
	_, _, err = cms.Get(e.ctx, e.missingNamespace()+"/a")
	wantErr(t, "get in a missing namespace", err, "IsNotFound")
	_, _, err = resource[*api.Namespace](t, e).Get(e.ctx, e.missingNamespace())
	wantErr(t, "get a missing cluster-scoped object", err, "IsNotFound")
	_, err = cms.Create(e.ctx, ConfigMap(ns, "a", map[string]string{"k": "v"}))
	must(t, err)
	got, _, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	got.Data["k"] = "changed"
	again, _, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if again.Data["k"] != "v" {
		t.Errorf("changing a Get's object changed the store: %q", again.Data["k"])
	}
}

// Update is conditional on the object's resourceVersion, or on ifVersion.
func testUpdateConflict(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	first, err := cms.Create(e.ctx, cm)
	must(t, err)
	stale := cm.DeepCopy()
	cm.Labels = map[string]string{"v": "1"}
	second, err := cms.Update(e.ctx, cm, "")
	must(t, err)
	if second == first || cm.ResourceVersion != second {
		t.Errorf("update: resourceVersion %q -> %q (object's %q)", first, second, cm.ResourceVersion)
	}
	stale.Labels = map[string]string{"v": "2"}
	_, err = cms.Update(e.ctx, stale, "")
	wantErr(t, "update with a stale resourceVersion", err, "IsConflict")
	if stale.ResourceVersion != first || stale.Labels["v"] != "2" {
		t.Errorf("a failed update changed the caller's object: %+v", stale.ObjectMeta)
	}
	cm.Labels = map[string]string{"v": "3"}
	_, err = cms.Update(e.ctx, cm, first)
	wantErr(t, "update with a stale ifVersion", err, "IsConflict")
	got, _, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if got.Labels["v"] != "1" || got.ResourceVersion != second {
		t.Errorf("after the conflicts: labels %v at %q, want v=1 at %q", got.Labels, got.ResourceVersion, second)
	}
	_, err = cms.Update(e.ctx, ConfigMap(ns, "missing", nil), "")
	wantErr(t, "update a missing object", err, "IsNotFound")
}

// An update with no resourceVersion writes unconditionally.
func testUpdateUnconditional(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	_, err := cms.Create(e.ctx, cm)
	must(t, err)
	stale := cm.DeepCopy()
	cm.Data = map[string]string{"k": "1"}
	_, err = cms.Update(e.ctx, cm, "")
	must(t, err)
	stale.ResourceVersion = ""
	stale.Data = map[string]string{"k": "2"}
	rv, err := cms.Update(e.ctx, stale, "")
	must(t, err)
	got, gotRV, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if got.Data["k"] != "2" || gotRV != rv || stale.ResourceVersion != rv {
		t.Errorf("unconditional update: data %v at %q, returned %q, object's %q", got.Data, gotRV, rv, stale.ResourceVersion)
	}
}

// An update that changes nothing writes nothing: the resourceVersion
// stays and watchers see no event.
func testUpdateNoop(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", map[string]string{"k": "v"})
	rv, err := cms.Create(e.ctx, cm)
	must(t, err)
	events := watch(t, e, cms, client.SelectOptions{Namespace: ns}, rv)
	same := cm.DeepCopy()
	rv2, err := cms.Update(e.ctx, same, "")
	must(t, err)
	if rv2 != rv || same.ResourceVersion != rv {
		t.Errorf("a no-op update: resourceVersion %q (object's %q), want %q", rv2, same.ResourceVersion, rv)
	}
	cm.Labels = map[string]string{"x": "y"}
	rv3, err := cms.Update(e.ctx, cm, "")
	must(t, err)
	// The first event is the real change: the no-op sent none.
	ev := nextChange(t, e, events)
	expect(t, ev, source.Modified, "a")
	if ev.ResourceVersion != rv3 || ev.Object.Labels["x"] != "y" {
		t.Errorf("first event at %q with labels %v, want the labelled update at %q", ev.ResourceVersion, ev.Object.Labels, rv3)
	}
}

// A spec change bumps metadata.generation; a label change does not; a
// generation the client sets is ignored.
func testUpdateGeneration(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	_, err := deployments.Create(e.ctx, d)
	must(t, err)
	d.Labels = map[string]string{"team": "a"}
	_, err = deployments.Update(e.ctx, d, "")
	must(t, err)
	if d.Generation != 1 || d.Labels["team"] != "a" {
		t.Errorf("a label change: generation %d labels %v, want 1", d.Generation, d.Labels)
	}
	d.Spec.Replicas = new(int32)
	*d.Spec.Replicas = 3
	_, err = deployments.Update(e.ctx, d, "")
	must(t, err)
	if d.Generation != 2 {
		t.Errorf("a spec change: generation %d, want 2", d.Generation)
	}
	d.Generation = 7
	d.Spec.Paused = true
	_, err = deployments.Update(e.ctx, d, "")
	must(t, err)
	got, _, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if d.Generation != 3 || got.Generation != 3 {
		t.Errorf("a client-set generation: %d (stored %d), want 3", d.Generation, got.Generation)
	}
}

// Update ignores the status of a kind with a status subresource.
func testUpdateIgnoresStatus(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	rv, err := deployments.Create(e.ctx, d)
	must(t, err)
	d.Status.Replicas = 2
	rv2, err := deployments.Update(e.ctx, d, "")
	must(t, err)
	if rv2 != rv || d.Status.Replicas != 0 {
		t.Errorf("a status-only Update: resourceVersion %q -> %q, status %+v; want no write", rv, rv2, d.Status)
	}
	d.Status.Replicas = 2
	d.Spec.Paused = true
	_, err = deployments.Update(e.ctx, d, "")
	must(t, err)
	got, _, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if !got.Spec.Paused || got.Status.Replicas != 0 || d.Status.Replicas != 0 {
		t.Errorf("spec and status Update: paused %v, stored status %+v, returned %+v", got.Spec.Paused, got.Status, d.Status)
	}
}

// UpdateStatus writes the status and ignores the spec and labels; the
// generation does not change.
func testUpdateStatus(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	rv, err := deployments.Create(e.ctx, d)
	must(t, err)
	d.Status.Replicas = 2
	d.Status.ObservedGeneration = 1
	d.Spec.Paused = true                      // ignored
	d.Labels = map[string]string{"team": "a"} // ignored
	rv2, err := deployments.UpdateStatus(e.ctx, d)
	must(t, err)
	if rv2 == rv || d.ResourceVersion != rv2 {
		t.Errorf("UpdateStatus: resourceVersion %q -> %q (object's %q)", rv, rv2, d.ResourceVersion)
	}
	got, _, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if got.Status.Replicas != 2 || got.Status.ObservedGeneration != 1 {
		t.Errorf("status not written: %+v", got.Status)
	}
	if got.Spec.Paused || got.Labels["team"] != "" || got.Generation != 1 {
		t.Errorf("UpdateStatus wrote more: paused %v labels %v generation %d", got.Spec.Paused, got.Labels, got.Generation)
	}
	if d.Spec.Paused || d.Status.Replicas != 2 {
		t.Errorf("the caller's object is not the stored one: paused %v status %+v", d.Spec.Paused, d.Status)
	}
	// With no resourceVersion it writes unconditionally.
	d.ResourceVersion = ""
	d.Status.Replicas = 3
	_, err = deployments.UpdateStatus(e.ctx, d)
	must(t, err)
	if d.Status.Replicas != 3 {
		t.Errorf("unconditional UpdateStatus: %+v", d.Status)
	}
}

// UpdateStatus is conditional on the object's resourceVersion; a kind
// without status has no status subresource.
func testUpdateStatusConflict(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	_, err := deployments.Create(e.ctx, d)
	must(t, err)
	stale := d.DeepCopy()
	d.Labels = map[string]string{"v": "1"}
	_, err = deployments.Update(e.ctx, d, "")
	must(t, err)
	stale.Status.Replicas = 5
	_, err = deployments.UpdateStatus(e.ctx, stale)
	wantErr(t, "UpdateStatus with a stale resourceVersion", err, "IsConflict")
	got, _, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if got.Status.Replicas != 0 {
		t.Errorf("a failed UpdateStatus wrote %+v", got.Status)
	}
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	_, err = cms.Create(e.ctx, cm)
	must(t, err)
	_, err = cms.UpdateStatus(e.ctx, cm)
	if !client.IsBadRequest(err) && !client.IsNotFound(err) {
		t.Errorf("UpdateStatus of a kind without status: %v, want IsBadRequest or IsNotFound", err)
	}
}

// A JSON merge patch merges maps; a no-op patch writes nothing.
func testPatchMerge(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", map[string]string{"a": "1", "b": "2"})
	rv, err := cms.Create(e.ctx, cm)
	must(t, err)
	p := []byte(`{"metadata":{"labels":{"team":"a"}},"data":{"b":null,"c":"3"}}`)
	got, err := cms.Patch(e.ctx, ns+"/a", client.MergePatch, p)
	must(t, err)
	if got.Labels["team"] != "a" || fmt.Sprint(got.Data) != "map[a:1 c:3]" || got.ResourceVersion == rv || got.UID != cm.UID {
		t.Errorf("merge patch: labels %v data %v at %q", got.Labels, got.Data, got.ResourceVersion)
	}
	stored, rv2, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if rv2 != got.ResourceVersion || fmt.Sprint(stored.Data) != "map[a:1 c:3]" {
		t.Errorf("stored %v at %q, patch returned %q", stored.Data, rv2, got.ResourceVersion)
	}
	again, err := cms.Patch(e.ctx, ns+"/a", client.MergePatch, p)
	must(t, err)
	if again.ResourceVersion != rv2 {
		t.Errorf("a no-op patch wrote: %q -> %q", rv2, again.ResourceVersion)
	}
	_, err = cms.Patch(e.ctx, ns+"/missing", client.MergePatch, p)
	wantErr(t, "patch a missing object", err, "IsNotFound")
}

// A JSON patch applies its operations in order.
func testPatchJSON(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	_, err := cms.Create(e.ctx, ConfigMap(ns, "a", map[string]string{"a": "1"}))
	must(t, err)
	p := []byte(`[{"op":"test","path":"/data/a","value":"1"},{"op":"replace","path":"/data/a","value":"2"},{"op":"add","path":"/data/b","value":"3"}]`)
	got, err := cms.Patch(e.ctx, ns+"/a", client.JSONPatch, p)
	must(t, err)
	if fmt.Sprint(got.Data) != "map[a:2 b:3]" {
		t.Errorf("JSON patch: data %v", got.Data)
	}
}

// A strategic merge patch merges a Deployment's containers by name,
// where a JSON merge patch replaces the list.
func testPatchStrategicMerge(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	_, err := deployments.Create(e.ctx, Deployment(ns, "web"))
	must(t, err)
	p := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"},{"name":"sidecar","image":"busybox:1.36"}]}}}}`)
	got, err := deployments.Patch(e.ctx, ns+"/web", client.StrategicMergePatch, p)
	must(t, err)
	cs := got.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Name != "app" || cs[0].Image != "nginx:1.28" || cs[1].Name != "sidecar" || got.Generation != 2 {
		t.Fatalf("strategic merge: containers %+v generation %d", cs, got.Generation)
	}
	// The app container kept its defaults: it was merged, not replaced.
	if cs[0].TerminationMessagePath == "" || cs[1].TerminationMessagePath == "" {
		t.Errorf("containers lost their defaults: %+v", cs)
	}
	p = []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.37"}]}}}}`)
	got, err = deployments.Patch(e.ctx, ns+"/web", client.StrategicMergePatch, p)
	must(t, err)
	if cs := got.Spec.Template.Spec.Containers; len(cs) != 2 || cs[0].Image != "nginx:1.28" || cs[1].Image != "busybox:1.37" {
		t.Errorf("strategic merge of one container: %+v", cs)
	}
	got, err = deployments.Patch(e.ctx, ns+"/web", client.MergePatch, p)
	must(t, err)
	if cs := got.Spec.Template.Spec.Containers; len(cs) != 1 || cs[0].Name != "sidecar" {
		t.Errorf("merge patch of the list: %+v, want it replaced", cs)
	}
}

// A patch that names a stale metadata.resourceVersion is IsConflict; one
// that changes the uid IsInvalid.
func testPatchConflict(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	cm := ConfigMap(ns, "a", nil)
	rv, err := cms.Create(e.ctx, cm)
	must(t, err)
	cm.Data = map[string]string{"k": "1"}
	rv2, err := cms.Update(e.ctx, cm, "")
	must(t, err)
	_, err = cms.Patch(e.ctx, ns+"/a", client.MergePatch, fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q},"data":{"k":"2"}}`, rv))
	wantErr(t, "patch at a stale resourceVersion", err, "IsConflict")
	got, err := cms.Patch(e.ctx, ns+"/a", client.MergePatch, fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q},"data":{"k":"3"}}`, rv2))
	must(t, err)
	if got.Data["k"] != "3" {
		t.Errorf("patch at the current resourceVersion: %v", got.Data)
	}
	// The uid is immutable (kube-apiserver's metadata validation).
	_, err = cms.Patch(e.ctx, ns+"/a", client.MergePatch, []byte(`{"metadata":{"uid":"00000000-0000-0000-0000-000000000000"}}`))
	wantErr(t, "a patch of the uid", err, "IsInvalid")
}

// A JSON patch whose test operation fails is IsInvalid and writes
// nothing.
func testPatchTestFails(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	rv, err := cms.Create(e.ctx, ConfigMap(ns, "a", map[string]string{"k": "v"}))
	must(t, err)
	_, err = cms.Patch(e.ctx, ns+"/a", client.JSONPatch, []byte(`[{"op":"test","path":"/data/k","value":"other"},{"op":"replace","path":"/data/k","value":"x"}]`))
	wantErr(t, "a failing test operation", err, "IsInvalid")
	got, rv2, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if rv2 != rv || got.Data["k"] != "v" {
		t.Errorf("a failed patch wrote: %v at %q", got.Data, rv2)
	}
}

// An object's uid is a precondition of Update and UpdateStatus: writing
// back a copy of an object that was deleted and created again under the
// same name is IsConflict, even without a resourceVersion.
func testUpdateUIDPrecondition(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	old := ConfigMap(ns, "a", nil)
	_, err := cms.Create(e.ctx, old)
	must(t, err)
	_, err = cms.Delete(e.ctx, ns+"/a", "")
	must(t, err)
	again := ConfigMap(ns, "a", nil)
	_, err = cms.Create(e.ctx, again)
	must(t, err)
	old.ResourceVersion = ""
	old.Data = map[string]string{"k": "v"}
	_, err = cms.Update(e.ctx, old, "")
	wantErr(t, "update with the uid of a deleted object", err, "IsConflict")

	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	_, err = deployments.Create(e.ctx, d)
	must(t, err)
	_, err = deployments.Delete(e.ctx, ns+"/web", "")
	must(t, err)
	_, err = deployments.Create(e.ctx, Deployment(ns, "web"))
	must(t, err)
	d.ResourceVersion = ""
	d.Status.Replicas = 1
	_, err = deployments.UpdateStatus(e.ctx, d)
	wantErr(t, "UpdateStatus with the uid of a deleted object", err, "IsConflict")
	d.Spec.Paused = true
	_, err = deployments.Update(e.ctx, d, "")
	wantErr(t, "update a deployment with the uid of a deleted object", err, "IsConflict")
	got, _, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if got.Spec.Paused || got.Status.Replicas != 0 {
		t.Errorf("a write with a stale uid went through: paused %v status %+v", got.Spec.Paused, got.Status)
	}
	cur, _, err := cms.Get(e.ctx, ns+"/a")
	must(t, err)
	if cur.UID != again.UID || cur.Data["k"] != "" {
		t.Errorf("the new object was overwritten: uid %q data %v", cur.UID, cur.Data)
	}
}
