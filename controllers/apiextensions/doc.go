// Package apiextensions checks and applies the structural schemas of
// CustomResourceDefinitions (apiextensions.k8s.io/v1) as kube-apiserver
// does, so an API server can serve a custom resource as unstructured
// objects with every schema semantic of a real cluster.
//
// CheckStructural tells why a version's openAPIV3Schema is not structural
// (the errors kube-apiserver gives when the CRD is created). Compile turns a
// structural schema into a Schema, which then
//
//   - validates an object (Validate: kube-openapi's validation with
//     kube-apiserver's messages and field paths, x-kubernetes-list-type
//     duplicates, embedded resources' apiVersion, kind and metadata: name,
//     generateName, namespace, labels, annotations);
//   - prunes the fields the schema does not specify (Prune, returning their
//     paths for fieldValidation Strict and Warn);
//   - sets the defaults of absent fields (Default).
//
// An API server handling a write decodes the object into map[string]any
// (integers as int64, other numbers as float64), calls Default, Prune and
// Validate, in that order, and stores the result; on a read it calls
// Default. Validate does not look at the root's metadata, apiVersion and
// kind: the server validates those as for any kind.
//
// The string formats checked are the ones kube-apiserver checks for CRDs
// (int32 and int64 ranges, float, byte, date, date-time, duration, uri,
// email, hostname, ipv4, ipv6, cidr, mac, uuid, uuid3/4/5, isbn, ssn,
// creditcard, hexcolor, rgbcolor, bsonobjectid, password, k8s-short-name,
// k8s-long-name); other formats are ignored, as kube does. CEL rules
// (x-kubernetes-validations) are not evaluated: HasValidationRules says
// whether a schema has any, so the server can warn.
//
// Differences from kube-apiserver, each deliberate or not yet done: the
// anyOf/oneOf/allOf/not summaries and the "Checked value must be of type
// integer …" range errors are reported at the field they are about (kube
// says "<nil>"); an update is validated as a create (no validation
// ratcheting of unchanged fields); an embedded resource's owner
// references, finalizers and managed fields are not validated, nor are
// defaults inside embedded metadata; CEL rules are checked for their shape
// only, not compiled.
//
// The semantics follow apiextensions-apiserver (pkg/apiserver/schema,
// .../pruning, .../defaulting, .../listtype, .../objectmeta) and
// kube-openapi's pkg/validation/validate, written anew; the differential
// test in the realkube module compares all of it with upstream on the CRDs
// of cert-manager, prometheus-operator, Gateway API and Argo Rollouts.
//
// A Schema is immutable and safe for concurrent use; Prune and Default
// change the object they are given, which the caller owns.
package apiextensions
