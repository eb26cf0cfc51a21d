package apiserver_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The scale subresource over HTTP, served by the store's GetScale and
// UpdateScale: the preconditions of PUT and PATCH, JSON patches, and the
// resourceVersion of the answer.
func TestScaleSubresourceHTTP(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	const deps = "/apis/apps/v1/namespaces/default/deployments"
	d := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	require.Equal(t, 201, do(t, ts, "POST", deps, jsonCT, d).code)
	sc := do(t, ts, "GET", deps+"/web/scale", "", "")
	require.Equal(t, 200, sc.code, sc.raw)
	rv := sc.body["metadata"].(map[string]any)["resourceVersion"].(string)
	require.NotEmpty(t, rv)

	// A JSON patch; the answer carries the new version.
	p := do(t, ts, "PATCH", deps+"/web/scale", "application/json-patch+json", `[{"op":"test","path":"/spec/replicas","value":1},{"op":"replace","path":"/spec/replicas","value":2}]`)
	require.Equal(t, 200, p.code, p.raw)
	require.EqualValues(t, 2, p.body["spec"].(map[string]any)["replicas"])
	rv2 := p.body["metadata"].(map[string]any)["resourceVersion"].(string)
	require.NotEqual(t, rv, rv2)
	stored, storedRV, err := c.Deployments().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.EqualValues(t, 2, *stored.Spec.Replicas)
	require.Equal(t, storedRV, rv2)

	// A failing test operation is 422 and writes nothing.
	require.Equal(t, 422, do(t, ts, "PATCH", deps+"/web/scale", "application/json-patch+json", `[{"op":"test","path":"/spec/replicas","value":9}]`).code)

	// A patch that names a stale version is a conflict; the current one
	// is written.
	stale := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"replicas":3}}`, rv)
	require.Equal(t, 409, do(t, ts, "PATCH", deps+"/web/scale", "application/merge-patch+json", stale).code)
	cur := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"replicas":3}}`, rv2)
	require.Equal(t, 200, do(t, ts, "PATCH", deps+"/web/scale", "application/merge-patch+json", cur).code)

	// PUT without a version writes unconditionally; with a stale one it
	// is a conflict.
	put := do(t, ts, "PUT", deps+"/web/scale", jsonCT, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":4}}`)
	require.Equal(t, 200, put.code, put.raw)
	require.EqualValues(t, 4, put.body["spec"].(map[string]any)["replicas"])
	require.Equal(t, 409, do(t, ts, "PUT", deps+"/web/scale", jsonCT, fmt.Sprintf(`{"metadata":{"name":"web","resourceVersion":%q},"spec":{"replicas":5}}`, rv2)).code)
	stored, _, err = c.Deployments().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.EqualValues(t, 4, *stored.Spec.Replicas)
	require.Equal(t, 404, do(t, ts, "GET", deps+"/missing/scale", "", "").code)
	require.Equal(t, 404, do(t, ts, "PUT", deps+"/missing/scale", jsonCT, `{"spec":{"replicas":1}}`).code)
}

// Without a field manager a PUT or PATCH of the scale writes only the
// replicas: managedFields in the body do not reach the object, and an
// apply patch is 415.
func TestScaleSubresourceKeepsManagedFields(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	const deps = "/apis/apps/v1/namespaces/default/deployments"
	d := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	require.Equal(t, 201, do(t, ts, "POST", deps, jsonCT, d).code)
	mf := `"managedFields":[{"manager":"intruder","operation":"Update","apiVersion":"autoscaling/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]`
	put := do(t, ts, "PUT", deps+"/web/scale", jsonCT, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web",`+mf+`},"spec":{"replicas":4}}`)
	require.Equal(t, 200, put.code, put.raw)
	p := do(t, ts, "PATCH", deps+"/web/scale", "application/merge-patch+json", `{"metadata":{`+mf+`},"spec":{"replicas":5}}`)
	require.Equal(t, 200, p.code, p.raw)
	stored, _, err := c.Deployments().Get(t.Context(), "default/web")
	require.NoError(t, err)
	require.EqualValues(t, 5, *stored.Spec.Replicas)
	require.Empty(t, stored.ManagedFields)
	require.Equal(t, 415, do(t, ts, "PATCH", deps+"/web/scale", "application/apply-patch+yaml", `{"spec":{"replicas":1}}`).code)
}
