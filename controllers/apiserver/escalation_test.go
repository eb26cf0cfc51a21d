package apiserver_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/stretchr/testify/require"
)

func roleJSON(name, verbs string) string {
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"` + name + `"},` +
		`"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":[` + verbs + `]}]}`
}

func bindingJSON(name, kind, role string) string {
	return `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"` + name + `"},` +
		`"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"` + kind + `","name":"` + role + `"},` +
		`"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"carol"}]}`
}

// grant gives user bob a Role in team with rules, bound to him.
func grant(t *testing.T, ctx context.Context, c *cluster.Cluster, name string, rules ...api.PolicyRule) {
	t.Helper()
	roles, _ := cluster.StoreFor[*api.Role](c)
	_, err := roles.Create(ctx, &api.Role{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "team"}, Rules: rules})
	require.NoError(t, err)
	rbs, _ := cluster.StoreFor[*api.RoleBinding](c)
	_, err = rbs.Create(ctx, &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "team"},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroup, Kind: "Role", Name: name},
		Subjects: []api.Subject{{Kind: "User", APIGroup: api.RBACGroup, Name: "bob"}}})
	require.NoError(t, err)
}

// RBAC's escalation prevention (kube's pkg/registry/rbac policy-based
// storage): bob may write roles and bindings in team but grant only what
// he holds, unless he may escalate or bind.
func TestRBACEscalationPrevention(t *testing.T) {
	ctx := t.Context()
	c, ts := startRBACCluster(t, apiserver.AuthorizationRBAC)
	grant(t, ctx, c, "bob-writes-rbac",
		api.PolicyRule{APIGroups: []string{api.RBACGroup}, Resources: []string{"roles", "rolebindings"}, Verbs: []string{"create", "update"}},
		api.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list"}})
	const roles, bindings = "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings"
	as := func(method, path, body string) response {
		return do(t, ts, method, path, jsonCT, body, "X-Test-User", "bob")
	}

	r := as("POST", roles, roleJSON("readers", `"get","list"`))
	require.Equal(t, http.StatusCreated, r.code, "what bob holds: %s", r.raw)
	r = as("POST", roles, roleJSON("deleters", `"get","delete","deletecollection"`))
	require.Equal(t, http.StatusForbidden, r.code, r.raw)
	require.Equal(t, `roles.rbac.authorization.k8s.io "deleters" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`+"\n"+
		`{APIGroups:[""], Resources:["pods"], Verbs:["delete" "deletecollection"]}`, r.body["message"])

	// An update is checked too.
	r = as("PUT", roles+"/readers", roleJSON("readers", `"*"`))
	require.Equal(t, http.StatusForbidden, r.code, r.raw)

	r = as("POST", bindings, bindingJSON("carol-reads", "Role", "readers"))
	require.Equal(t, http.StatusCreated, r.code, "binding a role bob holds: %s", r.raw)
	r = as("POST", bindings, bindingJSON("carol-admin", "ClusterRole", "admin"))
	require.Equal(t, http.StatusForbidden, r.code, r.raw)
	require.Contains(t, r.body["message"], `rolebindings.rbac.authorization.k8s.io "carol-admin" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:`)
	r = as("POST", bindings, bindingJSON("carol-ghost", "Role", "ghost"))
	require.Equal(t, http.StatusNotFound, r.code, r.raw)

	// The escalate and bind verbs lift the checks.
	grant(t, ctx, c, "bob-escalates",
		api.PolicyRule{APIGroups: []string{api.RBACGroup}, Resources: []string{"roles"}, Verbs: []string{"escalate"}},
		api.PolicyRule{APIGroups: []string{api.RBACGroup}, Resources: []string{"clusterroles"}, Verbs: []string{"bind"}, ResourceNames: []string{"admin"}})
	r = as("POST", roles, roleJSON("deleters", `"get","delete","deletecollection"`))
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	r = as("POST", bindings, bindingJSON("carol-admin", "ClusterRole", "admin"))
	require.Equal(t, http.StatusCreated, r.code, r.raw)
	r = as("POST", bindings, bindingJSON("carol-edit", "ClusterRole", "edit"))
	require.Equal(t, http.StatusForbidden, r.code, "bind names admin only: %s", r.raw)

	// The admin (system:masters) is never checked.
	r = do(t, ts, "POST", roles, jsonCT, roleJSON("everything", `"*"`))
	require.Equal(t, http.StatusCreated, r.code, r.raw)
}

// Setting a ClusterRole's aggregationRule takes every permission.
func TestRBACEscalationAggregationRule(t *testing.T) {
	ctx := t.Context()
	c, ts := startRBACCluster(t, apiserver.AuthorizationRBAC)
	crbs, _ := cluster.StoreFor[*api.ClusterRoleBinding](c)
	_, err := crbs.Create(ctx, &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: "bob-edit"},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroup, Kind: "ClusterRole", Name: "cluster-admin-lite"},
		Subjects: []api.Subject{{Kind: "User", APIGroup: api.RBACGroup, Name: "bob"}}})
	require.NoError(t, err)
	crs, _ := cluster.StoreFor[*api.ClusterRole](c)
	_, err = crs.Create(ctx, &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "cluster-admin-lite"},
		Rules: []api.PolicyRule{{APIGroups: []string{api.RBACGroup}, Resources: []string{"clusterroles"}, Verbs: []string{"create"}},
			{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}})
	require.NoError(t, err)
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	agg := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"monitoring"},` +
		`"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"rbac.example.com/aggregate-to-monitoring":"true"}}]}}`
	r := do(t, ts, "POST", path, jsonCT, agg, "X-Test-User", "bob")
	require.Equal(t, http.StatusForbidden, r.code, "an empty rule list, but an aggregationRule: %s", r.raw)
	require.Equal(t, `clusterroles.rbac.authorization.k8s.io "monitoring" is forbidden: must have cluster-admin privileges to use the aggregationRule`, r.body["message"])
	plain := `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"pods"},` +
		`"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`
	r = do(t, ts, "POST", path, jsonCT, plain, "X-Test-User", "bob")
	require.Equal(t, http.StatusCreated, r.code, r.raw)
}

// Under AlwaysAllow nothing is checked, as kube's escalate check is
// authorized by such an authorizer.
func TestRBACEscalationAlwaysAllow(t *testing.T) {
	_, ts := startRBACCluster(t, "")
	r := do(t, ts, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/roles", jsonCT, roleJSON("all", `"*"`), "X-Test-User", "bob")
	require.Equal(t, http.StatusCreated, r.code, r.raw)
}
