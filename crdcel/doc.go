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
// cluster.Options{ValidationRules: crdcel.Rules}, or for `ctrlkit up`
// style control planes through controlplane.Options.Cluster. Without
// it the cluster does not evaluate the rules and the API server warns on
// a definition's write that they are not checked.
//
// The errors are the cluster's api.FieldError: kube's type, field path
// and detail; a compile error's value is the rule's expression (kube
// prints the whole rule).
package crdcel
