package informer

import "time"

// Handler receives the changes of an informer's cache. The informer calls
// a registered Handler from that registration's own goroutine, never
// concurrently with itself, with the objects shared with the cache: a
// Handler must not mutate them.
type Handler[T any] interface {
	// OnAdd is called for an object that appeared in the cache.
	// isInInitialList is true for the objects of the informer's first
	// list, and for the objects a handler registered late receives as
	// its initial batch.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called when an object changed, from old to new; for a
	// periodic resync old and new are the same cached object.
	OnUpdate(old, new T)
	// OnDelete is called with the last known state of a deleted object.
	// finalStateUnknown is true when the informer did not see the
	// deletion itself but inferred it from a relist, so obj may be older
	// than the object's state when it was deleted. A handler that lags
	// may get OnDelete for an object it never got OnAdd for: the object
	// was created and deleted before the handler got to it (see the
	// package documentation, "Handlers").
	OnDelete(obj T, finalStateUnknown bool)
}

// HandlerFuncs adapts functions to a Handler. A nil function ignores its
// notification.
type HandlerFuncs[T any] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(old, new T)
	DeleteFunc func(obj T, finalStateUnknown bool)
}

// OnAdd calls AddFunc if it is set.
func (h HandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if h.AddFunc != nil {
		h.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if it is set.
func (h HandlerFuncs[T]) OnUpdate(old, new T) {
	if h.UpdateFunc != nil {
		h.UpdateFunc(old, new)
	}
}

// OnDelete calls DeleteFunc if it is set.
func (h HandlerFuncs[T]) OnDelete(obj T, finalStateUnknown bool) {
	if h.DeleteFunc != nil {
		h.DeleteFunc(obj, finalStateUnknown)
	}
}

// FilteringHandler passes to Handler only the objects for which Filter
// returns true, translating updates that cross the filter's boundary: an
// update from an object that passes to one that does not becomes OnDelete
// (with finalStateUnknown false), and the reverse becomes OnAdd (with
// isInInitialList false). A nil Filter passes everything.
type FilteringHandler[T any] struct {
	Filter  func(obj T) bool
	Handler Handler[T]
}

func (f FilteringHandler[T]) pass(obj T) bool { return f.Filter == nil || f.Filter(obj) }

// OnAdd forwards obj if it passes the filter.
func (f FilteringHandler[T]) OnAdd(obj T, isInInitialList bool) {
	if f.pass(obj) {
		f.Handler.OnAdd(obj, isInInitialList)
	}
}

// OnUpdate forwards, translates or drops the update as the type doc says.
func (f FilteringHandler[T]) OnUpdate(old, new T) {
	oldIn, newIn := f.pass(old), f.pass(new)
	switch {
	case oldIn && newIn:
		f.Handler.OnUpdate(old, new)
	case oldIn:
		f.Handler.OnDelete(old, false)
	case newIn:
		f.Handler.OnAdd(new, false)
	}
}

// OnDelete forwards obj if it passes the filter.
func (f FilteringHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	if f.pass(obj) {
		f.Handler.OnDelete(obj, finalStateUnknown)
	}
}

// HandlerOptions configure one handler registration. The zero value is
// valid.
type HandlerOptions struct {
	// Name identifies the registration in logs and metrics. Default:
	// "handler-N", N counting registrations of the informer from 1.
	Name string

	// ResyncPeriod is how often the handler receives OnUpdate(obj, obj)
	// for every cached object. 0 (the default) takes the informer's
	// Options.ResyncPeriod; a negative value disables resync for this
	// handler. When the informer's ResyncPeriod is set, a handler's period
	// is rounded up to a multiple of it, so that handlers due at about
	// the same time share one pass over the cache.
	ResyncPeriod time.Duration
}
