package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// kindAccess is one kind's store and informer seen through metadata
// only: the type erasure stops here, inside the package.
type kindAccess interface {
	gvk() api.GroupVersionKind
	// get reads the object's metadata live from the store (a copy).
	get(ctx context.Context, namespace, name string) (*api.ObjectMeta, error)
	// delete deletes the object with a UID precondition.
	delete(ctx context.Context, id objectRef, policy client.PropagationPolicy) error
	// patch reads the object live and, if it still has id's UID, applies
	// mutate to its metadata and writes it back when mutate reports a
	// change, retrying on conflicts. A missing object, or one with
	// another UID, is not an error.
	patch(ctx context.Context, id objectRef, mutate func(m *api.ObjectMeta) bool) error
	hasSynced() bool
}

// kindInstance is watch instantiated for the Go type of one kind;
// kindInstances (zz_generated_kinds.go, written by go generate in
// controllers/api) holds one per registered kind, and New watches every
// kind of api.Registered through it.
type kindInstance struct {
	typ   reflect.Type
	watch func(*Collector) (kindAccess, error)
}

func instantiate[T api.Object]() kindInstance { return kindInstance{reflect.TypeFor[T](), watch[T]} }

// typedKind is the kindAccess of T.
type typedKind[T api.Object] struct {
	kind  api.GroupVersionKind
	store client.Resource[T]
	reg   *informer.Registration
}

// watch gets T's shared informer from the collector's factory (named
// after the resource, "pods") and feeds its changes to the graph.
func watch[T api.Object](gc *Collector) (kindAccess, error) {
	store, err := client.For[T](gc.client)
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	inf, err := informer.Shared(gc.factory, store.Resource(), source.ListWatcher[T](store), api.Key[T], informer.Options[T]{Logger: gc.logger})
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	var zero T
	k := &typedKind[T]{kind: zero.GroupVersionKind(), store: store}
	toEvent := func(typ eventType, obj T) graphEvent {
		m := obj.GetObjectMeta()
		return graphEvent{
			typ:        typ,
			id:         objectRef{APIVersion: k.kind.APIVersion(), Kind: k.kind.Kind, Namespace: m.Namespace, Name: m.Name, UID: m.UID},
			owners:     m.OwnerReferences,
			deleting:   m.DeletionTimestamp != nil,
			finalizers: m.Finalizers,
		}
	}
	// Every event goes through the graph (kcm's GraphBuilder), which
	// says what to attempt to delete; the attempt-to-delete loop waits
	// for the registration, the orphan loop is told in New.
	k.reg, err = reconcile.WatchEvents(gc.attemptToDelete, inf, reconcile.Events[T, api.UID]{
		Create: func(obj T) []api.UID { return gc.process(toEvent(addEvent, obj)) },
		Update: func(_, obj T) []api.UID { return gc.process(toEvent(updateEvent, obj)) },
		Delete: func(obj T) []api.UID { return gc.process(toEvent(deleteEvent, obj)) },
	}, reconcile.WatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %s: %w", store.Resource(), err)
	}
	return k, nil
}

func (k *typedKind[T]) gvk() api.GroupVersionKind { return k.kind }
func (k *typedKind[T]) hasSynced() bool           { return k.reg.HasSynced() }

func (k *typedKind[T]) get(ctx context.Context, namespace, name string) (*api.ObjectMeta, error) {
	obj, _, err := k.store.Get(ctx, api.NamespacedKey(namespace, name))
	if err != nil {
		return nil, err
	}
	return obj.GetObjectMeta(), nil
}

func (k *typedKind[T]) delete(ctx context.Context, id objectRef, policy client.PropagationPolicy) error {
	_, err := k.store.DeleteWith(ctx, id.key(), client.DeleteOptions{
		Preconditions:     client.Preconditions{UID: id.UID},
		PropagationPolicy: policy,
	})
	if errors.Is(err, source.ErrNotFound) {
		return nil // gone already
	}
	return err
}

// maxPatchAttempts bounds patch's retries on conflicts.
const maxPatchAttempts = 5

func (k *typedKind[T]) patch(ctx context.Context, id objectRef, mutate func(m *api.ObjectMeta) bool) error {
	var err error
	for range maxPatchAttempts {
		var obj T
		obj, _, err = k.store.Get(ctx, id.key())
		if errors.Is(err, source.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if obj.GetObjectMeta().UID != id.UID || !mutate(obj.GetObjectMeta()) {
			return nil
		}
		_, err = k.store.Update(ctx, obj, "")
		if errors.Is(err, source.ErrNotFound) {
			return nil
		}
		if !errors.Is(err, source.ErrConflict) {
			return err
		}
	}
	return err
}

// lookupKind finds the kind an owner reference names, by apiVersion and
// kind. The cluster serves each kind at its current version only, so a
// reference at another version ("extensions/v1beta1") is unresolvable,
// as kcm's REST mapper finds it in a cluster that no longer serves it.
func (gc *Collector) lookupKind(apiVersion, kind string) (kindAccess, bool) {
	i := slices.IndexFunc(gc.kinds, func(k kindAccess) bool {
		return k.gvk().Kind == kind && k.gvk().APIVersion() == apiVersion
	})
	if i < 0 {
		return nil, false
	}
	return gc.kinds[i], true
}

// knownKind reports whether controllers/api defines the kind at that
// apiVersion.
func knownKind(apiVersion, kind string) bool {
	return slices.ContainsFunc(api.Kinds(), func(g api.GroupVersionKind) bool {
		return g.Kind == kind && g.APIVersion() == apiVersion
	})
}
