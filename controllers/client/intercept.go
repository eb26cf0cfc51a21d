package client

import (
	"context"
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Call is one call of a Resource (or of the Binder) of an intercepted
// client, as its InterceptFunc sees it: the Kubernetes verb, the resource
// and subresource, and the arguments. Only the fields of the call's
// method are set.
type Call struct {
	// Verb is the Kubernetes verb: "get" (Get, GetScale), "list" (List),
	// "watch" (Watch: the call that opens the stream, not each event),
	// "create" (Create, Bind), "update" (Update, UpdateStatus,
	// UpdateScale), "delete" (Delete, DeleteWith) or "patch" (Patch).
	Verb string
	// Resource is the kind's plural resource name ("pods").
	Resource string
	// Subresource is "status" (UpdateStatus), "scale" (GetScale,
	// UpdateScale), "binding" (Bind) or "" (the object itself).
	Subresource string
	// Key is the object's key, "namespace/name" or "name": the key
	// asked for, or, for create and update, the key of the object sent
	// (for a create with metadata.generateName its name is empty). ""
	// for list and watch.
	Key string
	// Object is what create, update and update-status send: a private
	// copy of the caller's object, which the call overwrites with the
	// stored object when next succeeds (it is copied back to the
	// caller's object only if the call succeeds as a whole). Copy it
	// before next to keep what was sent. nil for the other verbs.
	Object api.Object
	// IfVersion is Update's precondition argument ("" for the object's
	// own resourceVersion).
	IfVersion string
	// PatchType and Patch are a patch's media type and body; the body is
	// the caller's and must not be changed.
	PatchType PatchType
	Patch     []byte
	// DeleteOptions are DeleteWith's options; Delete's ifVersion is
	// Preconditions.ResourceVersion.
	DeleteOptions DeleteOptions
	// SelectOptions are those of the Select whose List or Watch this is;
	// zero for the List and Watch of the resource itself.
	SelectOptions SelectOptions
	// ListOptions are a list's options.
	ListOptions source.ListOptions
	// WatchOptions are a watch's options.
	WatchOptions source.WatchOptions
	// Scale is the scale UpdateScale sends (the caller's; do not change
	// it).
	Scale *api.Scale
	// NodeName is the node a Bind assigns the pod to (the Binding's
	// target).
	NodeName string
}

// Namespace returns the namespace the call is about: the namespace of
// its Key, of the object a create sends, or of a list's or watch's
// SelectOptions; "" for a cluster-scoped kind or every namespace.
func (c Call) Namespace() string {
	if c.Key == "" {
		return c.SelectOptions.Namespace
	}
	ns, _, _ := api.SplitKey(c.Key)
	return ns
}

// Name returns the name of the object the call is about, from its Key;
// "" for list and watch, and for a create with metadata.generateName.
func (c Call) Name() string {
	_, name, err := api.SplitKey(c.Key)
	if err != nil {
		return ""
	}
	return name
}

// InterceptFunc is called around every call of every resource of an
// intercepted client (see Intercept), on the caller's goroutine. next
// performs the call on the inner client with the context it is given
// (for a watch, that context bounds the stream), and returns its error;
// the wrapper keeps its results. What f returns is the call's error:
//
//   - returning next's error (or nil after next succeeded) passes the
//     call through;
//   - returning an error without calling next fails the call with it:
//     nothing reaches the inner client and the results are zero values;
//   - calling next and then returning an error models a call that
//     happened but whose reply was lost (a write that timed out, say
//     with ErrServerTimeout): the inner client changed, the caller sees
//     the error and zero results, and its object stays unchanged (a
//     watch opened by next is closed);
//   - returning nil without calling next makes the call succeed with
//     zero results (a write dropped silently; a read returns nothing).
//
// next may be called more than once (each call reaches the inner
// client; the results of the last one are kept), but not after f has
// returned. f must be safe for concurrent use.
type InterceptFunc func(ctx context.Context, call Call, next func(context.Context) error) error

// Intercept returns a Client whose resources are c's with every call —
// Get, List, Watch, Create, Update, UpdateStatus, Delete, DeleteWith,
// Patch, GetScale, UpdateScale and the List and Watch of their Selects —
// passed through f. Resource and Select are not calls and are not
// intercepted. A resource that is a source.VersionComparer stays one, and
// so do its Selects. If c is a Binder, so is the result, and Bind goes
// through f as the create of the pods' "binding" subresource.
//
// The result's ResourceFor returns a value that only For understands
// (Go cannot build a Resource[T] for a T known only at run time): For[T]
// of the result resolves c's resource and wraps it; intercepting
// an intercepted client nests, the outer f seeing each call first. A nil
// f returns c itself. The package fakeclient builds a recording,
// fault-injecting fake on it.
func Intercept(c Client, f InterceptFunc) Client {
	if f == nil {
		return c
	}
	ic := &interceptedClient{inner: c, f: f}
	if b, err := BinderFor(c); err == nil {
		return &interceptedBinder{interceptedClient: ic, binder: b}
	}
	return ic
}

// interceptedClient is the Client Intercept returns.
type interceptedClient struct {
	inner Client
	f     InterceptFunc
}

// ResourceFor returns the inner client's resource of gvk wrapped, untyped,
// in an *interceptedResource for For to type.
func (c *interceptedClient) ResourceFor(gvk api.GroupVersionKind) (Untyped, error) {
	if c.inner == nil {
		return nil, fmt.Errorf("client: no client for %s: %w", gvk, ErrUnknownKind)
	}
	r, err := c.inner.ResourceFor(gvk)
	if err != nil {
		return nil, err
	}
	return &interceptedResource{inner: r, f: c.f}, nil
}

// interceptedResource is what an intercepted client's ResourceFor returns:
// Go cannot build a Resource[T] at run time for a T it does not know, so
// it holds the inner resource (itself possibly an *interceptedResource)
// and f, and For builds the typed wrapper.
type interceptedResource struct {
	inner Untyped
	f     InterceptFunc
}

// Resource returns the inner resource's name (Untyped).
func (r *interceptedResource) Resource() string { return r.inner.Resource() }

// interceptedBinder is an intercepted client whose inner client is a
// Binder.
type interceptedBinder struct {
	*interceptedClient
	binder Binder
}

// Bind implements Binder through f.
func (c *interceptedBinder) Bind(ctx context.Context, namespace, name, nodeName string) (string, error) {
	var rv string
	call := Call{Verb: "create", Resource: "pods", Subresource: "binding", Key: api.NamespacedKey(namespace, name), NodeName: nodeName}
	err := c.f(ctx, call, func(ctx context.Context) (err error) {
		rv, err = c.binder.Bind(ctx, namespace, name, nodeName)
		return err
	})
	if err != nil {
		return "", err
	}
	return rv, nil
}

// resolve types the resource r that a Client's ResourceFor(gvk) returned
// as a Resource[T], building the wrappers of intercepted clients.
func resolve[T api.Object](r Untyped, gvk api.GroupVersionKind) (Resource[T], error) {
	if ir, ok := r.(*interceptedResource); ok {
		inner, err := resolve[T](ir.inner, gvk)
		if err != nil {
			return nil, err
		}
		return interceptResource(inner, ir.f), nil
	}
	typed, ok := r.(Resource[T])
	if !ok {
		if dyn, isDyn := r.(Resource[api.Object]); isDyn {
			return newTypedView[T](dyn), nil // a kind served as api.Object
		}
		var zero T
		return nil, fmt.Errorf("client: the resource of %s is a %T, not a Resource[%T]: %w", gvk, r, zero, ErrUnknownKind)
	}
	return typed, nil
}

// interceptResource wraps r; the wrapper is a source.VersionComparer when
// r is one.
func interceptResource[T api.Object](r Resource[T], f InterceptFunc) Resource[T] {
	w := &intercepted[T]{inner: r, f: f, resource: r.Resource()}
	if vc, ok := r.(source.VersionComparer); ok {
		return &comparingIntercepted[T]{intercepted: w, VersionComparer: vc}
	}
	return w
}

// intercepted is a Resource[T] that passes every call through f to inner.
type intercepted[T api.Object] struct {
	inner    Resource[T]
	f        InterceptFunc
	resource string // inner.Resource()
}

// comparingIntercepted is an intercepted resource over a
// source.VersionComparer.
type comparingIntercepted[T api.Object] struct {
	*intercepted[T]
	source.VersionComparer
}

// Resource returns the inner resource's name; it is not intercepted.
func (r *intercepted[T]) Resource() string { return r.resource }

// Get implements Resource.
func (r *intercepted[T]) Get(ctx context.Context, key string) (T, string, error) {
	var (
		obj T
		rv  string
	)
	err := r.f(ctx, Call{Verb: "get", Resource: r.resource, Key: key}, func(ctx context.Context) (err error) {
		obj, rv, err = r.inner.Get(ctx, key)
		return err
	})
	if err != nil {
		var zero T
		return zero, "", err
	}
	return obj, rv, nil
}

// List implements Resource.
func (r *intercepted[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	return r.list(ctx, r.inner, SelectOptions{}, opts)
}

// Watch implements Resource.
func (r *intercepted[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return r.watch(ctx, r.inner, SelectOptions{}, opts)
}

func (r *intercepted[T]) list(ctx context.Context, lw source.ListWatcher[T], sel SelectOptions, opts source.ListOptions) (source.List[T], error) {
	var l source.List[T]
	call := Call{Verb: "list", Resource: r.resource, SelectOptions: sel, ListOptions: opts}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		o := opts
		if w, ok := ctx.Value(listOptionsKey{}).(source.ListOptions); ok {
			o = w
		}
		l, err = lw.List(ctx, o)
		return err
	})
	if err != nil {
		return source.List[T]{}, err
	}
	return l, nil
}

func (r *intercepted[T]) watch(ctx context.Context, lw source.ListWatcher[T], sel SelectOptions, opts source.WatchOptions) (<-chan source.Event[T], error) {
	var (
		ch   <-chan source.Event[T]
		stop context.CancelFunc // ends the last stream next opened
	)
	call := Call{Verb: "watch", Resource: r.resource, SelectOptions: sel, WatchOptions: opts}
	err := r.f(ctx, call, func(ctx context.Context) error {
		if stop != nil { // next called again: the earlier stream is dropped
			stop()
			drain(ch)
		}
		wctx, cancel := context.WithCancel(ctx)
		c, err := lw.Watch(wctx, opts)
		if err != nil {
			cancel()
			ch, stop = nil, nil
			return err
		}
		ch, stop = c, cancel
		return nil
	})
	if err != nil {
		if stop != nil { // the reply was lost: end the stream nobody reads
			stop()
			drain(ch)
		}
		return nil, err
	}
	return ch, nil
}

// listOptionsKey is the context key of WithListOptions.
type listOptionsKey struct{}

// WithListOptions returns ctx carrying opts for a list's next: an
// InterceptFunc that calls next with it makes the inner client list with
// opts instead of the caller's (Call.ListOptions) — a lagging API server
// serving an older snapshot (opts.ResourceVersion with source.Exact),
// say. The caller gets the inner client's list as it came. Only a list's
// next reads it.
func WithListOptions(ctx context.Context, opts source.ListOptions) context.Context {
	return context.WithValue(ctx, listOptionsKey{}, opts)
}

// drain reads ch until its source closes it, so that the source's
// goroutine is never left blocked on a send.
func drain[E any](ch <-chan E) {
	if ch == nil {
		return
	}
	go func() {
		for range ch {
		}
	}()
}

// Create implements Resource. The inner resource writes a private copy of
// obj, copied back into obj only when the call succeeds.
func (r *intercepted[T]) Create(ctx context.Context, obj T) (string, error) {
	sent, copied := copyOf(obj)
	var rv string
	call := Call{Verb: "create", Resource: r.resource, Key: keyOf(obj), Object: asObject(sent)}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		rv, err = r.inner.Create(ctx, sent)
		return err
	})
	if err != nil {
		return "", err
	}
	if copied {
		copyInto(obj, sent)
	}
	return rv, nil
}

// Update implements Resource, writing a private copy of obj as Create.
func (r *intercepted[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	sent, copied := copyOf(obj)
	var rv string
	call := Call{Verb: "update", Resource: r.resource, Key: keyOf(obj), Object: asObject(sent), IfVersion: ifVersion}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		rv, err = r.inner.Update(ctx, sent, ifVersion)
		return err
	})
	if err != nil {
		return "", err
	}
	if copied {
		copyInto(obj, sent)
	}
	return rv, nil
}

// UpdateStatus implements Resource, writing a private copy of obj as
// Create.
func (r *intercepted[T]) UpdateStatus(ctx context.Context, obj T) (string, error) {
	sent, copied := copyOf(obj)
	var rv string
	call := Call{Verb: "update", Resource: r.resource, Subresource: "status", Key: keyOf(obj), Object: asObject(sent)}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		rv, err = r.inner.UpdateStatus(ctx, sent)
		return err
	})
	if err != nil {
		return "", err
	}
	if copied {
		copyInto(obj, sent)
	}
	return rv, nil
}

// Delete implements Resource: the call's DeleteOptions carry ifVersion as
// the resourceVersion precondition.
func (r *intercepted[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	var rv string
	call := Call{Verb: "delete", Resource: r.resource, Key: key,
		DeleteOptions: DeleteOptions{Preconditions: Preconditions{ResourceVersion: ifVersion}}}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		rv, err = r.inner.Delete(ctx, key, ifVersion)
		return err
	})
	if err != nil {
		return "", err
	}
	return rv, nil
}

// DeleteWith implements Resource.
func (r *intercepted[T]) DeleteWith(ctx context.Context, key string, opts DeleteOptions) (string, error) {
	var rv string
	call := Call{Verb: "delete", Resource: r.resource, Key: key, DeleteOptions: opts}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		rv, err = r.inner.DeleteWith(ctx, key, opts)
		return err
	})
	if err != nil {
		return "", err
	}
	return rv, nil
}

// Patch implements Resource.
func (r *intercepted[T]) Patch(ctx context.Context, key string, pt PatchType, data []byte) (T, error) {
	var obj T
	call := Call{Verb: "patch", Resource: r.resource, Key: key, PatchType: pt, Patch: data}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		obj, err = r.inner.Patch(ctx, key, pt, data)
		return err
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return obj, nil
}

// GetScale implements Resource.
func (r *intercepted[T]) GetScale(ctx context.Context, key string) (*api.Scale, error) {
	var sc *api.Scale
	call := Call{Verb: "get", Resource: r.resource, Subresource: "scale", Key: key}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		sc, err = r.inner.GetScale(ctx, key)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// UpdateScale implements Resource.
func (r *intercepted[T]) UpdateScale(ctx context.Context, key string, scale *api.Scale) (*api.Scale, error) {
	var sc *api.Scale
	call := Call{Verb: "update", Resource: r.resource, Subresource: "scale", Key: key, Scale: scale}
	err := r.f(ctx, call, func(ctx context.Context) (err error) {
		sc, err = r.inner.UpdateScale(ctx, key, scale)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sc, nil
}

// Select implements Resource: the inner resource's Select (not
// intercepted), whose List and Watch go through f with the call's
// SelectOptions set.
func (r *intercepted[T]) Select(opts SelectOptions) (source.ListWatcher[T], error) {
	lw, err := r.inner.Select(opts)
	if err != nil {
		return nil, err
	}
	s := &interceptedSelect[T]{r: r, lw: lw, opts: opts}
	if vc, ok := lw.(source.VersionComparer); ok {
		return &comparingSelect[T]{interceptedSelect: s, VersionComparer: vc}, nil
	}
	return s, nil
}

// interceptedSelect is the ListWatcher of an intercepted resource's
// Select.
type interceptedSelect[T api.Object] struct {
	r    *intercepted[T]
	lw   source.ListWatcher[T]
	opts SelectOptions
}

// comparingSelect is an interceptedSelect over a source.VersionComparer.
type comparingSelect[T api.Object] struct {
	*interceptedSelect[T]
	source.VersionComparer
}

// List implements source.ListWatcher.
func (s *interceptedSelect[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	return s.r.list(ctx, s.lw, s.opts, opts)
}

// Watch implements source.ListWatcher.
func (s *interceptedSelect[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return s.r.watch(ctx, s.lw, s.opts, opts)
}

// isNil reports whether obj is nil or a nil pointer.
func isNil(obj any) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// asObject returns obj as an api.Object, nil for a nil pointer.
func asObject[T api.Object](obj T) api.Object {
	if isNil(obj) {
		return nil
	}
	return obj
}

// keyOf returns obj's key, "" for a nil pointer.
func keyOf[T api.Object](obj T) string {
	if isNil(obj) {
		return ""
	}
	return api.Key(obj)
}

// copyOf returns a deep copy of obj, and false (with obj itself) when obj
// is nil or cannot be copied as a T.
func copyOf[T api.Object](obj T) (T, bool) {
	if isNil(obj) {
		return obj, false
	}
	c, ok := obj.DeepCopyObject().(T)
	if !ok || isNil(c) || reflect.TypeOf(obj).Kind() != reflect.Pointer {
		return obj, false
	}
	return c, true
}

// copyInto overwrites *dst with *src; both are non-nil pointers of the
// same type (copyOf made src).
func copyInto[T api.Object](dst, src T) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

// ServedKinds implements KindLister: the inner client's kinds.
func (c *interceptedClient) ServedKinds(ctx context.Context) ([]api.KindInfo, error) {
	return ServedKinds(ctx, c.inner)
}
