// Package crdcel checks the x-kubernetes-validations (CEL) rules of
// CustomResourceDefinitions with kube-apiserver's own, maintained code:
// Rules is a cluster.ValidationRules that compiles a definition
// version's rules with k8s.io/apiextensions-apiserver's definition
// validation (the same "compilation failed: ..." errors, per-rule and
// per-schema cost limits, and checks of oldSelf) and evaluates them on
// every write of a custom resource with its schema/cel Validator and
// kube-apiserver's runtime cost budget; transition rules (oldSelf) run
// on updates only, and an update is not refused for a value it leaves
// unchanged (validation ratcheting), as kube-apiserver runs them.
//
// It lives in its own module because it brings k8s.io/apiextensions-apiserver
// (v0.37.2) and with it github.com/google/cel-go; the core module keeps
// to the standard library and a few small dependencies. Plug it in with
// cluster.Options{ValidationRules: crdcel.Rules}, or for an in-process
// control plane controlplane.Options{Cluster: cluster.Options{ValidationRules:
// crdcel.Rules}}. Without it (as in the core module's `ctrlkit up`) the
// cluster does not evaluate the rules and the API server warns on a
// definition's write that they are not checked.
//
// MatchConditions is a webhook.MatchConditionsFunc: admission webhooks'
// matchConditions evaluated with kube-apiserver's own condition compiler
// and matcher (variables object, oldObject and request; no authorizer).
// Plug it in with webhook.Options{MatchConditions: crdcel.MatchConditions}.
//
// The command in cmd/ctrlkit is ctrlkit built with both: `ctrlkit up`
// whose CRDs' rules and webhooks' conditions are evaluated.
//
// The errors are the cluster's api.FieldError: kube's type, field path
// (under the schema's root for a definition, from the object's root for
// a custom resource) and detail; a compile error's value is the rule's
// expression (kube prints the whole rule as JSON). The errors the
// cluster's own validation of a definition reports already (an empty
// rule, a bad message) are left to it, so that each is reported once.
package crdcel
