package apiserver_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// The binding subresource of pods, as a scheduler posts it: 201 with a
// Success Status, the pod bound; a second binding is a conflict; a
// binding without a target or for another pod is refused; only POST.
func TestBindingSubresource(t *testing.T) {
	c, ts := start(t, cluster.Options{})
	const pods = "/api/v1/namespaces/default/pods"
	require.Equal(t, 201, do(t, ts, "POST", pods, jsonCT, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`).code)

	require.Equal(t, 422, do(t, ts, "POST", pods+"/p/binding", jsonCT, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{}}`).code)
	require.Equal(t, 400, do(t, ts, "POST", pods+"/p/binding", jsonCT, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"q"},"target":{"name":"n1"}}`).code)
	require.Equal(t, 405, do(t, ts, "GET", pods+"/p/binding", "", "").code)
	require.Equal(t, 404, do(t, ts, "POST", "/api/v1/namespaces/default/configmaps/x/binding", jsonCT, `{"target":{"name":"n1"}}`).code)

	r := do(t, ts, "POST", pods+"/p/binding", jsonCT, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"apiVersion":"v1","kind":"Node","name":"n1"}}`)
	require.Equal(t, 201, r.code, r.raw)
	require.Equal(t, "Success", r.body["status"])
	p, _, err := c.Pods().Get(t.Context(), "default/p")
	require.NoError(t, err)
	require.Equal(t, "n1", p.Spec.NodeName)

	require.Equal(t, 409, do(t, ts, "POST", pods+"/p/binding", jsonCT, `{"metadata":{"name":"p"},"target":{"name":"n2"}}`).code)
	require.Equal(t, 404, do(t, ts, "POST", pods+"/missing/binding", jsonCT, `{"target":{"name":"n1"}}`).code)
}

// A patch that changes the uid is 422 (the uid is immutable), not a
// conflict retried until it gives up.
func TestPatchUIDImmutable(t *testing.T) {
	_, ts := start(t, cluster.Options{})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, do(t, ts, "POST", cms, jsonCT, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`).code)
	r := do(t, ts, "PATCH", cms+"/a", "application/merge-patch+json", `{"metadata":{"uid":"00000000-0000-0000-0000-000000000001"}}`)
	require.Equal(t, 422, r.code, r.raw)
	require.Contains(t, r.raw, "metadata.uid")
}
