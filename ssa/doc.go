// Package ssa is server-side apply for ctrlkit's API server: a
// FieldManager (controllers/apiserver.FieldManager) that keeps
// metadata.managedFields on every create, update and patch and merges
// `kubectl apply --server-side` configurations, with kube's conflicts and
// --force-conflicts.
//
// It lives in its own module because it uses
// k8s.io/apimachinery/pkg/util/managedfields over
// sigs.k8s.io/structured-merge-diff, what kube-apiserver itself uses, and
// those need json-iterator and more, which the core module does not take.
// Using managedfields rather than a hand-made SMD wiring gives kube's
// behaviour as it is: one Update entry per manager, apiVersion and
// subresource, at most 10 Update managers (older ones bucketed into
// "ancient-changes"), kube's FieldsV1 encoding, conflict messages
// (`Apply failed with 1 conflict: conflict with "kubectl-scale" using
// apps/v1: .spec.replicas`), removal of fields a manager stops applying,
// and the last-applied-configuration annotation upgrade path. It is an
// apiserver.ScaleFieldManager: writes and applies through the scale
// subresource own the parent's spec.replicas (managedfields'
// ScaleHandler, as kube-apiserver's scale storage uses it).
//
// Schemas. The schema of every built-in kind is built, as kube-apiserver
// builds its own, by managedfields.NewTypeConverter from OpenAPI
// definitions: ctrlkit's own OpenAPI v2 document (package
// controllers/openapi, which derives x-kubernetes-list-type,
// -list-map-keys and -map-type from the Go types and their patch
// strategies), so the server's published schema and its merge semantics
// have one source. Every other kind (a CustomResourceDefinition's, a kind
// added with api.Register) gets a deduced schema, as kube does for a
// custom resource without a structural schema: maps merge key by key,
// lists are atomic.
//
// Versions served converted. The API server applies autoscaling/v1
// HorizontalPodAutoscaler (served over the autoscaling/v2 store) in its
// v1 form, with the v1 schema, and converts the result back, so its
// Apply entries name autoscaling/v1 as kube-apiserver's do.
//
// Differences from kube-apiserver: the field manager itself converts no
// object between versions, so the fields of a manager of another
// version (an autoscaling/v2 entry of a v1 object) are compared path by
// path, where kube converts them (the same for the fields both versions
// share, spec.maxReplicas, spec.minReplicas, spec.scaleTargetRef); a
// patch that does not fit the schema is 400 BadRequest (kube answers
// 500).
package ssa
