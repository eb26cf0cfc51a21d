package ssa

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/stretchr/testify/require"
)

var deployGVK = api.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}

func newFM(t *testing.T) *FieldManager {
	t.Helper()
	f, err := New()
	require.NoError(t, err)
	return f
}

type entry struct {
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation"`
	APIVersion  string          `json:"apiVersion"`
	FieldsType  string          `json:"fieldsType"`
	FieldsV1    json.RawMessage `json:"fieldsV1"`
	Subresource string          `json:"subresource"`
	Time        string          `json:"time"`
}

func managed(t *testing.T, b []byte) []entry {
	t.Helper()
	var o struct {
		Metadata struct {
			ManagedFields []entry `json:"managedFields"`
		} `json:"metadata"`
	}
	require.NoError(t, json.Unmarshal(b, &o))
	return o.Metadata.ManagedFields
}

func field(t *testing.T, b []byte, path ...string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(b, &v))
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

const deploy = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: %d
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`

func deployYAML(replicas int) []byte {
	return []byte(sprintf(deploy, replicas))
}

// TestApplyCreatesAndOwns: an apply on a missing object creates it with
// one Apply entry in kube's FieldsV1 format (the list of containers is a
// map keyed by name: k:{"name":"web"}).
func TestApplyCreatesAndOwns(t *testing.T) {
	f := newFM(t)
	out, err := f.Apply(context.Background(), deployGVK, nil, deployYAML(2), "kubectl", "", false)
	require.NoError(t, err)
	mf := managed(t, out)
	require.Len(t, mf, 1)
	require.Equal(t, "kubectl", mf[0].Manager)
	require.Equal(t, "Apply", mf[0].Operation)
	require.Equal(t, "apps/v1", mf[0].APIVersion)
	require.Equal(t, "FieldsV1", mf[0].FieldsType)
	require.NotEmpty(t, mf[0].Time)
	require.Contains(t, string(mf[0].FieldsV1), `"f:replicas":{}`)
	require.Contains(t, string(mf[0].FieldsV1), `"k:{\"name\":\"web\"}":{`)
	require.EqualValues(t, 2, field(t, out, "spec", "replicas"))
}

// TestUpdateThenApplyConflicts ports the conflict shape of kube's
// staging/src/k8s.io/apimachinery/pkg/util/managedfields/internal/conflict.go
// (NewConflictError): an Update by one manager, then an apply of a
// different value by another, is a 409 Conflict with a
// FieldManagerConflict cause; force takes ownership.
func TestUpdateThenApplyConflicts(t *testing.T) {
	ctx := context.Background()
	f := newFM(t)
	live, err := f.Apply(ctx, deployGVK, nil, deployYAML(2), "kubectl", "", false)
	require.NoError(t, err)
	scaled := []byte(replaceReplicas(t, live, 5))
	live, err = f.Update(ctx, deployGVK, live, scaled, "kubectl-scale", "")
	require.NoError(t, err)
	mf := managed(t, live)
	require.Len(t, mf, 2)
	require.Equal(t, "kubectl-scale", mf[1].Manager)
	require.Equal(t, "Update", mf[1].Operation)
	require.JSONEq(t, `{"f:spec":{"f:replicas":{}}}`, string(mf[1].FieldsV1))

	_, err = f.Apply(ctx, deployGVK, live, deployYAML(3), "other", "", false)
	var fe *apiserver.FieldManagerError
	require.True(t, errors.As(err, &fe), "%v", err)
	require.Equal(t, 409, fe.Status.Code)
	require.Equal(t, "Conflict", fe.Status.Reason)
	require.Equal(t, `Apply failed with 1 conflict: conflict with "kubectl-scale" using apps/v1: .spec.replicas`, fe.Status.Message)
	require.Equal(t, []apiserver.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "kubectl-scale" using apps/v1`, Field: ".spec.replicas"}}, fe.Status.Details.Causes)

	out, err := f.Apply(ctx, deployGVK, live, deployYAML(3), "other", "", true)
	require.NoError(t, err)
	require.EqualValues(t, 3, field(t, out, "spec", "replicas"))
	for _, e := range managed(t, out) {
		if e.Manager == "kubectl-scale" {
			t.Fatalf("kubectl-scale still owns fields after a forced apply: %s", e.FieldsV1)
		}
	}
}

// TestApplyRemovesDroppedField: a field the manager applied before and
// leaves out now, owned by nobody else, is removed.
func TestApplyRemovesDroppedField(t *testing.T) {
	ctx := context.Background()
	f := newFM(t)
	live, err := f.Apply(ctx, deployGVK, nil, deployYAML(2), "kubectl", "", false)
	require.NoError(t, err)
	noReplicas := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}}}`)
	out, err := f.Apply(ctx, deployGVK, live, noReplicas, "kubectl", "", false)
	require.NoError(t, err)
	require.Nil(t, field(t, out, "spec", "replicas"))
	require.NotContains(t, string(managed(t, out)[0].FieldsV1), "f:replicas")
}

// TestUpdateEntriesMerge: updates by one manager keep one entry per
// manager, apiVersion and subresource (a status write is its own entry).
func TestUpdateEntriesMerge(t *testing.T) {
	ctx := context.Background()
	f := newFM(t)
	cm := api.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	a := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"data":{"a":"1"}}`)
	out, err := f.Update(ctx, cm, nil, a, "m", "")
	require.NoError(t, err)
	b := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"data":{"a":"1","b":"2"}}`)
	out, err = f.Update(ctx, cm, out, b, "m", "")
	require.NoError(t, err)
	mf := managed(t, out)
	require.Len(t, mf, 1)
	require.JSONEq(t, `{"f:data":{".":{},"f:a":{},"f:b":{}}}`, string(mf[0].FieldsV1))

	dep, err := f.Apply(ctx, deployGVK, nil, deployYAML(1), "kubectl", "", false)
	require.NoError(t, err)
	withStatus := []byte(replaceJSON(t, dep, map[string]any{"status": map[string]any{"replicas": 1}}))
	dep, err = f.Update(ctx, deployGVK, dep, withStatus, "controller", "status")
	require.NoError(t, err)
	mf = managed(t, dep)
	require.Len(t, mf, 2)
	require.Equal(t, "status", mf[1].Subresource)
	require.JSONEq(t, `{"f:status":{".":{},"f:replicas":{}}}`, string(mf[1].FieldsV1))
}

// TestApplyRefusesManagedFieldsAndWrongKind: kube's refusals of a bad
// apply body are 400s, not 500s.
func TestApplyRefusesBadBodies(t *testing.T) {
	ctx := context.Background()
	f := newFM(t)
	for _, body := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"web"}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":"x"}}`,
		`: not yaml`,
	} {
		_, err := f.Apply(ctx, deployGVK, nil, []byte(body), "m", "", false)
		var fe *apiserver.FieldManagerError
		require.True(t, errors.As(err, &fe), "%s: %v", body, err)
		require.Equal(t, 400, fe.Status.Code, "%s: %s", body, fe.Status.Message)
	}
}
