package source

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// ListWatcher is a source of objects of type T that can be listed and
// watched. It is the only thing a Reflector needs from a backend.
//
// Implementations must be safe for concurrent use.
type ListWatcher[T any] interface {
	// List returns the objects at one consistent resourceVersion.
	//
	// opts.ResourceVersion "" asks for the latest state. Any other value
	// is read as opts.ResourceVersionMatch says: NotOlderThan (the
	// default) asks for a state at least as new as that version, and
	// the source serves its latest; Exact asks for exactly that version,
	// and a version the source no longer retains yields an error for
	// which errors.Is(err, ErrExpired) is true. A version newer than the
	// source's yields ErrFutureVersion. An expired opts.Continue token
	// yields ErrExpired.
	//
	// When opts.Limit > 0 the source may return at most Limit items and a
	// non-empty List.Continue token; passing that token back in
	// opts.Continue returns the next page of the same snapshot.
	List(ctx context.Context, opts ListOptions) (List[T], error)

	// Watch streams every change strictly after opts.ResourceVersion
	// ("" means: from now). The source closes the channel when ctx ends
	// or the stream breaks. A version older than the source retains is
	// reported either as a returned error or as a single Error event,
	// in both cases with errors.Is(err, ErrExpired).
	Watch(ctx context.Context, opts WatchOptions) (<-chan Event[T], error)
}

// Writer is the write side of a source: what a controller needs to read
// one object and to create, update and delete objects with optimistic
// concurrency. fake.Source, etcd.Source and the cluster store implement
// it; fake.Recorder wraps one to record a controller's writes in tests.
//
// Implementations must be safe for concurrent use. Every method returns
// an error wrapping ErrNotFound, ErrAlreadyExists or ErrConflict where
// those apply, and stamps the written object's new resourceVersion into
// it when it implements VersionSetter.
type Writer[T any] interface {
	// Get returns the object stored under key and the resourceVersion
	// of its last write, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) (T, string, error)
	// Create stores obj under its key and returns the resourceVersion
	// of the write; ErrAlreadyExists when the key is taken.
	Create(ctx context.Context, obj T) (string, error)
	// Update replaces the object stored under obj's key on the
	// condition that it is at ifVersion — or, when ifVersion is "", at
	// obj's own resourceVersion (ResourceVersionOf) if it has one, as in
	// Kubernetes — and returns the resourceVersion of the write;
	// ErrConflict when the condition fails, ErrNotFound when the key is
	// missing.
	Update(ctx context.Context, obj T, ifVersion string) (string, error)
	// Delete removes the object stored under key on the condition that
	// it is at ifVersion ("": unconditionally) and returns the
	// resourceVersion of the delete.
	Delete(ctx context.Context, key, ifVersion string) (string, error)
}

// ListOptions selects what List returns.
type ListOptions struct {
	// ResourceVersion is the version to list at, read as
	// ResourceVersionMatch says; "" is the latest.
	ResourceVersion string
	// ResourceVersionMatch says how ResourceVersion is read. The zero
	// value is NotOlderThan.
	ResourceVersionMatch ResourceVersionMatch
	// Limit is the maximum number of items in one page; 0 means no limit.
	Limit int64
	// Continue is a token returned by a previous page of the same list.
	Continue string
}

// ResourceVersionMatch says how List reads ListOptions.ResourceVersion;
// it is Kubernetes' resourceVersionMatch. The two meanings of a list
// version differ exactly where it matters: a relist must not travel back
// in time but must see every change since (NotOlderThan), while a
// paginated or reproducible read needs one fixed snapshot (Exact).
type ResourceVersionMatch uint8

// The ways to read a list's ResourceVersion.
const (
	// NotOlderThan: any state at least as new as ResourceVersion; the
	// source serves the latest it has. Never ErrExpired: an old version
	// only sets a floor. This is what a reflector's relist asks for.
	NotOlderThan ResourceVersionMatch = iota
	// Exact: the state at exactly ResourceVersion, or ErrExpired when
	// the source no longer retains it.
	Exact
)

// String returns the match's Kubernetes name.
func (m ResourceVersionMatch) String() string {
	switch m {
	case NotOlderThan:
		return "NotOlderThan"
	case Exact:
		return "Exact"
	}
	return "ResourceVersionMatch(" + strconv.Itoa(int(m)) + ")"
}

// List is one page of a list.
type List[T any] struct {
	// Items are the objects, ordered by key.
	Items []T
	// ResourceVersion is the version the whole list is consistent at.
	ResourceVersion string
	// Continue is non-empty when more pages follow.
	Continue string
}

// WatchOptions selects what Watch streams.
type WatchOptions struct {
	// ResourceVersion: events strictly after this version are sent;
	// "" means from now (or, with SendInitialEvents, from the current state).
	ResourceVersion string
	// AllowBookmarks lets the source send Bookmark events that only
	// advance the resourceVersion.
	AllowBookmarks bool
	// SendInitialEvents asks the source to first send the current state
	// as Added events, then a Bookmark with InitialEventsEnd set, then the
	// live stream (Kubernetes' watch-list). A source that does not support
	// it returns an error wrapping ErrUnsupported.
	SendInitialEvents bool
}

// EventType says what an Event reports.
type EventType uint8

// The event types. The zero value is not a valid type.
const (
	// Added: the object was created (or, in an initial-events stream, exists).
	Added EventType = iota + 1
	// Modified: the object was updated; Object is the new state.
	Modified
	// Deleted: the object was deleted; Object is its last state.
	Deleted
	// Bookmark: no change; ResourceVersion tells how far the stream has got.
	Bookmark
	// Error: the stream failed; Err says why. The source closes the
	// channel after it.
	Error
)

// String returns the name of the event type.
func (t EventType) String() string {
	switch t {
	case Added:
		return "Added"
	case Modified:
		return "Modified"
	case Deleted:
		return "Deleted"
	case Bookmark:
		return "Bookmark"
	case Error:
		return "Error"
	}
	return "EventType(" + strconv.Itoa(int(t)) + ")"
}

// Event is one change on a watch stream.
type Event[T any] struct {
	Type EventType
	// Object is the new state (Added, Modified) or the last state
	// (Deleted); the zero value for Bookmark and Error.
	Object T
	// ResourceVersion is the version at which this change happened.
	ResourceVersion string
	// InitialEventsEnd marks the Bookmark that ends the initial events of
	// a watch started with SendInitialEvents.
	InitialEventsEnd bool
	// Err is set on Error events.
	Err error
}

// VersionComparer is implemented by sources whose resourceVersions are
// ordered. The reflector and the informer use it to refuse time travel and
// to wait for a version; without it they degrade gracefully.
type VersionComparer interface {
	// CompareResourceVersions returns -1, 0 or +1 as a is older than,
	// equal to or newer than b, or an error if either is malformed.
	CompareResourceVersions(a, b string) (int, error)
}

// Versioned is implemented by objects that carry the resourceVersion at
// which they were last written. Sources stamp it (see VersionSetter); the
// informer uses it to tell a resync from a real change found by a relist.
type Versioned interface {
	GetResourceVersion() string
}

// VersionSetter is implemented (usually on a pointer type) by objects into
// which a source stamps the resourceVersion of each write.
type VersionSetter interface {
	SetResourceVersion(rv string)
}

// Errors that sources return and callers branch on.
var (
	// ErrExpired means the requested resourceVersion or continue token
	// is older than the source retains (Kubernetes' 410 Gone, etcd's
	// compacted revision): the caller must relist.
	ErrExpired = errors.New("source: resource version expired")
	// ErrNotFound means the object does not exist.
	ErrNotFound = errors.New("source: not found")
	// ErrAlreadyExists means a create found the key taken.
	ErrAlreadyExists = errors.New("source: already exists")
	// ErrConflict means a write's resourceVersion precondition is stale.
	ErrConflict = errors.New("source: conflict: resource version is stale")
	// ErrUnsupported means the source does not support a requested option
	// (for example WatchOptions.SendInitialEvents).
	ErrUnsupported = errors.New("source: unsupported by this source")
	// ErrTransient means a request failed for a reason that leaves the
	// caller's resourceVersion valid — too many requests, a refused
	// connection, a stream that broke — so the same request may be
	// retried after a backoff: a reflector re-watches from its last
	// version instead of relisting. Sources wrap it (with %w) around
	// such errors; the kube adapter maps HTTP 429 to it.
	ErrTransient = errors.New("source: transient failure, retry")
	// ErrFutureVersion means a resourceVersion is newer than the source's
	// current one.
	ErrFutureVersion = errors.New("source: resource version is in the future")
	// ErrBadContinue means a continue token is not one the source made
	// (malformed, or from another source): the caller's mistake, where
	// ErrExpired means a valid token that is too old.
	ErrBadContinue = errors.New("source: continue token is not valid")
)

// ListWatchFuncs builds a ListWatcher from two functions.
type ListWatchFuncs[T any] struct {
	ListFunc  func(ctx context.Context, opts ListOptions) (List[T], error)
	WatchFunc func(ctx context.Context, opts WatchOptions) (<-chan Event[T], error)
}

// List calls ListFunc.
func (f ListWatchFuncs[T]) List(ctx context.Context, opts ListOptions) (List[T], error) {
	if f.ListFunc == nil {
		return List[T]{}, errors.New("source: ListWatchFuncs.ListFunc is nil")
	}
	return f.ListFunc(ctx, opts)
}

// Watch calls WatchFunc.
func (f ListWatchFuncs[T]) Watch(ctx context.Context, opts WatchOptions) (<-chan Event[T], error) {
	if f.WatchFunc == nil {
		return nil, errors.New("source: ListWatchFuncs.WatchFunc is nil")
	}
	return f.WatchFunc(ctx, opts)
}

// StampResourceVersion sets obj's resourceVersion to rv when obj implements
// VersionSetter and does nothing otherwise. It is meant for source
// implementations, which stamp every object they write or read. A setter
// that panics is reported as an error rather than crashing the source.
func StampResourceVersion[T any](obj T, rv string) (err error) {
	vs, ok := any(obj).(VersionSetter)
	if !ok {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("SetResourceVersion panicked: %v", p)
		}
	}()
	vs.SetResourceVersion(rv)
	return nil
}

// ResourceVersionOf returns obj's resourceVersion when obj implements
// Versioned, and "" otherwise. A getter that panics counts as no version.
// Writers use it to take an update's precondition from the object, as
// Kubernetes does.
func ResourceVersionOf[T any](obj T) (rv string) {
	v, ok := any(obj).(Versioned)
	if !ok {
		return ""
	}
	defer func() {
		if recover() != nil {
			rv = ""
		}
	}()
	return v.GetResourceVersion()
}
