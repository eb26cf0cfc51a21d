package clienttest

import (
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// The scale subresource of a Deployment reads and writes its replicas.
func testScale(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	rv, err := deployments.Create(e.ctx, d)
	must(t, err)
	sc, err := deployments.GetScale(e.ctx, ns+"/web")
	must(t, err)
	if sc.Name != "web" || sc.Namespace != ns || sc.UID != d.UID || sc.ResourceVersion != rv {
		t.Errorf("scale metadata %+v, want the deployment's at %q", sc.ObjectMeta, rv)
	}
	if sc.Spec.Replicas != 1 || sc.Status.Replicas != 0 || sc.Status.Selector != "app=web" {
		t.Errorf("scale %+v %+v", sc.Spec, sc.Status)
	}
	sc.Spec.Replicas = 3
	got, err := deployments.UpdateScale(e.ctx, ns+"/web", sc)
	must(t, err)
	if got.Spec.Replicas != 3 || got.ResourceVersion == rv {
		t.Errorf("UpdateScale returned %+v at %q", got.Spec, got.ResourceVersion)
	}
	stored, storedRV, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if *stored.Spec.Replicas != 3 || stored.Generation != 2 || storedRV != got.ResourceVersion {
		t.Errorf("after UpdateScale: replicas %d generation %d at %q, scale at %q", *stored.Spec.Replicas, stored.Generation, storedRV, got.ResourceVersion)
	}
	// No resourceVersion: unconditional.
	_, err = deployments.UpdateScale(e.ctx, ns+"/web", &api.Scale{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: ns}, Spec: api.ScaleSpec{Replicas: 0}})
	must(t, err)
	stored, _, err = deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if *stored.Spec.Replicas != 0 {
		t.Errorf("scaled to 0: replicas %d", *stored.Spec.Replicas)
	}
	_, err = deployments.UpdateScale(e.ctx, ns+"/web", &api.Scale{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: ns}, Spec: api.ScaleSpec{Replicas: -1}})
	wantErr(t, "scale to -1", err, "IsInvalid")
	_, err = deployments.GetScale(e.ctx, ns+"/missing")
	wantErr(t, "scale of a missing deployment", err, "IsNotFound")
}

// UpdateScale is conditional on the scale's resourceVersion.
func testScaleConflict(t *testing.T, e *env) {
	ns := e.namespace(t)
	deployments := resource[*api.Deployment](t, e)
	d := Deployment(ns, "web")
	_, err := deployments.Create(e.ctx, d)
	must(t, err)
	sc, err := deployments.GetScale(e.ctx, ns+"/web")
	must(t, err)
	d.Labels = map[string]string{"v": "1"}
	_, err = deployments.Update(e.ctx, d, "")
	must(t, err)
	sc.Spec.Replicas = 4
	_, err = deployments.UpdateScale(e.ctx, ns+"/web", sc)
	wantErr(t, "UpdateScale at a stale resourceVersion", err, "IsConflict")
	stored, _, err := deployments.Get(e.ctx, ns+"/web")
	must(t, err)
	if *stored.Spec.Replicas != 1 {
		t.Errorf("a failed UpdateScale wrote replicas %d", *stored.Spec.Replicas)
	}
}

// A kind without a scale subresource says so with source.ErrUnsupported.
func testScaleUnsupported(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	_, err := cms.Create(e.ctx, ConfigMap(ns, "a", nil))
	must(t, err)
	if _, err := cms.GetScale(e.ctx, ns+"/a"); !errors.Is(err, source.ErrUnsupported) {
		t.Errorf("GetScale of a config map: %v, want source.ErrUnsupported", err)
	}
	if _, err := cms.UpdateScale(e.ctx, ns+"/a", &api.Scale{Spec: api.ScaleSpec{Replicas: 1}}); !errors.Is(err, source.ErrUnsupported) {
		t.Errorf("UpdateScale of a config map: %v, want source.ErrUnsupported", err)
	}
}
