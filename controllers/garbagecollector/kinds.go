package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

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
	// namespaced reports whether the kind's objects live in a namespace.
	namespaced() bool
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

// kindInstance is watch instantiated for the Go type of one built-in
// kind; kindInstances (zz_generated_kinds.go, written by go generate in
// controllers/api) holds one per built-in kind, and New watches every
// built-in kind through it. The kinds added with api.Register are
// watched through the same generic code instantiated once, for
// api.Object (watchRegistered).
type kindInstance struct {
	typ   reflect.Type
	watch func(*Collector) (kindAccess, error)
}

func instantiate[T api.Object]() kindInstance { return kindInstance{reflect.TypeFor[T](), watch[T]} }

// typedKind is the kindAccess of T.
type typedKind[T api.Object] struct {
	info  api.KindInfo
	store client.Resource[T]
	reg   *informer.Registration
}

// watch gets T's shared informer from the collector's factory (named
// after the resource, "pods") and feeds its changes to the graph.
func watch[T api.Object](gc *Collector) (kindAccess, error) {
	info, ok := api.InfoFor[T]()
	if !ok {
		return nil, fmt.Errorf("garbagecollector: %v is not a registered kind", reflect.TypeFor[T]())
	}
	store, err := client.For[T](gc.client)
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	if ignored(info) {
		// Not in the graph, but an owner reference naming one is still
		// checked live.
		return &typedKind[T]{info: info, store: store}, nil
	}
	inf, err := informer.Shared(gc.factory, store.Resource(), source.ListWatcher[T](store), api.Key[T], informer.Options[T]{Logger: gc.logger})
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	return watchInformer(gc, info, store, inf)
}

// ignored reports whether the collector leaves the objects of info out
// of its graph: events, as kcm's DefaultIgnoredResources
// (graph_builder.go) — the kind with the most objects, which nothing
// owns in practice.
func ignored(info api.KindInfo) bool { return info.Group == "" && info.Resource == "events" }

// watchRegistered watches info, a kind added with api.Register, through
// client.ForKind: its objects are api.Objects of the kind's Go type. With
// a nil start, the informer is the factory's shared one, named
// "<resource>.<group>" ("widgets.example.com"), which the factory's
// owner starts; otherwise the informer is the collector's own, and start
// runs it (a kind that appeared after the factory started).
func watchRegistered(gc *Collector, info api.KindInfo, start func(run func(context.Context) error)) (kindAccess, error) {
	store, err := client.ForKind(gc.client, info.GroupVersionKind)
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	opts := informer.Options[api.Object]{Logger: gc.logger, Name: info.QualifiedResource()}
	var inf *informer.Informer[api.Object]
	if start == nil {
		inf, err = informer.Shared(gc.factory, info.QualifiedResource(), source.ListWatcher[api.Object](store), api.Key[api.Object], opts)
	} else {
		inf, err = informer.New(source.ListWatcher[api.Object](store), api.Key[api.Object], opts)
	}
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	k, err := watchInformer(gc, info, store, inf)
	if err != nil {
		return nil, err
	}
	if start != nil {
		start(inf.Run)
	}
	return k, nil
}

// watchInformer feeds inf's changes of objects of the kind info to the
// graph; store reads and writes them live.
func watchInformer[T api.Object](gc *Collector, info api.KindInfo, store client.Resource[T], inf *informer.Informer[T]) (kindAccess, error) {
	k := &typedKind[T]{info: info, store: store}
	toEvent := func(typ eventType, obj T) graphEvent {
		m := obj.GetObjectMeta()
		return graphEvent{
			typ:        typ,
			id:         objectRef{APIVersion: info.APIVersion(), Kind: info.Kind, Namespace: m.Namespace, Name: m.Name, UID: m.UID},
			owners:     m.OwnerReferences,
			deleting:   m.DeletionTimestamp != nil,
			finalizers: m.Finalizers,
		}
	}
	// Every event goes through the graph (kcm's GraphBuilder), which
	// says what to attempt to delete; the attempt-to-delete loop waits
	// for the registration, the orphan loop is told in New.
	var err error
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

func (k *typedKind[T]) gvk() api.GroupVersionKind { return k.info.GroupVersionKind }
func (k *typedKind[T]) namespaced() bool          { return k.info.Namespaced }
func (k *typedKind[T]) hasSynced() bool           { return k.reg == nil || k.reg.HasSynced() }

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
// kind, among those the collector watches. The cluster serves each kind
// at its current version only, so a reference at another version
// ("extensions/v1beta1") is unresolvable, as kcm's REST mapper finds it
// in a cluster that no longer serves it.
func (gc *Collector) lookupKind(apiVersion, kind string) (kindAccess, bool) {
	gc.kindsMu.RLock()
	defer gc.kindsMu.RUnlock()
	i := slices.IndexFunc(gc.kinds, func(k kindAccess) bool {
		return k.gvk().Kind == kind && k.gvk().APIVersion() == apiVersion
	})
	if i < 0 {
		return nil, false
	}
	return gc.kinds[i], true
}

// clusterScoped reports whether the registry knows the kind at that
// apiVersion (built-in or added with api.Register) as cluster-scoped.
func clusterScoped(apiVersion, kind string) bool {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	info, known := api.InfoOf(api.GroupVersionKind{Group: group, Version: version, Kind: kind})
	return known && !info.Namespaced
}
