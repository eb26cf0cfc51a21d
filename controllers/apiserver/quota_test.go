package apiserver_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
)

// TestQuotaExceededIsForbidden: a create over a ResourceQuota's hard
// limit is answered as kube-apiserver answers it, 403 Forbidden with the
// quota plugin's message, not a 500.
func TestQuotaExceededIsForbidden(t *testing.T) {
	quota := resourcequota.NewAdmission()
	c, ts := start(t, cluster.Options{Admission: []admission.ValidatingFunc{quota.Admit}})
	require.NoError(t, quota.SetClient(c))

	r := do(t, ts, "POST", "/api/v1/namespaces/default/resourcequotas", jsonCT,
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"1"}}}`)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	// The quota controller's first count: nothing used.
	r = do(t, ts, "PUT", "/api/v1/namespaces/default/resourcequotas/q/status", jsonCT,
		`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q","resourceVersion":"`+meta(r)["resourceVersion"].(string)+`"},"spec":{"hard":{"pods":"1"}},"status":{"hard":{"pods":"1"},"used":{"pods":"0"}}}`)
	require.Equal(t, http.StatusOK, r.code, r.raw)
	pod := func(name string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	}
	r = do(t, ts, "POST", "/api/v1/namespaces/default/pods", jsonCT, pod("a"))
	require.Equal(t, http.StatusCreated, r.code, r.raw)

	r = do(t, ts, "POST", "/api/v1/namespaces/default/pods", jsonCT, pod("x"))
	require.Equal(t, http.StatusForbidden, r.code, r.raw)
	require.Equal(t, "Forbidden", r.body["reason"])
	require.EqualValues(t, 403, r.body["code"])
	require.Equal(t, `pods "x" is forbidden: exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1`, r.body["message"])
	details := r.body["details"].(map[string]any)
	require.Equal(t, "x", details["name"])
	require.Equal(t, "pods", details["kind"])
}
