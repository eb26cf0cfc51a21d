// Package dns is the cluster's service DNS (kube-dns, CoreDNS's
// kubernetes plugin) as a Go API: a Resolver that answers the names of
// the Kubernetes DNS specification from the same Services and Endpoints
// caches the controllers and kube-proxy use. No DNS server is run; a
// program or a test asks the Resolver directly.
//
// It depends on the client contract (package controllers/client: the
// in-process cluster or a real API server) and the shared informers
// only.
//
// # Records
//
// Under the cluster domain (default cluster.local):
//
//   - service.namespace.svc.zone (A): a service's cluster IP; for a
//     headless service (clusterIP None), the IPs of its ready endpoints —
//     the pods themselves, with no virtual IP between.
//   - hostname.service.namespace.svc.zone (A): for a headless service, the
//     ready endpoint whose hostname it is. The endpoints controller gives
//     an address the pod's spec.hostname when its spec.subdomain names
//     the service, which is how a StatefulSet's pods get stable names
//     (web-0.nginx.default.svc.cluster.local): the name stays, and its
//     answer follows the pod when it is recreated with a new IP.
//   - _port._proto.service.namespace.svc.zone (SRV), for named ports: to
//     the service's name and port, or for a headless service one record
//     per ready endpoint to its hostname (its dashed IP without one) and
//     the endpoint's port.
//   - an ExternalName service's name (CNAME): its spec.externalName.
//
// Search and LookupHostFrom resolve a short name as a pod of a namespace
// would, with the search list the kubelet writes into a ClusterFirst
// pod's resolv.conf ("ns.svc.zone svc.zone zone", ndots 5).
//
// Answers come from the caches as they are: a change shows as soon as
// the informer has it (CoreDNS's kubernetes plugin answers from its
// informers too). Not-ready addresses are never answered (with
// publishNotReadyAddresses the endpoints controller lists them as ready).
//
// # Wiring
//
// The resolver is not a controller: it writes nothing and keeps no state
// of its own, so it has no work queue, no reconcile.Controller, no event
// handler and no Run (nothing to drain). It reads the shared informers' listers on
// each query; the informer factory's Start and Shutdown are its lifetime.
// WaitForCacheSync, its only call that blocks, ends with its ctx. A
// program that must act on a change of a name's answer watches the
// Services or Endpoints with reconcile.Watch, as the controllers do.
//
// # Left out
//
// Pod records (a-b-c-d.namespace.pod.zone), reverse (PTR) records,
// AAAA and dual stack, the wildcard queries of the old specification,
// negative-answer TTLs and caching, EndpointSlices, and a network DNS
// server. The kubelet simulation and kube-proxy do not ask this resolver
// on their own; proxy.Options.Resolver lets the userspace proxy dial
// service names through it.
package dns
