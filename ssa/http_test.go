package ssa

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/stretchr/testify/require"
)

func serve(t *testing.T) *httptest.Server {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	fm, err := New()
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{FieldManager: fm})
	require.NoError(t, err)
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	return ts
}

type answer struct {
	code int
	body string
}

func do(t *testing.T, ts *httptest.Server, method, path, ct, ua, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("User-Agent", ua)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{resp.StatusCode, string(b)}
}

const cms = "/api/v1/namespaces/default/configmaps"

// The HTTP rules of the hook (kube's
// staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go
// managerOrUserAgent and apimachinery's ValidatePatchOptions): the
// manager of a write without fieldManager is the User-Agent's first
// part; a PUT without managedFields keeps them; apply needs a
// fieldManager; force is only for apply; apply creates; dryRun stores
// nothing.
func TestHTTPFieldManagerRules(t *testing.T) {
	ts := serve(t)
	cm := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1"}}`
	r := do(t, ts, "POST", cms, "application/json", "kubectl-create/v1.32.0 (linux/amd64)", cm)
	require.Equal(t, 201, r.code, r.body)
	mf := managed(t, []byte(r.body))
	require.Len(t, mf, 1)
	require.Equal(t, "kubectl-create", mf[0].Manager)
	require.Equal(t, "Update", mf[0].Operation)
	require.JSONEq(t, `{"f:data":{".":{},"f:a":{}}}`, string(mf[0].FieldsV1))

	// A PUT without managedFields keeps the stored ones and adds its own.
	r = do(t, ts, "PUT", cms+"/c?fieldManager=editor", "application/json", "x",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}}`)
	require.Equal(t, 200, r.code, r.body)
	mf = managed(t, []byte(r.body))
	require.Len(t, mf, 2)
	require.JSONEq(t, `{"f:data":{"f:b":{}}}`, string(byManager(t, mf, "editor").FieldsV1))
	require.JSONEq(t, `{"f:data":{".":{},"f:a":{}}}`, string(byManager(t, mf, "kubectl-create").FieldsV1))

	apply := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"9"}}`
	r = do(t, ts, "PATCH", cms+"/c", "application/apply-patch+yaml", "x", apply)
	require.Equal(t, 422, r.code, r.body)
	var st apiserver.Status
	require.NoError(t, json.Unmarshal([]byte(r.body), &st))
	require.Equal(t, `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`, st.Message)
	require.Equal(t, "Invalid", st.Reason)

	r = do(t, ts, "PATCH", cms+"/c?force=true", "application/merge-patch+json", "x", `{"data":{"a":"2"}}`)
	require.Equal(t, 422, r.code, r.body)
	require.Contains(t, r.body, "force: Forbidden: may not be specified for non-apply patch")

	r = do(t, ts, "PATCH", cms+"/c?fieldManager="+strings.Repeat("m", 129), "application/merge-patch+json", "x", `{"data":{"a":"2"}}`)
	require.Equal(t, 422, r.code, r.body)
	require.Contains(t, r.body, "fieldManager: Too long: may not be more than 128 bytes")

	r = do(t, ts, "PATCH", cms+"/c?fieldManager=a", "application/apply-patch+cbor", "x", apply)
	require.Equal(t, 415, r.code, r.body)

	// A conflict with kubectl-create's data.a, as kube's 409.
	r = do(t, ts, "PATCH", cms+"/c?fieldManager=a", "application/apply-patch+yaml", "x", apply)
	require.Equal(t, 409, r.code, r.body)
	require.NoError(t, json.Unmarshal([]byte(r.body), &st))
	require.Equal(t, "Conflict", st.Reason)
	require.Equal(t, `Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.a`, st.Message)
	require.Equal(t, []apiserver.StatusCause{{Reason: "FieldManagerConflict", Message: `conflict with "kubectl-create" using v1`, Field: ".data.a"}}, st.Details.Causes)

	r = do(t, ts, "PATCH", cms+"/c?fieldManager=a&force=true", "application/apply-patch+yaml", "x", apply)
	require.Equal(t, 200, r.code, r.body)
	require.Equal(t, "9", field(t, []byte(r.body), "data", "a"))

	// Apply creates; with dryRun it stores nothing.
	newCM := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\ndata:\n  k: v\n"
	r = do(t, ts, "PATCH", cms+"/new?fieldManager=a&dryRun=All", "application/apply-patch+yaml", "x", newCM)
	require.Equal(t, 201, r.code, r.body)
	require.Equal(t, 404, do(t, ts, "GET", cms+"/new", "", "x", "").code)
	r = do(t, ts, "PATCH", cms+"/new?fieldManager=a", "application/apply-patch+yaml", "x", newCM)
	require.Equal(t, 201, r.code, r.body)
	require.Equal(t, "Apply", managed(t, []byte(r.body))[0].Operation)
	require.Equal(t, 200, do(t, ts, "GET", cms+"/new", "", "x", "").code)

	// A body naming another object is refused.
	r = do(t, ts, "PATCH", cms+"/other?fieldManager=a", "application/apply-patch+yaml", "x", newCM)
	require.Equal(t, 400, r.code, r.body)
}

// A status write records its own entry, with subresource "status".
func TestHTTPStatusSubresource(t *testing.T) {
	ts := serve(t)
	deps := "/apis/apps/v1/namespaces/default/deployments"
	r := do(t, ts, "PATCH", deps+"/web?fieldManager=kubectl", "application/apply-patch+yaml", "x", sprintf(deploy, 1))
	require.Equal(t, 201, r.code, r.body)
	r = do(t, ts, "PATCH", deps+"/web/status", "application/merge-patch+json", "controller/v1", `{"status":{"observedGeneration":1}}`)
	require.Equal(t, 200, r.code, r.body)
	mf := managed(t, []byte(r.body))
	require.Len(t, mf, 2)
	e := byManager(t, mf, "controller")
	require.Equal(t, "status", e.Subresource)
	require.Equal(t, "Update", e.Operation)
	require.Contains(t, string(e.FieldsV1), `"f:observedGeneration":{}`)
}

func byManager(t *testing.T, mf []entry, manager string) entry {
	t.Helper()
	for _, e := range mf {
		if e.Manager == manager {
			return e
		}
	}
	t.Fatalf("no entry of manager %q in %v", manager, mf)
	return entry{}
}
