// Package namespace is kube-controller-manager's namespace controller:
// it empties a namespace being deleted and then lets it go.
//
// Deleting a namespace sets its deletionTimestamp and phase Terminating
// (the API server's, or the in-process cluster's, namespace lifecycle);
// from then on the server's namespace lifecycle
// check refuses creates in it (events excepted), and the namespace stays
// while spec.finalizers holds "kubernetes". The controller, woken by the
// namespace's events, deletes its content (kcm's
// namespacedResourcesDeleter):
//
//  1. Pods first, each with its own grace period (Background
//     propagation), as kcm's OrderedNamespaceDeletion (on by default
//     since Kubernetes 1.33) does; every other resource waits until no
//     pod is left, so that no pod outlives what it uses. The pass then
//     estimates how long the pods may take (PodsEstimate: the longest
//     terminationGracePeriodSeconds of pods not terminal, 0 once that
//     long has passed since the namespace's deletion).
//  2. Then every other namespaced kind registered in controllers/api
//     (api.Registered), in registration order (kcm's deleter walks the
//     discovered resources in no set order): services, endpoints,
//     workloads, quotas, service accounts, config maps, secrets, claims,
//     autoscalers, leases, events; then the namespaced kinds that are
//     not built in — added with api.Register ("widgets.example.com") or
//     defined by a CustomResourceDefinition — as the client lists them
//     (client.ServedKinds, the registry for a client without discovery)
//     at each pass, so a kind that appeared after New is deleted too.
//     Those are reached through client.ForKind; a kind the client does
//     not serve is skipped, as kcm skips what discovery does not list.
//  3. After its deletes a pass lists each resource again. Objects held
//     by finalizers of their own count as waiting (FinalizerEstimate,
//     kcm's 15 s); objects that remain for no known reason are a
//     deletion failure.
//  4. The namespace's conditions (Conditions, kcm's updateConditions:
//     NamespaceDeletionContentFailure, NamespaceContentRemaining,
//     NamespaceFinalizersRemaining, True with kcm's reasons and messages
//     while something remains of that sort, False with the "ok" ones
//     otherwise) are written when they changed.
//  5. While anything remains the namespace comes back after the
//     estimate (at least a second; after a failure, with the queue's
//     backoff). When nothing remains the "kubernetes" finalizer is
//     removed (retried on conflict), and the server removes the
//     namespace.
//
// Like kcm's deleter, the controller lists content live from the server
// (through Select by namespace) rather than from informers: the
// decision to finalize must not rest on a cache that lags.
//
// The controller depends on the client contract (package
// controllers/client: New takes a client.Client and gets the kinds it
// deletes with client.For and client.ForKind) and on informers only; the in-process cluster
// is one implementation of that contract.
//
// Left out, deliberately: API discovery (the namespaced kinds are those
// of the registry, api.Registered), deletecollection (objects are deleted one by
// one), the discovery and group version parsing failure conditions,
// finalizers other than "kubernetes" in spec.finalizers (they are left to
// whoever owns them), and the periodic resync of every namespace
// (--namespace-sync-period): a terminating namespace is requeued by its
// own estimate instead.
//
// # Wiring and Run
//
// Its informer is wired with reconcile.WatchEvents: a namespace's add
// and update enqueue it (its delete needs nothing: the namespace is
// gone). Run returns once every worker has exited: ctx's error after a
// clean drain, or the error of a drain that did not end cleanly (it
// wraps reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted),
// never reduced to ctx's error.
package namespace
