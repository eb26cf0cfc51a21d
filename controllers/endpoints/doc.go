// Package endpoints is the endpoints controller of
// kube-controller-manager (pkg/controller/endpoint): it keeps, for every
// service with a selector, an Endpoints object of the same name listing
// the pods behind the service — the routing table kube-proxy and the
// service DNS read.
//
// It depends on the client contract (package controllers/client: the
// in-process cluster or a real API server) and the shared informers
// only.
//
// # Algorithm
//
// A queue of service keys is worked by Options.Workers goroutines
// (default 5, kcm's --concurrent-endpoint-syncs). A service's add, update
// or delete enqueues it; a pod's add or delete enqueues every service of
// its namespace whose selector picks it; a pod's update enqueues the
// services of its new labels when something an Endpoints shows changed
// (deletion timestamp, readiness, IPs, turning terminal), and when its
// labels (or hostname, subdomain) changed also those of the old ones —
// all of both if the pod changed too, only those that picked it before or
// after but not both if only the labels did (GetServicesToUpdateOnPodChange).
// An Endpoints deleted by someone else enqueues its service, and every
// Endpoints of the first list is synced once, which removes those whose
// service went away while no controller ran (checkLeftoverEndpoints).
//
// One sync (syncService), decided by a pure function of the service, its
// pods and the current Endpoints:
//
//  1. The service is gone: delete its Endpoints. An ExternalName service,
//     or one without a selector, is left alone: the latter's Endpoints are
//     its user's.
//  2. Every pod the selector picks gives one address — its IP, its node
//     name, a target reference to it, and its hostname when the pod sets
//     spec.hostname and its spec.subdomain is the service's name — unless
//     the pod is terminal (Succeeded, Failed), has no IP yet, or is
//     terminating (kept with publishNotReadyAddresses).
//  3. For each service port, the pod's port is its targetPort: a number as
//     is, a name looked up among the pod's container ports of the same
//     protocol (a pod without that port serves not this service port). A
//     ready pod's address goes to addresses, a not-ready one's to
//     notReadyAddresses; with publishNotReadyAddresses all go to
//     addresses. A headless service without ports gets addresses without
//     ports.
//  4. The (address, port) pairs are repacked (RepackSubsets): the ports
//     served by the same addresses with the same readiness share a
//     subset; an address (its IP and its pod's UID) listed both ready and
//     not ready for a port is not ready there; addresses, ports and
//     subsets are sorted, so equal states compare equal.
//  5. The subsets and the labels (the service's, plus
//     service.kubernetes.io/headless for a headless service) are compared
//     with the current Endpoints, ignoring the pods' resourceVersions:
//     equal, nothing is written; otherwise the Endpoints is created, or
//     updated with the current resourceVersion as precondition. A create
//     refused as forbidden (a terminating namespace) is dropped.
//
// A read-your-writes gate (reconcile.Consistency over the Endpoints
// cache, kcm's staleEndpointsTracker) makes a service's next sync wait
// until the cache shows the previous sync's write.
//
// # Left out
//
// Deliberately not done (EndpointSlices are package endpointslice's; the
// kube-proxy here reads Endpoints): the
// endpoints.kubernetes.io/last-change-trigger-time annotation; truncation
// to 1,000 addresses with the over-capacity annotation; dual stack (the
// first pod IP is used); the
// service.alpha.kubernetes.io/tolerate-unready-endpoints annotation; the
// leader-election Endpoints exception of checkLeftoverEndpoints (leader
// election here uses Leases); metrics. A service with an empty, non-nil
// selector selects nothing here (it does not survive JSON anyway), where
// kcm's would select every pod. kcm deletes a gone service's Endpoints
// without looking; here the cache is read first (the gate makes it show
// this controller's creates), so a delete is only sent for an Endpoints
// that exists. A pod turning terminal enqueues its services even when its
// readiness did not change (kcm waits for a resync).
//
// # Wiring and Run
//
// Its informers are wired with reconcile.Watch and
// reconcile.WatchEvents: a service's events enqueue it; a pod's the
// services whose selector picks it (before or after an update); an
// Endpoints of the first list is synced once (leftovers of a deleted
// service), and one deleted by someone else is rebuilt. Run returns once
// every worker has exited: ctx's error after a clean drain, or the error
// of a drain that did not end cleanly (it wraps
// reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted), never
// reduced to ctx's error.
package endpoints
