// Package garbagecollector is Kubernetes' garbage collector controller:
// it deletes the objects whose owners are gone, and carries out the
// propagation policies of deletions — background, foreground and orphan —
// as kube-controller-manager's garbagecollector does.
//
// # Usage
//
//	f := informer.NewFactory(informer.FactoryOptions{})
//	gc, err := garbagecollector.New(c, f, garbagecollector.Options{})
//	f.Start(ctx)
//	err = gc.Run(ctx) // until ctx ends
//
// New registers a handler on the shared informer of every kind the
// cluster serves (one per built-in kind of controllers/api, named after
// its resource: "pods", "replicasets", …; one per kind added with
// api.Register, named "<resource>.<group>": "widgets.example.com"); the
// caller starts the factory. Run waits for all of them to sync, runs the
// workers, and returns once they have exited: ctx's error, or
// reconcile.ErrShutdownTimeout when an attempt in flight outlasts the
// shutdown timeout.
//
// The kinds added with api.Register are owners and dependents like the
// built-in ones (a Widget owning Deployments and Pods; a Widget owned by
// a ConfigMap or by another Widget): their objects are watched and
// written through client.ForKind, as api.Objects of the kind's Go type.
// A kind registered after New (or that the client did not serve then)
// is found by Run, which every Options.DiscoveryPeriod (30 s, as kcm
// re-reads discovery) looks for registered kinds it does not watch yet
// and watches them with informers of its own; the dependents of owners
// of such a kind are then checked again.
//
// The collector depends on the client contract (package
// controllers/client: New takes a client.Client and gets each kind with
// client.For or client.ForKind) and informers only; the in-process
// cluster is one implementation. New fails when the client does not
// serve one of the built-in kinds.
//
// # The graph
//
// Every object the informers report becomes a node of an ownership
// graph, keyed by UID and identified by apiVersion, kind, namespace and
// name; each owner reference links the object, as a dependent, to the
// node of its owner's UID. An owner that no informer has reported yet is
// a virtual node made from the reference (the dependent's namespace, or
// none for a cluster-scoped kind); the dependent is then queued for a
// check, since the owner may be gone already or may never have existed.
// A virtual node left without dependents leaves the graph. The graph
// turns events into work on two queues, as kcm's GraphBuilder does:
//
//   - an object deleted: its dependents are queued to attempt to delete,
//     and so are its owners in foreground deletion (one blocking
//     dependent fewer);
//   - an object that gets a deletionTimestamp with the foregroundDeletion
//     finalizer: it and all its dependents are queued to attempt to
//     delete;
//   - one with the orphan finalizer: it is queued to attempt to orphan;
//   - a dependent that drops its reference to an owner in foreground
//     deletion, or turns its blockOwnerDeletion off: that owner is queued.
//
// # Attempt to delete
//
// A worker takes an item, reads it live from the store (gone, or another
// UID: the graph is told it was deleted), reads each of its owners live —
// in the item's namespace for a namespaced kind — and classifies them:
// solid (exists with the referenced UID), absent ("dangling": not found,
// or another UID), waiting (exists, in foreground deletion), or
// unresolvable. Then a pure function, decide, picks the action, following
// kcm's attemptToDeleteItem:
//
//   - being deleted, not in the foreground: nothing (a one-way trip);
//   - in foreground deletion: wait while a dependent whose reference has
//     blockOwnerDeletion remains (queueing those not themselves deleting
//     their dependents), then remove the foregroundDeletion finalizer;
//   - no owner references, or an unresolvable one: nothing;
//   - a solid owner: remove the references to the absent and waiting
//     owners, keep the item;
//   - an owner waiting and dependents of its own: delete the item in the
//     foreground (after setting blockOwnerDeletion false on its
//     references if one of its dependents is itself deleting its
//     dependents, which breaks cycles);
//   - otherwise: delete it, with the policy its own finalizers ask for
//     (orphan, foregroundDeletion) or in the background.
//
// Deletes carry a UID precondition; reference and finalizer removals are
// read-modify-write updates retried on conflicts.
//
// # Attempt to orphan
//
// For an owner with the orphan finalizer a worker removes the owner's
// reference from every dependent the graph knows, then the finalizer.
//
// The two queues are two reconcile loops (reconcile.Controller keyed by
// UID, named as kcm's queues): each retries failures with
// workqueue.DefaultControllerRateLimiter and has Options.Workers workers
// (20, kcm's --concurrent-gc-syncs).
//
// # Invalid references
//
// As in Kubernetes 1.20+: a namespaced owner is looked up in its
// dependent's namespace, so a dependent naming an owner of another
// namespace finds it absent and is collected once all its owners are
// absent; when the graph has observed the owner in the other namespace,
// a Warning event OwnerRefInvalidNamespace is reported about the
// dependent. A cluster-scoped dependent naming a namespaced kind is never
// collected (nothing to look it up in) and gets the same event. A
// reference to a kind the cluster does not serve leaves its dependent
// alone — whatever its other owners — and is logged.
//
// # kcm behaviours implemented
//
// The graph builder's event handling (virtual owners, reference diffs,
// unblocked owners, transitions into foreground and orphan deletion);
// attemptToDeleteItem with classifyReferences and isDangling (live reads,
// UID mismatch means absent); processDeletingDependentsItem;
// attemptToOrphanWorker; foreground deletion of dependents that have
// dependents; the cycle breaking by unblocking owner references; virtual
// delete events when a live read finds an item gone; the
// OwnerRefInvalidNamespace event; two rate-limited queues.
//
// # Left out, or different
//
//   - The built-in kinds are watched from New; the others (added with
//     api.Register or defined by a CustomResourceDefinition) as the
//     client lists them (client.ServedKinds, the registry for a client
//     without discovery) at each discovery period. Kinds are never
//     unwatched: the informer of a kind whose definition was deleted
//     retries its list with back-off. kcm retries an item whose reference names an unknown
//     kind with back-off; here it is logged and left alone until
//     something queues it again — the discovery of its owner's kind
//     does.
//   - Events are left out of the graph, as kcm's DefaultIgnoredResources:
//     an Event is never collected, and an object an Event owns is
//     checked live when it is observed (and stays while the Event
//     exists).
//   - The absentOwnerCache: every check reads its owners live.
//   - kcm's handling of virtual owner nodes whose dependents disagree on
//     their coordinates (partitionDependents): a virtual owner is never
//     itself queued; its dependents are checked live instead, which
//     reaches the same decisions.
//   - Orphaning skips dependents that are being deleted: this cluster
//     store forbids metadata changes to an object being deleted other
//     than removing finalizers, and such a dependent goes anyway.
//   - The cluster serves each kind at its current apiVersion only: a
//     reference at an older one ("extensions/v1beta1") names a kind it
//     does not serve, as in a Kubernetes cluster that dropped it.
//   - Metrics and the /debug graph dump.
package garbagecollector
