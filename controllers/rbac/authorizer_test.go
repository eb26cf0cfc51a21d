package rbac

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

func newCluster(t *testing.T) (context.Context, *cluster.Cluster) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Bootstrap(ctx, c); err != nil {
		t.Fatal(err)
	}
	return ctx, c
}

func create[T api.Object](t *testing.T, ctx context.Context, c *cluster.Cluster, obj T) {
	t.Helper()
	st, _ := cluster.StoreFor[T](c)
	if _, err := st.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

func TestAuthorizer(t *testing.T) {
	ctx, c := newCluster(t)
	for _, ns := range []string{"ns1", "ns2", "ns3"} {
		create(t, ctx, c, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: ns}})
	}
	create(t, ctx, c, &api.Role{ObjectMeta: api.ObjectMeta{Name: "pod-reader", Namespace: "ns1"},
		Rules: []api.PolicyRule{{Verbs: []string{"get", "list"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}}}})
	create(t, ctx, c, &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "read-pods", Namespace: "ns1"},
		RoleRef: api.RoleRef{APIGroup: api.RBACGroup, Kind: "Role", Name: "pod-reader"},
		Subjects: []api.Subject{{Kind: "User", APIGroup: api.RBACGroup, Name: "jane"},
			{Kind: "ServiceAccount", Name: "builder"}}})
	create(t, ctx, c, &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "edit", Namespace: "ns2"},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroup, Kind: "ClusterRole", Name: "edit"},
		Subjects: []api.Subject{{Kind: "Group", APIGroup: api.RBACGroup, Name: "devs"}}})
	create(t, ctx, c, &api.RoleBinding{ObjectMeta: api.ObjectMeta{Name: "dangling", Namespace: "ns3"},
		RoleRef:  api.RoleRef{APIGroup: api.RBACGroup, Kind: "Role", Name: "missing"},
		Subjects: []api.Subject{{Kind: "User", APIGroup: api.RBACGroup, Name: "jane"}}})

	jane := User{Name: "jane", Groups: []string{AllAuthenticated}}
	dev := User{Name: "bob", Groups: []string{"devs", AllAuthenticated}}
	sa := ServiceAccountUser("ns1", "builder", "")
	otherSA := ServiceAccountUser("ns2", "builder", "")
	res := func(u User, verb, ns, group, resource, sub, name string) Attributes {
		return Attributes{User: u, ResourceRequest: true, Verb: verb, Namespace: ns, APIGroup: group, Resource: resource, Subresource: sub, Name: name}
	}
	tests := []struct {
		a          Attributes
		want       Decision
		wantReason string
	}{
		{res(Admin(), "delete", "any", "apps", "deployments", "", "x"), Allow, ""},
		{res(jane, "get", "ns1", "", "pods", "", "p"), Allow, `RBAC: allowed by RoleBinding "read-pods/ns1" of Role "pod-reader" to User "jane"`},
		{res(jane, "get", "ns1", "", "pods", "log", "p"), Allow, ""},
		{res(jane, "get", "ns1", "", "pods", "exec", "p"), NoOpinion, ""},
		{res(jane, "create", "ns1", "", "pods", "", ""), NoOpinion, ""},
		{res(jane, "get", "ns2", "", "pods", "", "p"), NoOpinion, ""},
		{res(jane, "get", "", "", "pods", "", ""), NoOpinion, ""}, // all namespaces: only cluster-wide bindings count
		{res(sa, "list", "ns1", "", "pods", "", ""), Allow, `RBAC: allowed by RoleBinding "read-pods/ns1" of Role "pod-reader" to ServiceAccount "builder/ns1"`},
		{res(otherSA, "list", "ns1", "", "pods", "", ""), NoOpinion, ""},
		{res(dev, "create", "ns2", "apps", "deployments", "", ""), Allow, ""},
		{res(dev, "get", "ns2", "", "secrets", "", "s"), Allow, ""},
		{res(dev, "create", "ns2", api.RBACGroup, "roles", "", ""), NoOpinion, ""}, // edit, not admin
		{res(dev, "create", "ns1", "apps", "deployments", "", ""), NoOpinion, ""},
		{res(jane, "create", "", "authorization.k8s.io", "selfsubjectaccessreviews", "", ""), Allow,
			`RBAC: allowed by ClusterRoleBinding "system:basic-user" of ClusterRole "system:basic-user" to Group "system:authenticated"`},
		{Attributes{User: jane, Verb: "get", Path: "/apis/apps/v1"}, Allow, ""},
		{Attributes{User: jane, Verb: "get", Path: "/metrics"}, NoOpinion, ""},
		{res(jane, "get", "ns3", "", "pods", "", "p"), NoOpinion, `RBAC: roles.rbac.authorization.k8s.io "missing" not found`},
	}
	z := New(c)
	for _, tc := range tests {
		got, reason, err := z.Authorize(ctx, tc.a)
		if err != nil || got != tc.want || (tc.wantReason != "" && reason != tc.wantReason) {
			t.Errorf("Authorize(%+v) = %v %q %v, want %v %q", tc.a, got, reason, err, tc.want, tc.wantReason)
		}
	}

	rules, evalErr, err := z.RulesFor(ctx, jane, "ns3")
	if err != nil || !strings.Contains(evalErr, `"missing" not found`) {
		t.Errorf("RulesFor ns3: %v %q", err, evalErr)
	}
	if !slices.ContainsFunc(rules, func(r api.PolicyRule) bool { return slices.Contains(r.Resources, "selfsubjectrulesreviews") }) {
		t.Errorf("RulesFor lacks system:basic-user's rules: %+v", rules)
	}
}

func TestAggregation(t *testing.T) {
	ctx, c := newCluster(t)
	st, _ := cluster.StoreFor[*api.ClusterRole](c)
	view, _, err := st.Get(ctx, "view")
	if err != nil {
		t.Fatal(err)
	}
	if len(view.Rules) == 0 || !slices.ContainsFunc(view.Rules, func(r api.PolicyRule) bool { return slices.Contains(r.Resources, "pods/log") }) {
		t.Fatalf("view not aggregated: %+v", view.Rules)
	}
	admin, _, _ := st.Get(ctx, "admin")
	// admin aggregates edit (which aggregates view) and its own roles.
	for _, res := range []string{"roles", "secrets", "pods/log"} {
		if !slices.ContainsFunc(admin.Rules, func(r api.PolicyRule) bool { return slices.Contains(r.Resources, res) }) {
			t.Errorf("admin lacks %s", res)
		}
	}
	// A user's ClusterRole labeled aggregate-to-view joins view.
	create(t, ctx, c, &api.ClusterRole{ObjectMeta: api.ObjectMeta{Name: "widgets-view",
		Labels: map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true"}},
		Rules: []api.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{"example.com"}, Resources: []string{"widgets"}}}})
	if err := Aggregate(ctx, c); err != nil {
		t.Fatal(err)
	}
	view2, rv, _ := st.Get(ctx, "view")
	if !slices.ContainsFunc(view2.Rules, func(r api.PolicyRule) bool { return slices.Contains(r.Resources, "widgets") }) {
		t.Errorf("view lacks the widgets rule: %+v", view2.Rules)
	}
	if err := Aggregate(ctx, c); err != nil {
		t.Fatal(err)
	}
	if _, rv2, _ := st.Get(ctx, "view"); rv2 != rv {
		t.Errorf("an up-to-date aggregated role was written again: %s -> %s", rv, rv2)
	}
}
