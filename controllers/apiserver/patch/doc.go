// Package patch applies the PATCH bodies that kube-apiserver accepts to
// the JSON document of an object of controllers/api, as the REST server
// of controllers/apiserver needs for `kubectl patch`, `kubectl apply`,
// `kubectl scale` and client-go's Patch.
//
// Apply(t, kind, original, p) returns the patched document; it does not
// validate the result against the kind's schema (the caller decodes it
// strictly, as for a PUT). original is never modified. Numbers are kept
// exactly as written (they are not round-tripped through float64), and
// the result is written with object keys sorted, like encoding/json.
//
// # The three types
//
// JSON ("application/json-patch+json") is RFC 6902: an array of
// operations add, remove, replace, move, copy and test, applied in order,
// all or nothing. Paths are RFC 6901 JSON pointers ("~1" is "/", "~0" is
// "~", so the annotation "a/b" is "/metadata/annotations/a~1b"); in an
// array an index inserts before that element, and "-" appends (add only).
// A path whose parent does not exist, a remove or replace of a missing
// member, an index out of range and a failed test are errors; a failed
// test wraps ErrTestFailed (kube-apiserver answers 422 for it, 400 for
// the rest). Unlike evanphx/json-patch, which kube-apiserver uses, a
// negative index ("-1" for the last element) is an error, as RFC 6902
// says.
//
// Merge ("application/merge-patch+json") is RFC 7386: the patch is a
// partial object merged recursively into the original; null deletes a
// member; any non-object value, arrays included, replaces the original's
// value whole. The patch must be an object.
//
// StrategicMerge ("application/strategic-merge-patch+json") is
// Kubernetes' own merge patch, as k8s.io/apimachinery's strategicpatch
// applies it on the server: the strategic merge patch section below says
// what it does.
//
// Server-side apply ("application/apply-patch+yaml") and any other
// content type give ErrUnsupportedType (a server answers 415).
package patch
