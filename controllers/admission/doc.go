// Package admission holds the types of admission plugins: the
// Attributes of a write and the signatures of validating and mutating
// plugins. The in-process cluster (controllers/cluster, Options.Mutating
// and Options.Admission) runs them on every create and update, after
// defaulting, validation and the namespace lifecycle check, as
// kube-apiserver runs its admission chain; the plugins live with the
// controllers they belong to (resource quota, service accounts, cron
// jobs) and need nothing of the cluster but these types.
package admission
