package ssa

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

const (
	hpasV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers"
	hpasV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers"
	hpaV1  = `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  maxReplicas: 5
  targetCPUUtilizationPercentage: 60
`
)

// Issue 32: server-side apply of autoscaling/v1 HorizontalPodAutoscaler,
// which the server serves over the autoscaling/v2 store. As
// kube-apiserver's field manager (apimachinery's
// structuredMergeManager: it converts the live object to the applied
// version, applies, converts back), the configuration applies to the v1
// form, the Apply entry names autoscaling/v1 and its v1 fields, and the
// v2 read has the converted result (targetCPUUtilizationPercentage as a
// CPU utilization metric). Another manager's apply of spec.maxReplicas
// conflicts (409, kube's message) until forced, after which it owns it;
// the first applier's config no longer holding a field removes it.
func TestApplyHPAV1(t *testing.T) {
	ts := serve(t)
	r := do(t, ts, "PATCH", hpasV1+"/web?fieldManager=kubectl", "application/apply-patch+yaml", "x", hpaV1)
	require.Equal(t, 201, r.code, r.body)
	require.Equal(t, "autoscaling/v1", field(t, []byte(r.body), "apiVersion"))
	mf := managed(t, []byte(r.body))
	require.Len(t, mf, 1)
	require.Equal(t, "Apply", mf[0].Operation)
	require.Equal(t, "autoscaling/v1", mf[0].APIVersion)
	require.JSONEq(t, `{"f:spec":{"f:maxReplicas":{},"f:scaleTargetRef":{"f:apiVersion":{},"f:kind":{},"f:name":{}},"f:targetCPUUtilizationPercentage":{}}}`,
		string(mf[0].FieldsV1))

	v2 := do(t, ts, "GET", hpasV2+"/web", "", "x", "")
	require.Equal(t, 200, v2.code, v2.body)
	require.EqualValues(t, 5, field(t, []byte(v2.body), "spec", "maxReplicas"))
	require.EqualValues(t, 1, field(t, []byte(v2.body), "spec", "minReplicas"), "v1's default")
	require.JSONEq(t, `[{"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}}]`,
		mustJSON(t, field(t, []byte(v2.body), "spec", "metrics")))

	other := `{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},"spec":{"maxReplicas":7}}`
	r = do(t, ts, "PATCH", hpasV1+"/web?fieldManager=other", "application/apply-patch+yaml", "x", other)
	require.Equal(t, 409, r.code, r.body)
	require.Contains(t, r.body, `Apply failed with 1 conflict: conflict with \"kubectl\": .spec.maxReplicas`)
	require.Contains(t, r.body, `"reason":"FieldManagerConflict"`)

	r = do(t, ts, "PATCH", hpasV1+"/web?fieldManager=other&force=true", "application/apply-patch+yaml", "x", other)
	require.Equal(t, 200, r.code, r.body)
	require.EqualValues(t, 7, field(t, []byte(r.body), "spec", "maxReplicas"))
	mf = managed(t, []byte(r.body))
	require.JSONEq(t, `{"f:spec":{"f:maxReplicas":{}}}`, string(byManager(t, mf, "other").FieldsV1))
	require.NotContains(t, string(byManager(t, mf, "kubectl").FieldsV1), "maxReplicas")

	// The first applier stops applying the CPU target: its 60 is
	// removed, and the default (80% CPU, autoscaling/v2's) is back.
	r = do(t, ts, "PATCH", hpasV1+"/web?fieldManager=kubectl", "application/apply-patch+yaml", "x",
		`{"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}}}`)
	require.Equal(t, 200, r.code, r.body)
	require.EqualValues(t, 80, field(t, []byte(r.body), "spec", "targetCPUUtilizationPercentage"))
	v2 = do(t, ts, "GET", hpasV2+"/web", "", "x", "")
	require.EqualValues(t, 7, field(t, []byte(v2.body), "spec", "maxReplicas"))

	// A v2 body on the v1 endpoint is kube's 400.
	r = do(t, ts, "PATCH", hpasV1+"/web?fieldManager=kubectl", "application/apply-patch+yaml", "x",
		`{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"}}`)
	require.Equal(t, 400, r.code, r.body)
	require.Contains(t, r.body, "does not match the expected API version (autoscaling/v1)")
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}
