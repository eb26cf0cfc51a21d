// Package apitest holds kinds added with api.Register, for the tests of
// the packages that serve every kind (the cluster, the API server, the
// garbage collector, the namespace controller, the clients) and as an
// example of a user's kind: Widget, namespaced, with a spec, the status
// and scale subresources, defaulting, validation, printer columns and
// its deep copy by api.DeepCopyOf; Gizmo, cluster-scoped, with neither
// spec nor subresources, and a generated-style deep copy written by hand.
//
// The kinds are registered when the package is initialized; importing it
// is enough.
package apitest
