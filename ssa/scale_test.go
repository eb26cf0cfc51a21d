package ssa

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/stretchr/testify/require"
)

// scaleObject is an object of kind with one replica, as kube's
// test/integration/apiserver/apply/scale_test.go validAppsV1 and
// validV1ReplicationController.
func scaleObject(apiVersion, kind string) string {
	selector := `{"matchLabels":{"app":"nginx"}}`
	if kind == "ReplicationController" {
		selector = `{"app":"nginx"}`
	}
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"test"},"spec":{"replicas":1,"selector":%s,
"template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:latest"}]}}}}`, apiVersion, kind, selector)
}

// replicasOwners returns the managers whose entries own spec.replicas.
func replicasOwners(t *testing.T, b []byte) []string {
	t.Helper()
	var owners []string
	for _, e := range managed(t, b) {
		var f map[string]map[string]any
		require.NoError(t, json.Unmarshal(e.FieldsV1, &f))
		if _, ok := f["f:spec"]["f:replicas"]; ok {
			owners = append(owners, e.Manager)
		}
	}
	sort.Strings(owners)
	return owners
}

// Server-side apply and updates through the scale subresource keep the
// parent's managedFields as kube-apiserver does (its ScaleHandler): a
// scale by a manager takes spec.replicas from the parent's appliers, so
// re-applying the parent conflicts; applying an autoscaling/v1 Scale
// conflicts with the parent's owner of spec.replicas (kube's 409) and
// force takes it; a PUT of the scale makes its manager the owner; an
// apply of the same replicas co-owns; a scale again owns alone. Ported
// from kube's test/integration/apiserver/apply/scale_test.go
// (TestScaleAllResources).
func TestHTTPScaleSubresource(t *testing.T) {
	for _, tc := range []struct{ kind, apiVersion, path string }{
		{"Deployment", "apps/v1", "/apis/apps/v1/namespaces/default/deployments/test"},
		{"StatefulSet", "apps/v1", "/apis/apps/v1/namespaces/default/statefulsets/test"},
		{"ReplicaSet", "apps/v1", "/apis/apps/v1/namespaces/default/replicasets/test"},
		{"ReplicationController", "v1", "/api/v1/namespaces/default/replicationcontrollers/test"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			ts := serve(t)
			obj := scaleObject(tc.apiVersion, tc.kind)
			applyParent := func(query string) answer {
				t.Helper()
				return do(t, ts, "PATCH", tc.path+"?fieldManager=apply_test"+query, "application/apply-patch+yaml", "x", obj)
			}
			scale := func(method, ct, manager, query, body string) answer {
				t.Helper()
				return do(t, ts, method, tc.path+"/scale?fieldManager="+manager+query, ct, "x", body)
			}
			state := func() (float64, []string) {
				t.Helper()
				r := do(t, ts, "GET", tc.path, "", "x", "")
				require.Equal(t, 200, r.code, r.body)
				return field(t, []byte(r.body), "spec", "replicas").(float64), replicasOwners(t, []byte(r.body))
			}
			expect := func(replicas float64, owners ...string) {
				t.Helper()
				n, o := state()
				require.Equal(t, replicas, n)
				require.Equal(t, owners, o)
			}
			applyScale := func(n int) string {
				return fmt.Sprintf(`{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"test","namespace":"default"},"spec":{"replicas":%d}}`, n)
			}

			r := applyParent("")
			require.Equal(t, 201, r.code, r.body)
			expect(1, "apply_test")

			// A merge patch of the scale takes spec.replicas.
			r = scale("PATCH", "application/merge-patch+json", "scale_test", "", `{"spec":{"replicas": 5}}`)
			require.Equal(t, 200, r.code, r.body)
			require.Equal(t, float64(5), field(t, []byte(r.body), "spec", "replicas"))
			expect(5, "scale_test")

			// Re-applying the parent conflicts with the scaler; force wins.
			r = applyParent("")
			require.Equal(t, 409, r.code, r.body)
			var st apiserver.Status
			require.NoError(t, json.Unmarshal([]byte(r.body), &st))
			require.Equal(t, `Apply failed with 1 conflict: conflict with "scale_test" with subresource "scale" using `+tc.apiVersion+`: .spec.replicas`, st.Message)
			r = applyParent("&force=true")
			require.Equal(t, 200, r.code, r.body)
			expect(1, "apply_test")

			// Applying a Scale with other replicas conflicts with the
			// parent's applier; force takes the field.
			r = scale("PATCH", "application/apply-patch+yaml", "apply_scale", "", applyScale(17))
			require.Equal(t, 409, r.code, r.body)
			require.NoError(t, json.Unmarshal([]byte(r.body), &st))
			require.Equal(t, "Conflict", st.Reason)
			require.Equal(t, `Apply failed with 1 conflict: conflict with "apply_test": .spec.replicas`, st.Message)
			require.Equal(t, []apiserver.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "apply_test"`, Field: ".spec.replicas"}}, st.Details.Causes)
			expect(1, "apply_test")
			r = scale("PATCH", "application/apply-patch+yaml", "apply_scale", "&force=true", applyScale(17))
			require.Equal(t, 200, r.code, r.body)
			expect(17, "apply_scale")

			// A PUT of the scale owns it.
			r = scale("PUT", "application/json", "replace_test", "", applyScale(7))
			require.Equal(t, 200, r.code, r.body)
			expect(7, "replace_test")

			// Applying the same replicas co-owns.
			r = scale("PATCH", "application/apply-patch+yaml", "co_owning_test", "", applyScale(7))
			require.Equal(t, 200, r.code, r.body)
			expect(7, "co_owning_test", "replace_test")

			// Scaling again owns alone.
			r = scale("PATCH", "application/merge-patch+json", "scale_test", "", `{"spec":{"replicas": 5}}`)
			require.Equal(t, 200, r.code, r.body)
			expect(5, "scale_test")

			// The apply options are checked as on the parent.
			r = scale("PATCH", "application/apply-patch+yaml", "", "", applyScale(3))
			require.Equal(t, 422, r.code, r.body)
			require.Contains(t, r.body, "fieldManager: Required value: is required for apply patch")
			r = scale("PATCH", "application/merge-patch+json", "m", "&force=true", `{"spec":{"replicas": 5}}`)
			require.Equal(t, 422, r.code, r.body)
			// An applied body of another kind is refused; so are negative
			// replicas.
			r = scale("PATCH", "application/apply-patch+yaml", "m", "", obj)
			require.Equal(t, 400, r.code, r.body)
			require.Contains(t, r.body, "does not match the expected API version (autoscaling/v1)")
			r = scale("PATCH", "application/apply-patch+yaml", "m", "&force=true", applyScale(-1))
			require.Equal(t, 422, r.code, r.body)
			expect(5, "scale_test")
		})
	}
}

// countCRD defines a custom resource whose scale subresource keeps its
// replicas at .spec.count.
const countCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"noxus.mygroup.example.com"},
"spec":{"group":"mygroup.example.com","scope":"Namespaced","names":{"plural":"noxus","singular":"noxu","kind":"Noxu"},
"versions":[{"name":"v1","served":true,"storage":true,
 "subresources":{"status":{},"scale":{"specReplicasPath":".spec.count","statusReplicasPath":".status.replicas"}},
 "schema":{"openAPIV3Schema":{"type":"object","properties":{
  "spec":{"type":"object","properties":{"count":{"type":"integer"},"color":{"type":"string"}}},
  "status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

// Issue 32: the scale subresource of a custom resource keeps the
// managedFields as kube-apiserver does, through its definition's
// specReplicasPath (apiextensions-apiserver's replicasPathInCustomResource
// mapping for the ScaleHandler): a scale by a manager takes .spec.count
// from its applier, whose entry is left owning nothing under spec, as an
// Update entry of subresource "scale" at the resource's version;
// re-applying the parent then conflicts with it; an apply of an
// autoscaling/v1 Scale conflicts with the owner of .spec.count, and
// force takes it. Ported from kube's apiextensions-apiserver
// test/integration/subresources_test.go (TestApplyScaleSubresource),
// with the Scale apply of test/integration/apiserver/apply/scale_test.go.
func TestHTTPScaleCustomResource(t *testing.T) {
	ts := serve(t)
	r := do(t, ts, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", "creator", countCRD)
	require.Equal(t, 201, r.code, r.body)
	const noxus = "/apis/mygroup.example.com/v1/namespaces/default/noxus"
	require.Eventually(t, func() bool {
		return do(t, ts, "GET", noxus, "", "x", "").code == 200
	}, 10*time.Second, 20*time.Millisecond, "the definition is not served")
	r = do(t, ts, "POST", noxus, "application/json", "creator/v1",
		`{"apiVersion":"mygroup.example.com/v1","kind":"Noxu","metadata":{"name":"foo"},"spec":{"count":3,"color":"red"}}`)
	require.Equal(t, 201, r.code, r.body)

	apply := `{"apiVersion":"mygroup.example.com/v1","kind":"Noxu","metadata":{"name":"foo"},"spec":{"count":3}}`
	r = do(t, ts, "PATCH", noxus+"/foo?fieldManager=applier", "application/apply-patch+yaml", "x", apply)
	require.Equal(t, 200, r.code, r.body)
	require.Len(t, managed(t, []byte(r.body)), 2)

	r = do(t, ts, "PATCH", noxus+"/foo/scale?fieldManager=scaler", "application/merge-patch+json", "x", `{"spec":{"replicas":5}}`)
	require.Equal(t, 200, r.code, r.body)
	require.EqualValues(t, 5, field(t, []byte(r.body), "spec", "replicas"))
	r = do(t, ts, "GET", noxus+"/foo", "", "x", "")
	require.Equal(t, 200, r.code, r.body)
	require.EqualValues(t, 5, field(t, []byte(r.body), "spec", "count"))
	mf := managed(t, []byte(r.body))
	require.Len(t, mf, 3, r.body)
	a := byManager(t, mf, "applier")
	require.Equal(t, "Apply", a.Operation)
	require.Equal(t, "mygroup.example.com/v1", a.APIVersion)
	require.JSONEq(t, `{"f:spec":{}}`, string(a.FieldsV1))
	s := byManager(t, mf, "scaler")
	require.Equal(t, "Update", s.Operation)
	require.Equal(t, "scale", s.Subresource)
	require.Equal(t, "mygroup.example.com/v1", s.APIVersion)
	require.JSONEq(t, `{"f:spec":{"f:count":{}}}`, string(s.FieldsV1))
	require.Equal(t, "Update", byManager(t, mf, "creator").Operation)

	// The applier's count is the scaler's now: applying it conflicts.
	r = do(t, ts, "PATCH", noxus+"/foo?fieldManager=applier", "application/apply-patch+yaml", "x", apply)
	require.Equal(t, 409, r.code, r.body)
	require.Contains(t, r.body, `conflict with \"scaler\" with subresource \"scale\"`)
	require.Contains(t, r.body, ".spec.count")

	// An autoscaling/v1 Scale applied to the subresource conflicts with
	// the owner of .spec.count (as .spec.replicas); force takes it.
	scale := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"foo"},"spec":{"replicas":4}}`
	r = do(t, ts, "PATCH", noxus+"/foo/scale?fieldManager=hpa", "application/apply-patch+yaml", "x", scale)
	require.Equal(t, 409, r.code, r.body)
	require.Contains(t, r.body, `conflict with \"scaler\"`)
	require.Contains(t, r.body, ".spec.replicas")
	r = do(t, ts, "PATCH", noxus+"/foo/scale?fieldManager=hpa&force=true", "application/apply-patch+yaml", "x", scale)
	require.Equal(t, 200, r.code, r.body)
	r = do(t, ts, "GET", noxus+"/foo", "", "x", "")
	require.EqualValues(t, 4, field(t, []byte(r.body), "spec", "count"))
	require.Equal(t, "red", field(t, []byte(r.body), "spec", "color"))
	var owners []string
	for _, e := range managed(t, []byte(r.body)) {
		if strings.Contains(string(e.FieldsV1), `"f:count"`) {
			owners = append(owners, e.Manager+"/"+e.Subresource+"/"+e.Operation)
		}
	}
	require.Equal(t, []string{"hpa/scale/Apply"}, owners)
}
