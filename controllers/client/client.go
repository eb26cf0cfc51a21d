package client

import (
	"context"
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Resource is the typed client of one kind: what an API server offers a
// controller for the objects of type T. It is a source.ListWatcher[T], so
// an informer takes it (or one of its Selects) directly, and a
// source.Writer[T], so the gates and claimers of packages reconcile and
// ctrlutil wrap it.
//
// Keys are "namespace/name" for namespaced kinds and "name" for
// cluster-scoped ones (api.Key). Every method is safe for concurrent
// use. Errors are classified by the predicates of this package (IsNotFound,
// IsConflict, …), whatever the implementation.
//
// Create, Update and UpdateStatus overwrite the caller's object with the
// stored one (uid, defaults, resourceVersion, generation), as a client-go
// call returns it; on error the object is unchanged. Objects from List
// and Watch may be shared with other readers: copy before changing one.
type Resource[T api.Object] interface {
	// List and Watch serve every object of the kind, in every namespace.
	source.ListWatcher[T]

	// Get returns a private copy of the object stored under key and the
	// resourceVersion of its last write; IsNotFound when it is missing.
	//
	// Create stores a new object: IsAlreadyExists when the name is taken,
	// IsInvalid when it fails validation, IsNotFound when its namespace
	// is missing, IsForbidden when the namespace is terminating. The
	// object's metadata.generateName is honoured when it has no name.
	//
	// Update replaces the object's spec and metadata (never its status,
	// for kinds with a status subresource) on the condition that it is at
	// ifVersion or, when ifVersion is "", at the object's own
	// resourceVersion; both empty writes unconditionally. IsConflict when
	// the condition fails. An update that changes nothing writes nothing:
	// the resourceVersion stays and watchers see no event. Changing the
	// spec bumps metadata.generation.
	//
	// Delete is DeleteWith with a resourceVersion precondition (ifVersion,
	// "" for none) and default options.
	source.Writer[T]

	// Resource returns the kind's plural resource name ("pods").
	Resource() string

	// Select returns the objects that opts selects, as a ListWatcher with
	// the watch semantics of Kubernetes' watch cache: an object that
	// starts matching arrives as Added, one that stops as Deleted. A
	// malformed selector, or a field the kind cannot be selected by, is
	// IsBadRequest.
	Select(opts SelectOptions) (source.ListWatcher[T], error)

	// UpdateStatus writes obj's status, and nothing else, over the stored
	// object (the status subresource): spec and metadata changes are
	// ignored and the generation does not change. Its precondition is
	// obj's resourceVersion ("" for none). IsBadRequest (or IsNotFound on
	// a server without the subresource) for a kind without status.
	UpdateStatus(ctx context.Context, obj T) (string, error)

	// Patch applies a patch of type pt to the object stored under key and
	// returns the stored result. A patch carrying
	// metadata.resourceVersion is conditional on it. A patch that changes
	// nothing writes nothing.
	Patch(ctx context.Context, key string, pt PatchType, data []byte) (T, error)

	// DeleteWith deletes the object stored under key as kube-apiserver
	// does: preconditions (IsConflict when one fails), the propagation
	// policy (as the "orphan" and "foregroundDeletion" finalizers), and a
	// grace period for pods. An object with finalizers, or a pod bound to
	// a node deleted with a non-zero grace period, is only marked (its
	// metadata.deletionTimestamp set) and stays until its finalizers are
	// removed and, for a pod, until it is deleted again with grace period
	// 0. It returns the resourceVersion of its write (the removal or the
	// marking).
	DeleteWith(ctx context.Context, key string, opts DeleteOptions) (string, error)

	// GetScale reads the scale subresource of the object under key
	// (Deployments, ReplicaSets, StatefulSets, ReplicationControllers);
	// an error wrapping source.ErrUnsupported for a kind without one.
	GetScale(ctx context.Context, key string) (*api.Scale, error)

	// UpdateScale sets the replicas of the object under key from
	// scale.Spec.Replicas, on the condition that the object is at
	// scale's resourceVersion ("" for none), and returns the new scale.
	UpdateScale(ctx context.Context, key string, scale *api.Scale) (*api.Scale, error)
}

// Client gives a controller the typed resources of the kinds it needs:
// For[T](c). The in-process cluster (package controllers/cluster, on
// memory or on etcd), a real Kubernetes API server (package kube of the
// kube module) and the recording fake (package fakeclient) implement it.
type Client interface {
	// ResourceFor returns the Resource[T] serving the kind gvk, where T
	// is the kind's Go type (*api.Pod for v1 Pod), seen as an Untyped;
	// an error wrapping ErrUnknownKind when the client does not serve
	// it. For gives it back its type; call that instead.
	ResourceFor(gvk api.GroupVersionKind) (Untyped, error)
}

// Untyped is a Resource[T] seen without its type parameter, what
// Client.ResourceFor returns (Go interfaces cannot have type
// parameters). For[T] turns it back into a Resource[T].
type Untyped interface {
	// Resource returns the kind's plural resource name ("pods").
	Resource() string
}

// For returns c's typed resource of T's kind: For[*api.Pod](c). T must be
// a pointer to a struct (the kind's GroupVersionKind is asked of a new
// zero object). It fails with ErrUnknownKind when c does not serve the
// kind.
func For[T api.Object](c Client) (Resource[T], error) {
	var zero T
	rt := reflect.TypeOf(zero)
	if rt == nil || rt.Kind() != reflect.Pointer || rt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("client: %v is not a pointer to a struct: %w", rt, ErrUnknownKind)
	}
	gvk := reflect.New(rt.Elem()).Interface().(T).GroupVersionKind()
	if c == nil {
		return nil, fmt.Errorf("client: no client for %s: %w", gvk, ErrUnknownKind)
	}
	r, err := c.ResourceFor(gvk)
	if err != nil {
		return nil, err
	}
	return resolve[T](r, gvk) // the type assertion, and the wrappers of Intercept
}

// Binder is the binding subresource of pods, what a scheduler writes:
// Bind assigns the pod namespace/name to nodeName (spec.nodeName and the
// PodScheduled condition). A pod already bound, or being deleted, is
// IsConflict. Clients that serve pods implement it; get it with
// BinderFor.
type Binder interface {
	Bind(ctx context.Context, namespace, name, nodeName string) (string, error)
}

// BinderFor returns c's binding subresource of pods, or an error wrapping
// source.ErrUnsupported when c has none.
func BinderFor(c Client) (Binder, error) {
	if b, ok := c.(Binder); ok {
		return b, nil
	}
	return nil, fmt.Errorf("client: %T has no pods/binding subresource: %w", c, source.ErrUnsupported)
}

// SelectOptions select objects on the server side, as the namespace path
// and the labelSelector and fieldSelector parameters of a Kubernetes list
// or watch.
type SelectOptions struct {
	// Namespace, if set, selects the objects of one namespace (a
	// namespaced kind only).
	Namespace string
	// LabelSelector in `kubectl -l` syntax ("app=web,tier!=db,env in (a,b)").
	// "" selects everything.
	LabelSelector string
	// FieldSelector in `kubectl --field-selector` syntax: comma-separated
	// field=value, field==value or field!=value terms. Every kind supports
	// metadata.name and metadata.namespace; the others are the kind's, as
	// kube-apiserver registers them (pods: spec.nodeName,
	// spec.schedulerName, spec.restartPolicy, spec.serviceAccountName,
	// status.phase, status.podIP; nodes: spec.unschedulable; …). ""
	// selects everything.
	FieldSelector string
}

// PatchType is the media type of a patch.
type PatchType string

// The patch types.
const (
	// JSONPatch is RFC 6902 JSON Patch.
	JSONPatch PatchType = "application/json-patch+json"
	// MergePatch is RFC 7386 JSON Merge Patch.
	MergePatch PatchType = "application/merge-patch+json"
	// StrategicMergePatch is Kubernetes' strategic merge patch, for the
	// built-in kinds.
	StrategicMergePatch PatchType = "application/strategic-merge-patch+json"
)

// PropagationPolicy says what happens to an object's dependents when it
// is deleted (Kubernetes' DeletionPropagation); the garbage collector
// carries it out.
type PropagationPolicy string

// The propagation policies.
const (
	// DeletePropagationOrphan leaves the dependents, removing their owner
	// references: the server adds the "orphan" finalizer.
	DeletePropagationOrphan PropagationPolicy = "Orphan"
	// DeletePropagationBackground deletes the object now and its
	// dependents afterwards (the default).
	DeletePropagationBackground PropagationPolicy = "Background"
	// DeletePropagationForeground keeps the object, with the
	// "foregroundDeletion" finalizer, until its blocking dependents are
	// gone.
	DeletePropagationForeground PropagationPolicy = "Foreground"
)

// The finalizers the server adds for a propagation policy.
const (
	// FinalizerOrphanDependents asks the garbage collector to orphan the
	// object's dependents before it goes.
	FinalizerOrphanDependents = "orphan"
	// FinalizerDeleteDependents asks the garbage collector to delete the
	// object's blocking dependents before it goes.
	FinalizerDeleteDependents = "foregroundDeletion"
)

// Preconditions must hold for a delete to happen; empty fields are not
// checked. A failed one is IsConflict.
type Preconditions struct {
	// UID the object must have.
	UID api.UID
	// ResourceVersion the object must be at.
	ResourceVersion string
}

// DeleteOptions are the options of DeleteWith (Kubernetes'
// DeleteOptions). The zero value deletes with the object's default grace
// period and the policy its finalizers ask for (Background when none).
type DeleteOptions struct {
	// GracePeriodSeconds is how long a pod has to stop; nil means the
	// pod's spec.terminationGracePeriodSeconds (30 by default). 0 removes
	// the pod at once — what the kubelet sends when its containers have
	// stopped. Only pods bound to a node, not yet Succeeded or Failed,
	// are deleted gracefully; other kinds ignore it.
	GracePeriodSeconds *int64
	// Preconditions must hold.
	Preconditions Preconditions
	// PropagationPolicy; "" keeps what the object's finalizers already
	// ask for, and otherwise means Background.
	PropagationPolicy PropagationPolicy
}
