package fake

import (
	"context"
	"sync"

	"github.com/ctrlkit/ctrlkit/source"
)

// Verb names a write (or read) a Recorder saw.
type Verb string

// The verbs of source.Writer.
const (
	VerbGet    Verb = "get"
	VerbCreate Verb = "create"
	VerbUpdate Verb = "update"
	VerbDelete Verb = "delete"
)

// Action is one call a Recorder passed on: what was asked and what came
// back. It is what a test asserts a controller's writes with, as
// client-go's fake clientset records actions.
type Action[T any] struct {
	// Verb is the method called.
	Verb Verb
	// Key is the key asked for (Get, Delete), or the key of Object
	// (Create, Update) when the Recorder has a key func.
	Key string
	// Object is the object written (Create, Update) or returned (Get);
	// the zero value for Delete.
	Object T
	// IfVersion is the precondition passed to Update or Delete.
	IfVersion string
	// ResourceVersion is the version the call returned ("" on error).
	ResourceVersion string
	// Err is the error the call returned.
	Err error
}

// Recorder is a source.Writer that passes every call to another Writer
// and records it, in call order. It is safe for concurrent use.
type Recorder[T any] struct {
	w       source.Writer[T]
	keyFunc func(T) string

	mu      sync.Mutex
	actions []Action[T] // guarded by mu
}

// NewRecorder returns a Recorder over w. keyFunc, if not nil, fills
// Action.Key for Create and Update; a key func that panics leaves it
// empty.
func NewRecorder[T any](w source.Writer[T], keyFunc func(T) string) *Recorder[T] {
	return &Recorder[T]{w: w, keyFunc: keyFunc}
}

var _ source.Writer[int] = (*Recorder[int])(nil)

// Get implements source.Writer.
func (r *Recorder[T]) Get(ctx context.Context, key string) (T, string, error) {
	obj, rv, err := r.w.Get(ctx, key)
	r.record(Action[T]{Verb: VerbGet, Key: key, Object: obj, ResourceVersion: rv, Err: err})
	return obj, rv, err
}

// Create implements source.Writer.
func (r *Recorder[T]) Create(ctx context.Context, obj T) (string, error) {
	rv, err := r.w.Create(ctx, obj)
	r.record(Action[T]{Verb: VerbCreate, Key: r.key(obj), Object: obj, ResourceVersion: rv, Err: err})
	return rv, err
}

// Update implements source.Writer.
func (r *Recorder[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	rv, err := r.w.Update(ctx, obj, ifVersion)
	r.record(Action[T]{Verb: VerbUpdate, Key: r.key(obj), Object: obj, IfVersion: ifVersion, ResourceVersion: rv, Err: err})
	return rv, err
}

// Delete implements source.Writer.
func (r *Recorder[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	rv, err := r.w.Delete(ctx, key, ifVersion)
	r.record(Action[T]{Verb: VerbDelete, Key: key, IfVersion: ifVersion, ResourceVersion: rv, Err: err})
	return rv, err
}

// Actions returns a copy of the actions recorded so far.
func (r *Recorder[T]) Actions() []Action[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Action[T](nil), r.actions...)
}

// Writes returns the successful creates, updates and deletes recorded so
// far, in order: the changes the wrapped Writer accepted.
func (r *Recorder[T]) Writes() []Action[T] {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Action[T]
	for _, a := range r.actions {
		if a.Verb != VerbGet && a.Err == nil {
			out = append(out, a)
		}
	}
	return out
}

// Reset forgets the recorded actions.
func (r *Recorder[T]) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions = nil
}

func (r *Recorder[T]) record(a Action[T]) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions = append(r.actions, a)
}

func (r *Recorder[T]) key(obj T) (key string) {
	if r.keyFunc == nil {
		return ""
	}
	defer func() {
		if recover() != nil {
			key = ""
		}
	}()
	return r.keyFunc(obj)
}
