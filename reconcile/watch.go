package reconcile

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// EventSource is what Watch needs from an informer:
// *informer.Informer[T] implements it.
type EventSource[T any] interface {
	AddEventHandler(h informer.Handler[T], opts informer.HandlerOptions) (*informer.Registration, error)
}

// WatchOptions configure one Watch. The zero value is valid.
type WatchOptions struct {
	// Handler configures the registration Watch makes: its Name
	// (default: the informer's "handler-N") and its ResyncPeriod
	// (default: the informer's).
	Handler informer.HandlerOptions
	// Priority is the priority of the requests of live events (adds
	// after the initial list, changes, deletes). Default 0, the queue's
	// default. The initial list and resyncs stay at
	// workqueue.LowPriority.
	Priority int
	// NoSyncWait leaves the registration's HasSynced out of what the
	// controller's Run waits for, so that its workers may start before
	// src has delivered its initial list: for a loop with work of its
	// own to do at once, which must not wait for the cache (a kubelet
	// registers its node before it has listed its pods). Default false:
	// Run waits.
	NoSyncWait bool
}

// Watch registers a handler on src that enqueues, for every event, the
// requests mapFn returns for the object, and adds the registration's
// HasSynced to what ctl's Run waits for (when Watch is called before
// Run). It returns the registration, which src's RemoveEventHandler
// accepts.
//
// Which object is mapped, and at which priority:
//
//   - OnAdd: the object; at workqueue.LowPriority if it comes from the
//     informer's initial list (isInInitialList), else at
//     WatchOptions.Priority (the queue's default unless set), as every
//     live event below.
//   - OnUpdate: a resync (old and new carry the same resourceVersion when
//     T implements source.Versioned, or are the same pointer
//     otherwise) maps the object at workqueue.LowPriority; a real change
//     maps both old and new, so that when a
//     change moves an object from one request to another (a new owner, a
//     renamed key) both are reconciled.
//   - OnDelete: the last known object.
//
// Low priority lets live changes overtake the burst of requests a start
// or a resync produces; the queue's aging still serves the low ones
// within a bounded time, and a request pending at both priorities keeps
// the higher one. A request mapped several times before a worker takes
// it is reconciled once.
//
// mapFn runs on the registration's goroutine; it must not block, and may
// return nil to ignore an object. A panic in it is recovered by the
// informer (logged and counted there). Watch returns an error if an
// argument is nil (src included when it holds a nil pointer, such as a
// nil *informer.Informer[T]) or the registration fails.
func Watch[T any, R comparable](ctl *Controller[R], src EventSource[T], mapFn func(T) []R, opts WatchOptions) (*informer.Registration, error) {
	if mapFn == nil {
		if ctl == nil {
			return nil, errors.New("reconcile: Watch: controller is nil")
		}
		return nil, fmt.Errorf("reconcile: Watch (controller %q): map function is nil", ctl.name)
	}
	return WatchEvents(ctl, src, Events[T, R]{Map: mapFn}, opts)
}

// Events maps each kind of an informer's events to requests, for
// WatchEvents: controller-runtime's handler.Funcs, typed, returning the
// requests instead of adding them to a queue. Every func is optional:
// Map is the default of the others, and an event whose func and Map are
// both nil enqueues nothing. The funcs run on the registration's
// goroutine: they must not block, and may have side effects that must
// happen before the requests are enqueued (forgetting an owner's
// expectations on its delete, for example).
type Events[T any, R comparable] struct {
	// Map maps an object to requests; it stands for every nil func
	// below.
	Map func(obj T) []R
	// Create maps an added object (OnAdd).
	Create func(obj T) []R
	// Initial maps an object of the informer's initial list (an OnAdd
	// with isInInitialList set), when it should be told from a live add:
	// a controller that checks once, at start, for leftovers of what
	// happened while it was not running. Default Create.
	Initial func(obj T) []R
	// Update maps an update (OnUpdate), periodic resyncs included: old
	// and new then carry the same resourceVersion. Without it, a resync
	// maps new and a change maps both new and old (see Watch).
	Update func(old, new T) []R
	// Delete maps a deleted object: the last known state (OnDelete).
	Delete func(obj T) []R
}

// WatchEvents is Watch with one map function per kind of event: it
// registers a handler on src that enqueues the requests ev returns for
// each event, at the priorities Watch documents (the initial list and
// resyncs at workqueue.LowPriority, live events at the default), and
// adds the registration's HasSynced to what ctl's Run waits for (unless
// WatchOptions.NoSyncWait). A request returned twice for one event is enqueued once. It returns an
// error if ctl or src is nil, if every func of ev is nil, or if the
// registration fails.
func WatchEvents[T any, R comparable](ctl *Controller[R], src EventSource[T], ev Events[T, R], opts WatchOptions) (*informer.Registration, error) {
	switch {
	case ctl == nil:
		return nil, errors.New("reconcile: Watch: controller is nil")
	case isNil(src):
		return nil, fmt.Errorf("reconcile: Watch (controller %q): event source is nil", ctl.name)
	case ev.Map == nil && ev.Create == nil && ev.Initial == nil && ev.Update == nil && ev.Delete == nil:
		return nil, fmt.Errorf("reconcile: Watch (controller %q): map function is nil", ctl.name)
	}
	h := &watchHandler[T, R]{
		q:    ctl.queue,
		ev:   ev,
		prio: opts.Priority,
		ptr:  reflect.TypeFor[T]().Kind() == reflect.Pointer,
	}
	reg, err := src.AddEventHandler(h, opts.Handler)
	if err != nil {
		return nil, fmt.Errorf("reconcile: Watch (controller %q): %w", ctl.name, err)
	}
	if !opts.NoSyncWait {
		ctl.mu.Lock()
		ctl.synced = append(ctl.synced, reg.HasSynced)
		ctl.mu.Unlock()
	}
	return reg, nil
}

// Observe returns an EventSource whose handlers are told of each of
// src's events after obs is: the side effects a controller needs before
// it maps an event — typically lowering expectations
// (ctrlutil.PodExpectations is such a handler) — so that the request an
// event enqueues is reconciled with them already done.
//
//	reconcile.Watch(ctl, reconcile.Observe(pods, podExpectations), mapPod, reconcile.WatchOptions{})
func Observe[T any](src EventSource[T], obs informer.Handler[T]) EventSource[T] {
	return observed[T]{src: src, obs: obs}
}

type observed[T any] struct {
	src EventSource[T]
	obs informer.Handler[T]
}

// AddEventHandler implements EventSource.
func (o observed[T]) AddEventHandler(h informer.Handler[T], opts informer.HandlerOptions) (*informer.Registration, error) {
	if isNil(o.src) {
		return nil, errors.New("reconcile: Observe: event source is nil")
	}
	if isNil(o.obs) {
		return nil, errors.New("reconcile: Observe: observer is nil")
	}
	return o.src.AddEventHandler(observer[T]{obs: o.obs, h: h}, opts)
}

type observer[T any] struct {
	obs, h informer.Handler[T]
}

func (o observer[T]) OnAdd(obj T, initial bool) {
	o.obs.OnAdd(obj, initial)
	o.h.OnAdd(obj, initial)
}

func (o observer[T]) OnUpdate(old, new T) {
	o.obs.OnUpdate(old, new)
	o.h.OnUpdate(old, new)
}

func (o observer[T]) OnDelete(obj T, unknown bool) {
	o.obs.OnDelete(obj, unknown)
	o.h.OnDelete(obj, unknown)
}

// ByKey returns a map function whose request is the object's key, as
// keyFunc (usually the informer's key function) computes it: the mapper
// of a controller that reconciles the objects it watches.
func ByKey[T any](keyFunc func(T) string) func(T) []string {
	return func(obj T) []string { return []string{keyFunc(obj)} }
}

// ByOwner returns a map function for owned objects: it maps an object to
// the requests of its owners, as owners returns them (for example the key
// of the owner named by the object's controller reference, when that
// reference is of the reconciled kind). Zero requests are dropped, so
// owners may return R's zero value for "no owner"; the slice owners
// returns is never modified (it may be a field of a cached object).
// Watch maps both the old and the new object of an update, so a change of
// owner reconciles the previous owner too.
func ByOwner[T any, R comparable](owners func(T) []R) func(T) []R {
	return func(obj T) []R {
		reqs := owners(obj)
		var zero R
		if !slices.Contains(reqs, zero) {
			return reqs
		}
		out := make([]R, 0, len(reqs)-1)
		for _, r := range reqs {
			if r != zero {
				out = append(out, r)
			}
		}
		return out
	}
}

// watchHandler is the informer.Handler that WatchEvents registers.
type watchHandler[T any, R comparable] struct {
	q    *workqueue.Queue[R]
	ev   Events[T, R]
	prio int  // WatchOptions.Priority: that of live events
	ptr  bool // T is a pointer type: identity tells a resync
}

// pick returns f, or Map when f is nil.
func (h *watchHandler[T, R]) pick(f func(T) []R) func(T) []R {
	if f != nil {
		return f
	}
	return h.ev.Map
}

func (h *watchHandler[T, R]) add(reqs []R, prio int) {
	for i, req := range reqs {
		if slices.Contains(reqs[:i], req) {
			continue
		}
		h.q.AddWithOptions(req, workqueue.AddOptions{Priority: prio})
	}
}

// OnAdd enqueues obj's requests, at low priority for the initial list.
func (h *watchHandler[T, R]) OnAdd(obj T, isInInitialList bool) {
	f, prio := h.pick(h.ev.Create), h.prio
	if isInInitialList {
		prio = workqueue.LowPriority
		if h.ev.Initial != nil {
			f = h.ev.Initial
		}
	}
	if f != nil {
		h.add(f(obj), prio)
	}
}

// OnUpdate enqueues a resync at low priority, a change at the default.
func (h *watchHandler[T, R]) OnUpdate(old, new T) {
	prio := h.prio
	resync := h.resync(old, new)
	if resync {
		prio = workqueue.LowPriority
	}
	if h.ev.Update != nil {
		h.add(h.ev.Update(old, new), prio)
		return
	}
	if h.ev.Map == nil {
		return
	}
	reqs := h.ev.Map(new)
	if !resync {
		for _, req := range h.ev.Map(old) {
			if !slices.Contains(reqs, req) {
				reqs = append(slices.Clip(reqs), req)
			}
		}
	}
	h.add(reqs, prio)
}

// OnDelete enqueues obj's requests.
func (h *watchHandler[T, R]) OnDelete(obj T, _ bool) {
	if f := h.pick(h.ev.Delete); f != nil {
		h.add(f(obj), h.prio)
	}
}

// resync tells a periodic resync (the same object twice) from a change.
func (h *watchHandler[T, R]) resync(old, new T) bool {
	if o, ok := any(old).(source.Versioned); ok {
		if n, ok := any(new).(source.Versioned); ok {
			rv := o.GetResourceVersion()
			return rv != "" && rv == n.GetResourceVersion()
		}
	}
	return h.ptr && any(old) == any(new)
}
