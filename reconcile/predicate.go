package reconcile

import (
	"errors"
	"maps"
	"sync"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// Predicate decides which of an informer's events reach a controller:
// controller-runtime's predicate.Funcs, typed. A nil func lets every
// event of its kind through. Apply predicates with Filter.
type Predicate[T any] struct {
	// Create decides for OnAdd.
	Create func(obj T) bool
	// Update decides for OnUpdate (resyncs included: old and new are
	// then the same version).
	Update func(old, new T) bool
	// Delete decides for OnDelete.
	Delete func(obj T) bool
}

// Filter returns an EventSource whose handlers hear of src's events only
// when every predicate lets them through:
//
//	reconcile.Watch(ctl, reconcile.Filter(deployments, reconcile.GenerationChanged[*api.Deployment]()), ...)
func Filter[T any](src EventSource[T], preds ...Predicate[T]) EventSource[T] {
	return filtered[T]{src: src, preds: preds}
}

type filtered[T any] struct {
	src   EventSource[T]
	preds []Predicate[T]
}

// AddEventHandler implements EventSource.
func (f filtered[T]) AddEventHandler(h informer.Handler[T], opts informer.HandlerOptions) (*informer.Registration, error) {
	if isNil(f.src) {
		return nil, errors.New("reconcile: Filter: event source is nil")
	}
	return f.src.AddEventHandler(predicateHandler[T]{h: h, preds: f.preds}, opts)
}

type predicateHandler[T any] struct {
	h     informer.Handler[T]
	preds []Predicate[T]
}

func (p predicateHandler[T]) OnAdd(obj T, isInInitialList bool) {
	for _, pr := range p.preds {
		if pr.Create != nil && !pr.Create(obj) {
			return
		}
	}
	p.h.OnAdd(obj, isInInitialList)
}

func (p predicateHandler[T]) OnUpdate(old, new T) {
	for _, pr := range p.preds {
		if pr.Update != nil && !pr.Update(old, new) {
			return
		}
	}
	p.h.OnUpdate(old, new)
}

func (p predicateHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	for _, pr := range p.preds {
		if pr.Delete != nil && !pr.Delete(obj) {
			return
		}
	}
	p.h.OnDelete(obj, finalStateUnknown)
}

// Any lets an event through when at least one of preds does (for each
// kind of event; a nil func counts as letting it through).
func Any[T any](preds ...Predicate[T]) Predicate[T] {
	pass := func(f func(Predicate[T]) bool) bool {
		for _, p := range preds {
			if f(p) {
				return true
			}
		}
		return len(preds) == 0
	}
	return Predicate[T]{
		Create: func(obj T) bool { return pass(func(p Predicate[T]) bool { return p.Create == nil || p.Create(obj) }) },
		Update: func(old, new T) bool {
			return pass(func(p Predicate[T]) bool { return p.Update == nil || p.Update(old, new) })
		},
		Delete: func(obj T) bool { return pass(func(p Predicate[T]) bool { return p.Delete == nil || p.Delete(obj) }) },
	}
}

// Generationed is an object with a metadata.generation (every kind of
// controllers/api).
type Generationed interface{ GetGeneration() int64 }

// Labeled is an object with labels.
type Labeled interface{ GetLabels() map[string]string }

// Annotated is an object with annotations.
type Annotated interface{ GetAnnotations() map[string]string }

// GenerationChanged lets an update through only when the generation
// changed — a change of the spec, not of the status or metadata
// (controller-runtime's GenerationChangedPredicate). Creates and deletes
// pass.
func GenerationChanged[T Generationed]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return old.GetGeneration() != new.GetGeneration() }}
}

// ResourceVersionChanged lets an update through only when the
// resourceVersion changed: it drops resyncs.
func ResourceVersionChanged[T source.Versioned]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return old.GetResourceVersion() != new.GetResourceVersion() }}
}

// LabelsChanged lets an update through only when the labels changed.
func LabelsChanged[T Labeled]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return !maps.Equal(old.GetLabels(), new.GetLabels()) }}
}

// AnnotationsChanged lets an update through only when the annotations
// changed.
func AnnotationsChanged[T Annotated]() Predicate[T] {
	return Predicate[T]{Update: func(old, new T) bool { return !maps.Equal(old.GetAnnotations(), new.GetAnnotations()) }}
}

// HashChanged keeps one hash of what matters per key, as kube-rs's
// predicates do, and lets an add or update through only when the object's
// hash differs from the last one it let through for its key; a delete
// passes and forgets the key. Unlike an old-versus-new comparison it also
// drops an update that changes something and then changes it back before
// the handler runs. hash may return any string (a digest, or the fields
// themselves).
func HashChanged[T any](key func(T) string, hash func(T) string) Predicate[T] {
	var mu sync.Mutex
	seen := map[string]string{}
	changed := func(obj T) bool {
		k, h := key(obj), hash(obj)
		mu.Lock()
		defer mu.Unlock()
		if old, ok := seen[k]; ok && old == h {
			return false
		}
		seen[k] = h
		return true
	}
	return Predicate[T]{
		Create: changed,
		Update: func(_, new T) bool { return changed(new) },
		Delete: func(obj T) bool {
			mu.Lock()
			delete(seen, key(obj))
			mu.Unlock()
			return true
		},
	}
}
