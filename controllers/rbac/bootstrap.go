package rbac

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// The bootstrap policy's metadata, as kube-apiserver's
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy).
const (
	// BootstrappingLabel marks the default roles and bindings
	// (kubernetes.io/bootstrapping=rbac-defaults).
	BootstrappingLabel = "kubernetes.io/bootstrapping"
	// AutoUpdateAnnotation lets the API server reconcile a default role
	// at start (rbac.authorization.kubernetes.io/autoupdate=true).
	AutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate"
)

var (
	read      = []string{"get", "list", "watch"}
	write     = []string{"create", "update", "patch", "delete", "deletecollection"}
	readWrite = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
)

func rule(verbs []string, groups []string, resources ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, APIGroups: groups, Resources: resources}
}

func urls(verbs []string, u ...string) api.PolicyRule {
	return api.PolicyRule{Verbs: verbs, NonResourceURLs: u}
}

func g(groups ...string) []string { return groups }

func aggregateTo(role string) map[string]string {
	return map[string]string{"rbac.authorization.k8s.io/aggregate-to-" + role: "true"}
}

func selectorFor(role string) *api.AggregationRule {
	return &api.AggregationRule{ClusterRoleSelectors: []api.LabelSelector{{MatchLabels: aggregateTo(role)}}}
}

// ClusterRoles returns the default ClusterRoles ctrlkit creates at start:
// kube-apiserver's bootstrap roles for users — cluster-admin,
// system:discovery, system:basic-user, system:public-info-viewer, and
// the aggregated admin, edit and view with the system:aggregate-to-*
// roles that fill them — with the bootstrapping label and the autoupdate
// annotation.
func ClusterRoles() []*api.ClusterRole {
	viewRules := []api.PolicyRule{
		rule(read, g(""), "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/status", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "configmaps"),
		rule(read, g(""), "limitranges", "resourcequotas", "bindings",
			"pods/status", "resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		rule(read, g(""), "namespaces"),
		rule(read, g("", "events.k8s.io"), "events"),
		rule(read, g("discovery.k8s.io"), "endpointslices"),
		rule(read, g("apps"), "controllerrevisions", "statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status", "deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		rule(read, g("autoscaling"), "horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		rule(read, g("batch"), "jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		rule(read, g("extensions"), "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status",
			"ingresses", "ingresses/status", "replicasets", "replicasets/scale", "replicasets/status", "replicationcontrollers/scale",
			"networkpolicies"),
		rule(read, g("policy"), "poddisruptionbudgets", "poddisruptionbudgets/status"),
		rule(read, g("networking.k8s.io"), "networkpolicies", "ingresses", "ingresses/status"),
	}
	editRules := []api.PolicyRule{
		rule(read, g(""), "pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		rule([]string{"impersonate"}, g(""), "serviceaccounts"),
		rule(write, g(""), "pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		rule([]string{"create"}, g(""), "pods/eviction"),
		rule(write, g(""), "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts",
			"services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"),
		rule([]string{"create"}, g(""), "serviceaccounts/token"),
		rule(write, g("", "events.k8s.io"), "events"),
		rule(write, g("apps"), "statefulsets", "statefulsets/scale", "daemonsets",
			"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
		rule(write, g("autoscaling"), "horizontalpodautoscalers"),
		rule(write, g("batch"), "jobs", "cronjobs"),
		rule(write, g("extensions"), "daemonsets", "deployments", "deployments/scale", "deployments/rollback", "ingresses",
			"replicasets", "replicasets/scale", "replicationcontrollers/scale", "networkpolicies"),
		rule(write, g("policy"), "poddisruptionbudgets"),
		rule(write, g("networking.k8s.io"), "networkpolicies", "ingresses"),
		rule(readWrite, g("coordination.k8s.io"), "leases"),
	}
	roles := []*api.ClusterRole{
		{ObjectMeta: api.ObjectMeta{Name: "cluster-admin"}, Rules: []api.PolicyRule{
			rule([]string{"*"}, g("*"), "*"), urls([]string{"*"}, "*")}},
		{ObjectMeta: api.ObjectMeta{Name: "system:discovery"}, Rules: []api.PolicyRule{
			urls([]string{"get"}, "/livez", "/readyz", "/healthz", "/version", "/version/",
				"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*")}},
		{ObjectMeta: api.ObjectMeta{Name: "system:basic-user"}, Rules: []api.PolicyRule{
			rule([]string{"create"}, g("authorization.k8s.io"), "selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			rule([]string{"create"}, g("authentication.k8s.io"), "selfsubjectreviews")}},
		{ObjectMeta: api.ObjectMeta{Name: "system:public-info-viewer"}, Rules: []api.PolicyRule{
			urls([]string{"get"}, "/livez", "/readyz", "/healthz", "/version", "/version/")}},
		{ObjectMeta: api.ObjectMeta{Name: "admin"}, AggregationRule: selectorFor("admin")},
		{ObjectMeta: api.ObjectMeta{Name: "edit", Labels: aggregateTo("admin")}, AggregationRule: selectorFor("edit")},
		{ObjectMeta: api.ObjectMeta{Name: "view", Labels: aggregateTo("edit")}, AggregationRule: selectorFor("view")},
		{ObjectMeta: api.ObjectMeta{Name: "system:aggregate-to-admin", Labels: aggregateTo("admin")}, Rules: []api.PolicyRule{
			rule([]string{"create"}, g("authorization.k8s.io"), "localsubjectaccessreviews"),
			rule(readWrite, g(api.RBACGroup), "roles", "rolebindings")}},
		{ObjectMeta: api.ObjectMeta{Name: "system:aggregate-to-edit", Labels: aggregateTo("edit")}, Rules: editRules},
		{ObjectMeta: api.ObjectMeta{Name: "system:aggregate-to-view", Labels: aggregateTo("view")}, Rules: viewRules},
	}
	for _, r := range roles {
		defaultMetadata(&r.ObjectMeta)
	}
	return roles
}

// ClusterRoleBindings returns the default ClusterRoleBindings:
// system:masters to cluster-admin, system:authenticated to
// system:discovery, system:basic-user and (with system:unauthenticated)
// system:public-info-viewer.
func ClusterRoleBindings() []*api.ClusterRoleBinding {
	bind := func(role string, groups ...string) *api.ClusterRoleBinding {
		b := &api.ClusterRoleBinding{ObjectMeta: api.ObjectMeta{Name: role},
			RoleRef: api.RoleRef{APIGroup: api.RBACGroup, Kind: "ClusterRole", Name: role}}
		for _, gr := range groups {
			b.Subjects = append(b.Subjects, api.Subject{Kind: api.GroupKind, APIGroup: api.RBACGroup, Name: gr})
		}
		defaultMetadata(&b.ObjectMeta)
		return b
	}
	return []*api.ClusterRoleBinding{
		bind("cluster-admin", SystemPrivilegedGroup),
		bind("system:discovery", AllAuthenticated),
		bind("system:basic-user", AllAuthenticated),
		bind("system:public-info-viewer", AllAuthenticated, AllUnauthenticated),
	}
}

func defaultMetadata(m *api.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[BootstrappingLabel] = "rbac-defaults"
	m.Annotations = map[string]string{AutoUpdateAnnotation: "true"}
}

// Bootstrap creates the default ClusterRoles and ClusterRoleBindings that
// c lacks (one already there, the user's, is kept), then aggregates the
// aggregated roles' rules once (Aggregate).
func Bootstrap(ctx context.Context, c client.Client) error {
	roles, err := client.For[*api.ClusterRole](c)
	if err != nil {
		return fmt.Errorf("rbac: %w", err)
	}
	bindings, err := client.For[*api.ClusterRoleBinding](c)
	if err != nil {
		return fmt.Errorf("rbac: %w", err)
	}
	for _, r := range ClusterRoles() {
		if err := createIfMissing(ctx, roles, r); err != nil {
			return err
		}
	}
	for _, b := range ClusterRoleBindings() {
		if err := createIfMissing(ctx, bindings, b); err != nil {
			return err
		}
	}
	return Aggregate(ctx, c)
}

func createIfMissing[T api.Object](ctx context.Context, st client.Resource[T], obj T) error {
	if _, err := st.Create(ctx, obj); err != nil && !errors.Is(err, source.ErrAlreadyExists) {
		return fmt.Errorf("rbac: bootstrap %s: %w", obj.GetObjectMeta().Name, err)
	}
	return nil
}
