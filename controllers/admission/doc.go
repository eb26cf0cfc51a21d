// Package admission holds the types of admission plugins: the
// Attributes of a write and the signatures of validating and mutating
// plugins. The in-process cluster (controllers/cluster, Options.Mutating
// and Options.Admission) runs them on every create and update, after
// defaulting, validation and the namespace lifecycle check, as
// kube-apiserver runs its admission chain; the plugins live with the
// controllers they belong to (resource quota, service accounts, cron
// jobs) and need nothing of the cluster but these types.
//
// Two of kube-apiserver's built-in plugins live here, as they belong to no
// controller: LimitRanger (a LimitRange's defaults and bounds on pods and
// claims) and Priority (a pod's priorityClassName resolved into its
// priority; the system priority classes). Each is wired into the cluster's
// Options.Mutating and Options.Admission, then given a client with
// SetClient. Their refusals are *ForbiddenError (403, kube's message).
//
// A plugin warns the client with Warn: the API server gives each request
// a recorder (WithWarnings) and answers with the warnings as HTTP Warning
// headers; an in-process write has none and drops them.
package admission
