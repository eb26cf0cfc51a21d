// Package ctrlutil is what every controller author needs besides the
// informers and the queue: controller references, adoption and release,
// pods from templates, the order in which to delete pods, slow-start
// batches and finalizers — kube-controller-manager's controller_utils and
// controller-runtime's controllerutil, typed over controllers/api.
//
// # Ownership
//
// A controller marks what it manages with a controller reference
// (SetControllerReference, ControllerOf). Claimer implements the
// ControllerRefManager rules: a controller adopts an orphan its selector
// picks — only while it is not being deleted, and only after a live read
// (not its cache) confirms its UID, so a controller deleted and re-created
// under the same name never steals the old one's pods — and releases what
// it owns but no longer selects; ClaimOne applies the rules to one
// object, for a controller that walks its children once. Claimer writes to copies of the cached
// objects, with their cached version as the precondition, through any
// source.Writer (the cluster store, fake.Source).
//
// # Pods
//
// PodFromTemplate builds a pod as a ReplicaSet, Job or DaemonSet creates
// it: the template's metadata and spec, generateName "<owner>-", the
// owner's namespace and a controller reference. RankForDeletion orders
// pods for a scale-down exactly as kube-controller-manager does (its doc
// lists the rules); SlowStartBatch makes creates in doubling batches that
// stop at the first failure.
//
// # Services
//
// ServicesForPod and ServicesForPodChange map a pod, or a change of one,
// to the services to sync, as kcm's pkg/controller/util/endpoint does for
// its Endpoints and EndpointSlice controllers (both use them here).
//
// # Expectations
//
// PodExpectations wires expectations into a pod informer's handlers as
// kube-controller-manager's controllers do: a creation is observed on the
// pod's add (or its delete, if the add coalesced away), a deletion on its
// deletionTimestamp or its delete, each exactly once per pod, deletions
// tracked by UID.
//
// # Wiring
//
// ControllerKey is the map function of an owned kind for reconcile.Watch
// (controller-runtime's Owns): an object maps to the key of the
// controller its controller reference names, when of the given kind.
// PodExpectations is an informer.Handler, so reconcile.Observe puts it
// before a pod informer's mapping.
//
// Everything here is a function of its arguments except Claim, which
// writes; none of it starts a goroutine except SlowStartBatch, which waits
// for the ones it starts.
package ctrlutil
