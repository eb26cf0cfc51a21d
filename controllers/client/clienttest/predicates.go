package clienttest

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Each error of the contract satisfies exactly its own predicate; the
// other subtests check the same of every error they provoke.
func testPredicates(t *testing.T, e *env) {
	ns := e.namespace(t)
	cms := resource[*api.ConfigMap](t, e)
	deployments := resource[*api.Deployment](t, e)
	cm := ConfigMap(ns, "a", nil)
	rv, err := cms.Create(e.ctx, cm)
	must(t, err)
	cm.Data = map[string]string{"k": "v"}
	_, err = cms.Update(e.ctx, cm, "")
	must(t, err)
	for _, tc := range []struct {
		what string
		want string
		err  func() error
	}{
		{"get missing", "IsNotFound", func() error { _, _, err := cms.Get(e.ctx, ns+"/missing"); return err }},
		{"create taken", "IsAlreadyExists", func() error { _, err := cms.Create(e.ctx, ConfigMap(ns, "a", nil)); return err }},
		{"delete stale", "IsConflict", func() error { _, err := cms.Delete(e.ctx, ns+"/a", rv); return err }},
		{"create invalid", "IsInvalid", func() error { _, err := cms.Create(e.ctx, ConfigMap(ns, "Not_A_Name", nil)); return err }},
		{"create in a missing namespace", "IsNotFound", func() error {
			_, err := cms.Create(e.ctx, ConfigMap(e.missingNamespace(), "a", nil))
			return err
		}},
		{"patch stale", "IsConflict", func() error {
			_, err := cms.Patch(e.ctx, ns+"/a", client.MergePatch, []byte(`{"metadata":{"resourceVersion":"`+rv+`"}}`))
			return err
		}},
		{"scale invalid", "IsInvalid", func() error {
			d := Deployment(ns, "web")
			if _, err := deployments.Create(e.ctx, d); err != nil {
				return err
			}
			_, err := deployments.UpdateScale(e.ctx, ns+"/web", &api.Scale{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: ns}, Spec: api.ScaleSpec{Replicas: -1}})
			return err
		}},
		{"bad label selector", "IsBadRequest", func() error {
			lw, err := cms.Select(client.SelectOptions{Namespace: ns, LabelSelector: "a in (b"})
			if err == nil {
				_, err = lw.List(e.ctx, source.ListOptions{})
			}
			return err
		}},
	} {
		wantErr(t, tc.what, tc.err(), tc.want)
	}
}
