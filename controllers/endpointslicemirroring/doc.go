// Package endpointslicemirroring is the EndpointSlice mirroring
// controller of kube-controller-manager
// (pkg/controller/endpointslicemirroring, kcm name
// "endpointslice-mirroring-controller"): the Endpoints a user writes for
// a Service without a selector are mirrored into discovery.k8s.io/v1
// EndpointSlices, so that what reads slices (kube-proxy, the cluster DNS)
// sees them as it sees a selector's endpoints.
//
// It depends on the client contract (package controllers/client) and the
// shared informers ("services", "endpoints", "endpointslices") only.
//
// # Algorithm
//
// A queue of Endpoints keys (a Service's key is its Endpoints') is
// worked by Options.Workers goroutines (default 5, kcm's
// --mirroring-concurrent-service-endpoint-syncs). An Endpoints' events
// enqueue it unless it is not to be mirrored (before and after an
// update); a Service's creation and deletion enqueue it, an update only
// when its selector appears or goes; a slice's the Endpoints it is
// labelled with, if this controller manages it.
//
// One sync deletes every slice the controller made for the key when the
// Endpoints is gone or not to be mirrored (labelled
// endpointslice.kubernetes.io/skip-mirror "true", or a leader-election
// lock: annotation control-plane.alpha.kubernetes.io/leader), when the
// Service is gone, or when it has a selector. Otherwise (kcm's
// reconcile):
//
//  1. The Endpoints' subsets are repacked (endpoints.RepackSubsets) and
//     each address becomes an endpoint of its family (IPv4 or IPv6) with
//     ready true for addresses, false for notReadyAddresses, its
//     hostname, nodeName and targetRef; ready addresses first, at most
//     Options.MaxEndpointsPerSubset (default 1000, kcm's
//     --mirroring-max-endpoints-per-subset) per subset. An address that
//     is not an IP is skipped with a Warning InvalidIPAddress event
//     ("Skipped N invalid IP addresses when mirroring to
//     EndpointSlices"); addresses over the cap with a Warning
//     TooManyAddressesToMirror ("A max of 1000 addresses can be mirrored
//     to EndpointSlices per Endpoints subset. N addresses were skipped").
//  2. Endpoints are grouped by address type and set of ports. Each group
//     keeps the first of its existing slices (by name) — left as it is
//     when its endpoints, labels and annotations already match and its
//     owner is this Endpoints, rewritten otherwise — and deletes the
//     others; a new group gets a slice named "<endpoints>-<random>";
//     slices of groups no longer desired are deleted. A create and a
//     delete of the same address type become one update (kcm's
//     recycleSlices). Nothing is created for an Endpoints being deleted.
//  3. Slices carry the Endpoints' labels plus kubernetes.io/service-name
//     and endpointslice.kubernetes.io/managed-by
//     =endpointslicemirroring-controller.k8s.io, its annotations but
//     endpoints.kubernetes.io/last-change-trigger-time and
//     kubectl.kubernetes.io/last-applied-configuration, and a controller
//     reference to the Endpoints (the garbage collector deletes them
//     with it). Creates are made first, then updates, then deletes.
//
// A read-your-writes gate (reconcile.Consistency over the slices' cache,
// kcm's endpointSliceTracker) makes a key's next sync wait until the
// cache shows the previous sync's writes; a slice deleted by someone
// else drops the key's record and is rebuilt.
//
// # Left out
//
// kcm's metrics (endpoints added, updated, removed per sync; slices
// desired) and its retry limit of 15 (a failed sync is retried with the
// queue's back-off until it succeeds). Which endpoints of a group fill a
// slice when the group has more than the cap is the hash order here,
// kcm's is a set's.
package endpointslicemirroring
