// Package endpointslice is the EndpointSlice controller of
// kube-controller-manager (pkg/controller/endpointslice, kcm name
// "endpointslice-controller"): for every service with a selector it keeps
// the discovery.k8s.io/v1 EndpointSlices listing the pods behind it —
// what kube-proxy and the cluster DNS of a v1.37 cluster read, and what
// `kubectl describe service` shows as Endpoints.
//
// It depends on the client contract (package controllers/client) and the
// shared informers ("services", "pods", "nodes", "endpointslices") only.
//
// # Algorithm
//
// A queue of service keys is worked by Options.Workers goroutines
// (default 5, kcm's --concurrent-service-endpoint-syncs). A service's
// events enqueue it; a pod's those whose selector picks it (before or
// after an update, as ctrlutil.ServicesForPodChange says); a slice's the service
// it is labelled with, if this controller manages it.
//
// One sync, for a service that exists, is not ExternalName and has a
// selector (the others get no slices from it; a deleted service's slices
// go with the garbage collector, as they have it as their controller):
//
//  1. Address types: the service's ipFamilies; without them the family of
//     its cluster IP, IPv4 for a headless service.
//  2. Every pod the selector picks that is not terminal and has an IP
//     gives, per address type, one endpoint: its IP of that family, its
//     conditions (serving = the pod is Ready, terminating = it has a
//     deletionTimestamp, ready = serving and not terminating, or always
//     with publishNotReadyAddresses), a target reference to the pod, its
//     nodeName, its node's topology.kubernetes.io/zone, and its hostname
//     when spec.subdomain names the service. Endpoints are grouped by the
//     set of ports the pod serves (a named targetPort is looked up among
//     its container ports). A pod whose node is unknown is left out and
//     the service retried a second later.
//  3. Per address type and set of ports, the existing slices (labelled
//     kubernetes.io/service-name=<service> and
//     endpointslice.kubernetes.io/managed-by=endpointslice-controller.k8s.io,
//     controlled by this service) keep the endpoints still desired,
//     updated if they changed, and lose the others; an emptied slice is
//     deleted. New endpoints fill the slices updated anyway (fullest
//     first) up to Options.MaxEndpointsPerSlice (default 100), then, if
//     fewer than a slice holds, the fullest unchanged slice that can take
//     them all, then new slices named <service>-<random>. Slices of
//     address types or sets of ports no longer desired, or controlled by
//     another service, are deleted. A service without endpoints keeps one
//     placeholder slice without ports or endpoints.
//  4. A slice to delete and one to create of the same address type become
//     one update of the former (kcm's finalize). Slices carry the
//     service's labels (but the two above, which the controller sets),
//     service.kubernetes.io/headless for a headless service, and an owner
//     reference to the service. Updates are made first, then creates,
//     then deletes; a failure records FailedToUpdateEndpointSlices on the
//     service (component endpoint-slice-controller) and retries.
//
// A read-your-writes gate (reconcile.Consistency over the slices' cache,
// kcm's endpointSliceTracker) makes a service's next sync wait until the
// cache shows the previous sync's writes; a slice deleted by someone else
// drops the service's record and is rebuilt.
//
// # Left out
//
// Topology hints and traffic distribution; the
// endpoints.kubernetes.io/last-change-trigger-time annotation; node
// events (a node's new zone shows at the service's next sync); metrics
// but the reconcile and queue ones. Endpoints in a slice are ordered by
// address, kcm's in no particular order.
package endpointslice
