package client

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// ForKind returns c's resource of the kind gvk with its objects seen as
// api.Object: for code generic over kinds known only at run time (a
// garbage collector, a namespace cleaner, an API server), over kinds a
// client serves that way — the kinds added with api.Register. The
// objects are of the kind's Go type. A kind c serves only typed (the
// built-in kinds) is ErrUnknownKind here: use For.
func ForKind(c Client, gvk api.GroupVersionKind) (Resource[api.Object], error) {
	if c == nil {
		return nil, fmt.Errorf("client: no client for %s: %w", gvk, ErrUnknownKind)
	}
	r, err := c.ResourceFor(gvk)
	if err != nil {
		return nil, err
	}
	return resolve[api.Object](r, gvk)
}

// typedView is a Resource[T] over a Resource[api.Object] whose objects
// are Ts: what For returns for a kind a client serves as api.Object.
type typedView[T api.Object] struct {
	inner Resource[api.Object]
}

// comparingView is a typedView over a source.VersionComparer.
type comparingView[T api.Object] struct {
	*typedView[T]
	source.VersionComparer
}

// newTypedView wraps r; the wrapper is a source.VersionComparer when r is
// one.
func newTypedView[T api.Object](r Resource[api.Object]) Resource[T] {
	v := &typedView[T]{inner: r}
	if vc, ok := r.(source.VersionComparer); ok {
		return &comparingView[T]{typedView: v, VersionComparer: vc}
	}
	return v
}

// as types obj, an object of the view's kind.
func as[T api.Object](obj api.Object) (T, error) {
	t, ok := obj.(T)
	if !ok && obj != nil {
		var zero T
		return zero, fmt.Errorf("client: the resource returned a %T, not a %T", obj, zero)
	}
	return t, nil
}

// Resource returns the inner resource's name.
func (v *typedView[T]) Resource() string { return v.inner.Resource() }

// Get implements Resource.
func (v *typedView[T]) Get(ctx context.Context, key string) (T, string, error) {
	obj, rv, err := v.inner.Get(ctx, key)
	if err != nil {
		var zero T
		return zero, "", err
	}
	t, err := as[T](obj)
	return t, rv, err
}

// List implements Resource.
func (v *typedView[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	return listAs[T](ctx, v.inner, opts)
}

// Watch implements Resource.
func (v *typedView[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return watchAs[T](ctx, v.inner, opts)
}

// Create implements Resource.
func (v *typedView[T]) Create(ctx context.Context, obj T) (string, error) {
	return v.inner.Create(ctx, obj)
}

// Update implements Resource.
func (v *typedView[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	return v.inner.Update(ctx, obj, ifVersion)
}

// UpdateStatus implements Resource.
func (v *typedView[T]) UpdateStatus(ctx context.Context, obj T) (string, error) {
	return v.inner.UpdateStatus(ctx, obj)
}

// Delete implements Resource.
func (v *typedView[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	return v.inner.Delete(ctx, key, ifVersion)
}

// DeleteWith implements Resource.
func (v *typedView[T]) DeleteWith(ctx context.Context, key string, opts DeleteOptions) (string, error) {
	return v.inner.DeleteWith(ctx, key, opts)
}

// Patch implements Resource.
func (v *typedView[T]) Patch(ctx context.Context, key string, pt PatchType, data []byte) (T, error) {
	obj, err := v.inner.Patch(ctx, key, pt, data)
	if err != nil {
		var zero T
		return zero, err
	}
	return as[T](obj)
}

// GetScale implements Resource.
func (v *typedView[T]) GetScale(ctx context.Context, key string) (*api.Scale, error) {
	return v.inner.GetScale(ctx, key)
}

// UpdateScale implements Resource.
func (v *typedView[T]) UpdateScale(ctx context.Context, key string, scale *api.Scale) (*api.Scale, error) {
	return v.inner.UpdateScale(ctx, key, scale)
}

// Select implements Resource.
func (v *typedView[T]) Select(opts SelectOptions) (source.ListWatcher[T], error) {
	lw, err := v.inner.Select(opts)
	if err != nil {
		return nil, err
	}
	return &listWatcherView[T]{inner: lw}, nil
}

// listWatcherView is a source.ListWatcher[T] over one of api.Object.
type listWatcherView[T api.Object] struct {
	inner source.ListWatcher[api.Object]
}

// List implements source.ListWatcher.
func (v *listWatcherView[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	return listAs[T](ctx, v.inner, opts)
}

// Watch implements source.ListWatcher.
func (v *listWatcherView[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return watchAs[T](ctx, v.inner, opts)
}

func listAs[T api.Object](ctx context.Context, lw source.ListWatcher[api.Object], opts source.ListOptions) (source.List[T], error) {
	l, err := lw.List(ctx, opts)
	if err != nil {
		return source.List[T]{}, err
	}
	out := source.List[T]{Items: make([]T, len(l.Items)), ResourceVersion: l.ResourceVersion, Continue: l.Continue}
	for i, obj := range l.Items {
		if out.Items[i], err = as[T](obj); err != nil {
			return source.List[T]{}, err
		}
	}
	return out, nil
}

// watchAs relays the events of lw's watch, typed, until the inner
// channel closes or ctx ends; an object of another type ends the watch
// with an Error event.
func watchAs[T api.Object](ctx context.Context, lw source.ListWatcher[api.Object], opts source.WatchOptions) (<-chan source.Event[T], error) {
	in, err := lw.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan source.Event[T])
	go func() {
		defer close(out)
		for e := range in {
			t, err := as[T](e.Object)
			ev := source.Event[T]{Type: e.Type, Object: t, ResourceVersion: e.ResourceVersion, InitialEventsEnd: e.InitialEventsEnd, Err: e.Err}
			if err != nil {
				ev = source.Event[T]{Type: source.Error, Err: err}
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return out, nil
}
