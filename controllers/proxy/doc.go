// Package proxy is kube-proxy for the simulated cluster: it watches
// Services and Endpoints and keeps the rules table that sends a
// connection to a service's virtual address on to one of the pods behind
// it — and, optionally, really forwards TCP as kube-proxy's first
// (userspace) mode did.
//
// It depends on the client contract (package controllers/client: the
// in-process cluster or a real API server) and the shared informers
// only.
//
// # The rules table
//
// One Rule per service port of every service with a cluster IP (headless
// and ExternalName services get none): it is reached at the cluster IP
// and port, at each external IP and port, and at the node port on any
// node address; it leads to the ready addresses of the Endpoints of the
// same name whose endpoint port has the service port's name and protocol
// (not-ready addresses are never targets). Proxier.Lookup routes a TCP
// connection by these rules, choosing among the endpoints in turn
// (RoundRobin, the userspace mode's LoadBalancerRR) or at random with
// equal probability (Random, the iptables mode's statistic rules);
// with sessionAffinity ClientIP a client keeps its endpoint while it
// is used within the timeout (sessionAffinityConfig.clientIP
// .timeoutSeconds, default 10800 s) and still an endpoint. Lookup returns
// ErrNoService when no rule matches and ErrNoEndpoints for a service
// without ready endpoints (iptables mode rejects those).
//
// # Syncing, as the iptables mode does
//
// Every change of a Service or an Endpoints marks the table dirty; Run
// rebuilds the whole table from the caches and swaps it in at once
// (iptables-restore of the full ruleset), no sooner than MinSyncPeriod
// (default 1 s, --iptables-min-sync-period) after the previous sync, so a
// burst of changes costs one sync; and every SyncPeriod (default 30 s,
// --iptables-sync-period) even without a change.
//
// The loop is wired as every controller under controllers/ is, with
// package reconcile (kube-proxy's BoundedFrequencyRunner as a
// controller): a reconcile.Controller with one worker and one request,
// "sync the table". Both informers are watched with reconcile.Watch
// through reconcile.Observe: the observer marks the table dirty, the
// watch enqueues the request. Its Reconcile syncs when the table is
// dirty and MinSyncPeriod has passed, or when SyncPeriod has, and
// otherwise requeues the request (Result.RequeueAfter) for when a sync
// is due; each sync requeues it after SyncPeriod. Run waits for the
// caches without a timeout and returns the controller's drain error:
// ctx.Err() after a clean drain, else an error that also wraps
// reconcile.ErrShutdownTimeout (a sync in flight outlasted
// reconcile.DefaultShutdownTimeout after ctx ended). Lookup answers from the
// applied table only: a change is invisible until the sync that applies
// it. Generation counts syncs and Applied signals the next one. A
// rebuild keeps a service port's rotation and sessions when its rule is
// unchanged; a changed one starts its rotation afresh and keeps the
// sessions whose endpoint remains.
//
// # The userspace proxy
//
// With Options.Userspace, each sync also opens a TCP listener for every
// new TCP service port and closes those of ports gone. Where kube-proxy
// redirected the cluster IP to its own port with iptables, here the
// listener is on a random loopback address (127.0.0.0/8, not 127.0.0.1,
// port chosen by the kernel and the listener held, so that concurrent
// tests and processes never collide): ServiceAddr maps a cluster IP and
// port to it and DialContext dials through it (with Options.Resolver,
// a *dns.Resolver, also by service name). Each accepted connection
// gets an endpoint from the applied table (the client's address is the
// ClientIP of affinity), is dialled with kube-proxy's growing timeouts
// (250 ms, 500 ms, 1 s, 2 s; each retry picks anew and drops the
// client's session), and spliced both ways with half-closes. An endpoint
// that leaves gets no new connection from the next sync on; connections
// already spliced carry on until either side ends them or Run returns.
//
// # Left out
//
// Deliberately not done: EndpointSlices (the table reads Endpoints),
// topology and traffic policies (externalTrafficPolicy Local,
// internalTrafficPolicy, trafficDistribution), terminating endpoints as
// fallback, load balancer IPs and source ranges, UDP and SCTP forwarding
// (their rules are in the table, Lookup and the userspace proxy handle
// TCP; the userspace proxy listens for cluster and external IPs, not on
// node ports), IPVS mode's schedulers, conntrack cleanup, health check node
// ports, dual stack, metrics, and the node-local view of a real
// kube-proxy (every node's proxy here sees the same table).
package proxy
