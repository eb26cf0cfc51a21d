// Package client is the typed client contract: what a controller may ask
// of an API server, per kind, whatever serves it. Controllers — the
// reference controllers of this repository and the user's — depend on
// a Client and the informers built over its resources, never on a
// concrete store, so the same controller runs in a unit test on the
// recording fake, in the in-process cluster (memory or etcd, in virtual
// time), behind `ctrlkit up`, and against a real Kubernetes API server.
//
// # Usage
//
//	pods, err := client.For[*api.Pod](c)                  // c: any Client
//	inf, err := informer.Shared(f, pods.Resource(), source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{})
//	mine, err := pods.Select(client.SelectOptions{Namespace: "web", LabelSelector: "app=web"})
//	_, err = pods.Create(ctx, pod)                         // pod now holds uid, defaults, resourceVersion
//	_, err = pods.UpdateStatus(ctx, pod)                   // the status subresource
//	_, err = pods.DeleteWith(ctx, key, client.DeleteOptions{Preconditions: client.Preconditions{UID: uid}})
//	if client.IsConflict(err) { /* requeue: the cache was stale */ }
//
// # The contract
//
// Resource[T] is a source.ListWatcher[T] (informers take it, or one of
// its Selects, directly) and a source.Writer[T] (so reconcile's gates
// and ctrlutil's claimers wrap it), plus the subresources and options of
// the Kubernetes API: UpdateStatus, Patch (JSON patch, JSON merge patch,
// strategic merge patch), DeleteWith (preconditions, propagation policy,
// grace period), GetScale and UpdateScale. Every implementation keeps
// Kubernetes' semantics:
//
//   - Writes are optimistic: Update's precondition is the object's own
//     resourceVersion (IsConflict when stale), and an update that changes
//     nothing writes nothing — no new resourceVersion, no watch event.
//   - Update ignores the status of a kind with a status subresource and
//     bumps metadata.generation when the spec changes; UpdateStatus
//     ignores everything but the status and keeps the generation.
//   - Delete honours preconditions (uid, resourceVersion), turns the
//     propagation policy into the "orphan" and "foregroundDeletion"
//     finalizers, and only marks an object that has finalizers (and a
//     pod bound to a node, for its grace period) with a
//     deletionTimestamp.
//   - Create, Update and UpdateStatus overwrite the caller's object with
//     the stored one; objects from List and Watch are shared and
//     read-only.
//
// # Errors
//
// An error means the same on every implementation; branch on it with the
// predicates, never on a message: IsNotFound, IsAlreadyExists, IsConflict,
// IsInvalid (the *InvalidError lists every field error with its path),
// IsForbidden, IsBadRequest, IsGone (a resourceVersion or continue token
// older than the server keeps: list again), IsTooLarge,
// IsTooManyRequests with RetryAfter, and IsServerTimeout (a write may or
// may not have happened). They wrap the sentinels of package source and
// of this package, so errors.Is works as well.
//
// # Implementations
//
// The in-process cluster (controllers/cluster: a *cluster.Cluster is a
// Client, each of its Stores a Resource) on memory or etcd; a real
// Kubernetes API server over HTTP (the kube module); and the recording
// fake for unit tests (package fakeclient, over any Client, built on
// Intercept, which passes every call of a Client through a function).
// The clienttest package is the conformance suite all of them pass.
package client
