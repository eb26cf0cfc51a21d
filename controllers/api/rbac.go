package api

// The rbac.authorization.k8s.io/v1 kinds: roles (sets of PolicyRules) and
// the bindings that grant them to subjects, as kube-apiserver stores them
// and its RBAC authorizer reads them (package controllers/rbac).

// The kinds of Subject.
const (
	// UserKind is a Subject naming a user.
	UserKind = "User"
	// GroupKind is a Subject naming a group.
	GroupKind = "Group"
	// ServiceAccountKind is a Subject naming a service account (in
	// Subject.Namespace).
	ServiceAccountKind = "ServiceAccount"
)

// RBACGroup is the API group of the RBAC kinds, and of the RoleRef and
// User/Group Subjects that name them.
const RBACGroup = "rbac.authorization.k8s.io"

// The wildcards of PolicyRule.
const (
	// VerbAll matches every verb.
	VerbAll = "*"
	// APIGroupAll matches every API group.
	APIGroupAll = "*"
	// ResourceAll matches every resource.
	ResourceAll = "*"
	// NonResourceAll matches every non-resource URL.
	NonResourceAll = "*"
)

// PolicyRule allows verbs on resources (of API groups, optionally only
// the objects named) or on non-resource URLs.
type PolicyRule struct {
	// Verbs allowed ("get", "list", …; "*" for all).
	Verbs []string `json:"verbs"`
	// APIGroups of the resources ("" is the core group; "*" all).
	APIGroups []string `json:"apiGroups,omitempty"`
	// Resources allowed ("pods", "pods/log" for a subresource, "*/scale",
	// "*" for all).
	Resources []string `json:"resources,omitempty"`
	// ResourceNames, if any, restrict the rule to the objects named.
	ResourceNames []string `json:"resourceNames,omitempty"`
	// NonResourceURLs allowed ("/healthz", "/apis/*": a trailing "*" is a
	// prefix); only in ClusterRoles, and without Resources.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// Subject is who a binding grants its role to: a User, a Group or a
// ServiceAccount.
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind"`
	// APIGroup is "" for a ServiceAccount, rbac.authorization.k8s.io for
	// a User or Group.
	APIGroup string `json:"apiGroup,omitempty"`
	// Name of the subject.
	Name string `json:"name"`
	// Namespace of a ServiceAccount subject.
	Namespace string `json:"namespace,omitempty"`
}

// RoleRef names the role a binding grants; immutable.
type RoleRef struct {
	// APIGroup is rbac.authorization.k8s.io.
	APIGroup string `json:"apiGroup"`
	// Kind is Role (a RoleBinding's only) or ClusterRole.
	Kind string `json:"kind"`
	// Name of the role.
	Name string `json:"name"`
}

// Role is a namespaced set of PolicyRules (rbac.authorization.k8s.io/v1).
type Role struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Rules of the role.
	Rules []PolicyRule `json:"rules"`
}

// ClusterRole is a cluster-wide set of PolicyRules
// (rbac.authorization.k8s.io/v1); with an AggregationRule its rules are
// the union of the rules of the ClusterRoles it selects, kept up to date
// by the aggregation controller (controllers/rbac).
type ClusterRole struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Rules of the role.
	Rules []PolicyRule `json:"rules"`
	// AggregationRule, if set, makes Rules controller-managed.
	AggregationRule *AggregationRule `json:"aggregationRule,omitempty"`
}

// AggregationRule selects the ClusterRoles whose rules a ClusterRole
// aggregates.
type AggregationRule struct {
	// ClusterRoleSelectors select ClusterRoles by label (any of them).
	ClusterRoleSelectors []LabelSelector `json:"clusterRoleSelectors,omitempty"`
}

// RoleBinding grants a Role or ClusterRole's rules in its namespace to
// subjects (rbac.authorization.k8s.io/v1).
type RoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Subjects granted the role.
	Subjects []Subject `json:"subjects,omitempty"`
	// RoleRef is the role granted; immutable.
	RoleRef RoleRef `json:"roleRef"`
}

// ClusterRoleBinding grants a ClusterRole's rules cluster-wide to
// subjects (rbac.authorization.k8s.io/v1).
type ClusterRoleBinding struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Subjects granted the role.
	Subjects []Subject `json:"subjects,omitempty"`
	// RoleRef is the ClusterRole granted; immutable.
	RoleRef RoleRef `json:"roleRef"`
}
