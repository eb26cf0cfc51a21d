package apiserver_test

import (
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/stretchr/testify/require"
)

// The patch bombs of issue 28 get kube-apiserver's answers: 413 past
// 10,000 JSON patch operations, 422 past the accumulated copy limit.
func TestPatchLimits(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"a":"1"}}`).code)

	many := "[" + strings.Repeat(`{"op":"test","path":"/data/a","value":"1"},`, 10000) + `{"op":"test","path":"/data/a","value":"1"}]`
	r := do(t, ts, "PATCH", cms+"/cm", "application/json-patch+json", many)
	require.Equal(t, 413, r.code, r.raw)
	require.Equal(t, "RequestEntityTooLarge", r.body["reason"])
	require.Contains(t, r.body["message"], "The allowed maximum operations in a JSON patch is 10000, got 10001")

	bomb := `[{"op":"add","path":"/metadata/labels","value":{"x":"0123456789"}},{"op":"add","path":"/metadata/annotations","value":{"x":[]}}` +
		strings.Repeat(`,{"op":"copy","from":"/metadata/annotations/x","path":"/metadata/annotations/x/-"}`, 30) + "]"
	r = do(t, ts, "PATCH", cms+"/cm", "application/json-patch+json", bomb)
	require.Equal(t, 422, r.code, r.raw)
	require.Equal(t, "Invalid", r.body["reason"])
	require.Contains(t, r.body["message"], "Unable to copy, the accumulated size increase of copy is")
}

// Issue 28, item 6, through the server: a duplicate JSON field is a 400
// under fieldValidation=Strict, a ConfigMap key that walks out of its
// volume and a negative resource quantity are 422 with their field paths.
func TestStrictDuplicatesAndPortedValidation(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	r := do(t, ts, "POST", cms+"?fieldValidation=Strict", jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d","name":"e"}}`)
	require.Equal(t, 400, r.code, r.raw)
	require.Equal(t, "BadRequest", r.body["reason"])
	require.Contains(t, r.body["message"], `duplicate field "metadata.name"`)

	r = do(t, ts, "POST", cms, jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"k"},"data":{"../etc/passwd":"x"}}`)
	require.Equal(t, 422, r.code, r.raw)
	causes := r.body["details"].(map[string]any)["causes"].([]any)
	require.Equal(t, "data[../etc/passwd]", causes[0].(map[string]any)["field"])

	r = do(t, ts, "POST", "/api/v1/namespaces/default/pods", jsonCT,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"-1"}}}]}}`)
	require.Equal(t, 422, r.code, r.raw)
	require.Contains(t, r.body["message"], `spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0`)
}
