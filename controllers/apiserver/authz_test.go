package apiserver_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
	"github.com/stretchr/testify/require"
)

// startRBAC serves a cluster with kube's bootstrap roles, the namespace
// team and jane bound to view there; a request's X-Test-User header is
// its authenticated user (none: the admin).
func startRBAC(t *testing.T, mode string) *httptest.Server {
	t.Helper()
	_, ts := startRBACCluster(t, mode)
	return ts
}

// startRBACCluster is startRBAC, returning the cluster too.
func startRBACCluster(t *testing.T, mode string) (*cluster.Cluster, *httptest.Server) {
	t.Helper()
	ctx := t.Context()
	c, srv := newServer(t, ctx, apiserver.Options{AuthorizationMode: mode})
	require.NoError(t, rbac.Bootstrap(ctx, c))
	ns, _ := cluster.StoreFor[*api.Namespace](c)
	_, err := ns.Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "team"}})
	require.NoError(t, err)
	rbs, _ := cluster.StoreFor[*api.RoleBinding](c)
	_, err = rbs.Create(ctx, &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "jane-view", Namespace: "team"},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroup, Kind: "ClusterRole", Name: "view"},
		Subjects: []api.Subject{{Kind: "User", APIGroup: api.RBACGroup, Name: "jane"}}})
	require.NoError(t, err)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-Test-User"); u != "" {
			r = r.WithContext(rbac.WithUser(r.Context(), rbac.User{Name: u, Groups: []string{rbac.AllAuthenticated}}))
		}
		srv.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return c, ts
}

const ssarPath = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"

func ssar(verb, ns, resource, sub string) string {
	return `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":` +
		`{"verb":"` + verb + `","namespace":"` + ns + `","resource":"` + resource + `","subresource":"` + sub + `"}}}`
}

func status(r response) map[string]any { return r.body["status"].(map[string]any) }

func TestAccessReviews(t *testing.T) {
	ts := startRBAC(t, "")
	r := do(t, ts, "POST", ssarPath, jsonCT, ssar("list", "team", "pods", ""), "X-Test-User", "jane")
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	require.Equal(t, "SelfSubjectAccessReview", r.body["kind"])
	require.Equal(t, true, status(r)["allowed"], r.raw)
	require.Equal(t, `RBAC: allowed by RoleBinding "jane-view/team" of ClusterRole "view" to User "jane"`, status(r)["reason"])
	r = do(t, ts, "POST", ssarPath, jsonCT, ssar("get", "team", "pods", "log"), "X-Test-User", "jane")
	require.Equal(t, true, status(r)["allowed"], r.raw)
	r = do(t, ts, "POST", ssarPath, jsonCT, ssar("create", "team", "pods", ""), "X-Test-User", "jane")
	require.Equal(t, false, status(r)["allowed"], r.raw)
	r = do(t, ts, "POST", ssarPath, jsonCT, ssar("list", "other", "pods", ""), "X-Test-User", "jane")
	require.Equal(t, false, status(r)["allowed"], r.raw)
	r = do(t, ts, "POST", ssarPath, jsonCT, ssar("delete", "other", "pods", ""))
	require.Equal(t, true, status(r)["allowed"], "the admin: %s", r.raw)

	// A SubjectAccessReview asks about someone else.
	sar := `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"jane",` +
		`"resourceAttributes":{"verb":"watch","namespace":"team","group":"apps","resource":"deployments"}}}`
	r = do(t, ts, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", jsonCT, sar)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	require.Equal(t, true, status(r)["allowed"], r.raw)
	r = do(t, ts, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", jsonCT,
		`{"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, r.raw)
	require.Contains(t, r.body["message"], "at least one of user or group must be specified")
	r = do(t, ts, "POST", ssarPath, jsonCT, `{"spec":{}}`)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, r.raw)
	require.Contains(t, r.body["message"], "exactly one of nonResourceAttributes or resourceAttributes must be specified")
	require.Equal(t, http.StatusMethodNotAllowed, do(t, ts, "GET", ssarPath, "", "").code)
	require.Equal(t, http.StatusUnsupportedMediaType, do(t, ts, "POST", ssarPath, "text/plain", "{}").code)

	// Non-resource URLs: system:discovery for every authenticated user.
	r = do(t, ts, "POST", ssarPath, jsonCT, `{"spec":{"nonResourceAttributes":{"verb":"get","path":"/apis/apps"}}}`, "X-Test-User", "jane")
	require.Equal(t, true, status(r)["allowed"], r.raw)

	// SelfSubjectRulesReview lists jane's rules in team.
	r = do(t, ts, "POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", jsonCT,
		`{"spec":{"namespace":"team"}}`, "X-Test-User", "jane")
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	require.Contains(t, r.raw, `"pods/log"`)
	require.Contains(t, r.raw, `"selfsubjectaccessreviews"`)
	require.Contains(t, r.raw, `"nonResourceURLs":["/livez"`)
	require.NotContains(t, r.raw, `"secrets"`)

	// Discovery lists the review resources.
	r = do(t, ts, "GET", "/apis/authorization.k8s.io/v1", "", "")
	require.Contains(t, r.raw, `"selfsubjectaccessreviews"`)
	require.Contains(t, do(t, ts, "GET", "/apis", "", "").raw, `"authentication.k8s.io"`)
}

func TestSelfSubjectReviewAndImpersonation(t *testing.T) {
	ts := startRBAC(t, apiserver.AuthorizationRBAC)
	const path = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
	body := `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`
	r := do(t, ts, "POST", path, jsonCT, body)
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	require.Equal(t, map[string]any{"username": "kubernetes-admin", "groups": []any{"system:masters", "system:authenticated"}},
		status(r)["userInfo"])
	r = do(t, ts, "POST", path, jsonCT, body, "Impersonate-User", "jane")
	require.Equal(t, map[string]any{"username": "jane", "groups": []any{"system:authenticated"}}, status(r)["userInfo"], r.raw)
	r = do(t, ts, "POST", path, jsonCT, body, "Impersonate-User", "system:serviceaccount:team:builder")
	require.Equal(t, []any{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"},
		status(r)["userInfo"].(map[string]any)["groups"], r.raw)
	// jane may not impersonate.
	r = do(t, ts, "POST", path, jsonCT, body, "X-Test-User", "jane", "Impersonate-User", "bob")
	require.Equal(t, http.StatusForbidden, r.code, r.raw)
	require.Equal(t, `users "bob" is forbidden: User "jane" cannot impersonate resource "users" in API group "" at the cluster scope`, r.body["message"])
	// The admin's impersonation of jane is enforced as jane.
	r = do(t, ts, "GET", "/api/v1/namespaces/team/secrets", "", "", "Impersonate-User", "jane")
	require.Equal(t, http.StatusForbidden, r.code, r.raw)
}

func TestRBACEnforcement(t *testing.T) {
	ts := startRBAC(t, apiserver.AuthorizationRBAC)
	as := []string{"X-Test-User", "jane"}
	require.Equal(t, http.StatusOK, do(t, ts, "GET", "/api/v1/namespaces/team/pods", "", "", as...).code)
	require.Equal(t, http.StatusOK, do(t, ts, "GET", "/apis/apps/v1/namespaces/team/deployments?watch=true&timeoutSeconds=1", "", "", as...).code)
	require.Equal(t, http.StatusOK, do(t, ts, "GET", "/api/v1", "", "", as...).code, "system:discovery")
	r := do(t, ts, "POST", "/api/v1/namespaces/team/configmaps", jsonCT, cm, as...)
	require.Equal(t, http.StatusForbidden, r.code, r.raw)
	require.Equal(t, "Forbidden", r.body["reason"])
	require.Equal(t, `configmaps is forbidden: User "jane" cannot create resource "configmaps" in API group "" in the namespace "team"`, r.body["message"])
	r = do(t, ts, "GET", "/api/v1/namespaces/team/secrets/s1", "", "", as...)
	require.Equal(t, `secrets "s1" is forbidden: User "jane" cannot get resource "secrets" in API group "" in the namespace "team"`, r.body["message"])
	require.Equal(t, map[string]any{"name": "s1", "kind": "secrets"}, r.body["details"])
	r = do(t, ts, "DELETE", "/apis/apps/v1/namespaces/team/deployments/web", "", "", as...)
	require.Equal(t, `deployments.apps "web" is forbidden: User "jane" cannot delete resource "deployments" in API group "apps" in the namespace "team"`, r.body["message"])
	r = do(t, ts, "GET", "/api/v1/pods", "", "", as...)
	require.Equal(t, `pods is forbidden: User "jane" cannot list resource "pods" in API group "" at the cluster scope`, r.body["message"])
	r = do(t, ts, "GET", "/api/v1/namespaces/team/pods/p/exec", "", "", as...)
	require.Equal(t, `pods "p" is forbidden: User "jane" cannot get resource "pods/exec" in API group "" in the namespace "team"`, r.body["message"])
	r = do(t, ts, "GET", "/openapi/v3", "", "", "X-Test-User", "nobody-bound")
	require.Equal(t, http.StatusOK, r.code, "system:discovery allows /openapi/*: %s", r.raw)
	// The admin is allowed everything.
	require.Equal(t, http.StatusCreated, do(t, ts, "POST", "/api/v1/namespaces/team/configmaps", jsonCT, cm).code)
}

func TestAlwaysAllowServesEveryone(t *testing.T) {
	ts := startRBAC(t, "")
	r := do(t, ts, "POST", "/api/v1/namespaces/team/configmaps", jsonCT, cm, "X-Test-User", "jane")
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	_, err := apiserver.New(nil, apiserver.Options{})
	require.Error(t, err)
}
