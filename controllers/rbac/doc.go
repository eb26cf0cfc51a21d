// Package rbac is Kubernetes' RBAC authorizer over a client.Client's
// rbac.authorization.k8s.io/v1 objects, as kube-apiserver's
// --authorization-mode=RBAC decides requests
// (plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac/validation).
//
// # Contract
//
//   - Identities are Users: a name, groups, a uid. Admin is the
//     kubeconfig's user of `ctrlkit up` (kubernetes-admin in
//     system:masters and system:authenticated); ServiceAccountUser is a
//     service account's (system:serviceaccount:<ns>:<name> in
//     system:serviceaccounts, system:serviceaccounts:<ns> and
//     system:authenticated). WithUser and UserFrom carry one in a
//     request's context, from authentication to authorization.
//   - Authorizer.Authorize allows every request of system:masters; any
//     other when a rule bound to the user allows it: the rules of the
//     ClusterRoles of the ClusterRoleBindings naming the user, then, for
//     a request in a namespace, those of the Roles and ClusterRoles of
//     that namespace's RoleBindings. A subject names the user by User
//     name, Group membership, or ServiceAccount (namespace defaulting to
//     the binding's). A rule allows a request when its verbs, API groups,
//     resources ("pods", "pods/log", "*/scale", "*") and resourceNames
//     match, or its verbs and nonResourceURLs ("/healthz", "/apis/*", "*")
//     for a non-resource request (RuleAllows). The reason of an Allow
//     names the binding ("RBAC: allowed by RoleBinding \"read/ns1\" of
//     Role \"reader\" to User \"jane\""); a binding to a missing role is an
//     error in the reason of a NoOpinion, as kube's. RBAC never denies
//     outright: NoOpinion is forbidden when RBAC is the only authorizer.
//   - RulesFor lists a user's rules in a namespace, for
//     SelfSubjectRulesReview.
//   - Covers, BreakdownRule, CompactRules and CompactString are kube's
//     policy comparator; Authorizer.ConfirmNoEscalation refuses rules a
//     user does not hold, with kube's message, for the API server's
//     escalation check of roles and bindings; RoleRules resolves a
//     binding's roleRef.
//   - Bootstrap creates kube-apiserver's default ClusterRoles and
//     ClusterRoleBindings that a user needs (cluster-admin bound to
//     system:masters, system:discovery, system:basic-user,
//     system:public-info-viewer bound to system:authenticated, and the
//     aggregated admin, edit and view), keeping any already there.
//   - Aggregate (once) and RunAggregation (on every ClusterRole change)
//     set the rules of each ClusterRole with an aggregationRule to the
//     union of the rules of the ClusterRoles its selectors match, as
//     kube's clusterrole-aggregation controller.
//
// Everything is read through the client (the client contract: the
// in-process cluster, on memory or etcd, or any other implementation) at
// each decision: a binding created is in force at once, without a cache
// to wait for.
package rbac
