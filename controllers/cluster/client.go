package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/patch"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// A Cluster is a client.Client, each Store a client.Resource, and the
// cluster the pods' binding subresource.
var (
	_ client.Client                   = (*Cluster)(nil)
	_ client.Binder                   = (*Cluster)(nil)
	_ client.Resource[*api.Pod]       = (*Store[*api.Pod])(nil)
	_ client.Resource[*api.Namespace] = (*Store[*api.Namespace])(nil)
)

// ResourceFor returns the Store of the kind gvk as a client.Resource of
// its Go type (client.Client); use client.For. An unknown kind, or a
// group or version this cluster does not serve, is client.ErrUnknownKind.
func (c *Cluster) ResourceFor(gvk api.GroupVersionKind) (client.Untyped, error) {
	if c == nil {
		return nil, fmt.Errorf("cluster: nil cluster serves no %s: %w", gvk, client.ErrUnknownKind)
	}
	s, ok := c.lookup(gvk)
	if !ok || s.gvk() != gvk {
		return nil, fmt.Errorf("cluster: %s is not served: %w", gvk, client.ErrUnknownKind)
	}
	return s, nil
}

func (s *Store[T]) gvk() api.GroupVersionKind { return s.kind.gvk }

// maxPatchRetries bounds the retries of a patch that lost a race with
// another write; a patch that names a resourceVersion is not retried.
const maxPatchRetries = 5

// Patch applies a JSON patch, a JSON merge patch or a strategic merge
// patch to the object stored under key and writes the result as Update
// does (status changes are ignored, a no-op writes nothing), returning the
// stored object. A patch that sets metadata.resourceVersion is
// conditional on it (ErrConflict); otherwise a lost race is retried on
// the new version. A patch that changes the uid is ErrInvalid; one that
// changes the name or namespace, or that does not apply, ErrInvalid or
// ErrBadRequest; an unknown patch type
// ErrBadRequest; a result too large ErrTooLarge.
func (s *Store[T]) Patch(ctx context.Context, key string, pt client.PatchType, data []byte) (T, error) {
	var zero T
	if ctx == nil {
		return zero, fmt.Errorf("cluster: patch %s %q: nil context: %w", s.kind.resource, key, ErrBadRequest)
	}
	for attempt := 0; ; attempt++ {
		cur, rv, err := s.s.Get(ctx, key)
		if err != nil {
			return zero, fmt.Errorf("cluster: patch %s %q: %w", s.kind.resource, key, err)
		}
		cur.SetResourceVersion(rv)
		orig, err := json.Marshal(cur)
		if err != nil {
			return zero, fmt.Errorf("cluster: patch %s %q: %w", s.kind.resource, key, err)
		}
		out, err := patch.Apply(patch.Type(pt), s.kind.gvk.Kind, orig, data)
		switch {
		case errors.Is(err, patch.ErrTooLarge):
			return zero, fmt.Errorf("cluster: patch %s %q: %v: %w", s.kind.resource, key, err, ErrTooLarge)
		case errors.Is(err, patch.ErrUnprocessable), errors.Is(err, patch.ErrTestFailed):
			return zero, &InvalidError{Resource: s.kind.resource, Name: cur.GetObjectMeta().Name,
				Errors: []FieldError{{Type: FieldInvalid, Field: "patch", Detail: err.Error()}}}
		case err != nil:
			return zero, fmt.Errorf("cluster: patch %s %q: %v: %w", s.kind.resource, key, err, ErrBadRequest)
		}
		obj := s.kind.newObject()
		if err := json.Unmarshal(out, obj); err != nil {
			return zero, fmt.Errorf("cluster: patch %s %q: the patched object does not decode: %v: %w", s.kind.resource, key, err, ErrBadRequest)
		}
		m, cm := obj.GetObjectMeta(), cur.GetObjectMeta()
		if m.Name != cm.Name || m.Namespace != cm.Namespace {
			return zero, fmt.Errorf("cluster: patch %s %q: a patch may not change the object's name or namespace: %w", s.kind.resource, key, ErrBadRequest)
		}
		if m.UID != cm.UID {
			return zero, &InvalidError{Resource: s.kind.resource, Name: cm.Name, Errors: []FieldError{{
				Type: FieldInvalid, Field: "metadata.uid", Value: string(m.UID), Detail: "field is immutable"}}}
		}
		pinned := m.ResourceVersion != rv // the patch set a precondition
		if m.ResourceVersion == "" {
			m.ResourceVersion = rv
		}
		_, err = s.Update(ctx, obj, "")
		if errors.Is(err, source.ErrConflict) && !pinned && attempt < maxPatchRetries {
			continue
		}
		if err != nil {
			return zero, err
		}
		return obj, nil
	}
}

// scaleOf returns a pointer to the spec.replicas of obj, its
// status.replicas and its pod selector, where its kind's registration
// (api.KindInfo.ScaleFields) says they are, or false for a kind without
// a scale subresource.
func scaleOf(obj api.Object) (spec **int32, status int32, selector string, ok bool) {
	info, ok := api.InfoOf(obj.GroupVersionKind())
	if !ok || info.ScaleFields == nil {
		return nil, 0, "", false
	}
	spec, status, selector = info.ScaleFields(obj)
	return spec, status, selector, spec != nil
}

// HasScale reports whether the kind has a scale subresource.
func (s *Store[T]) HasScale() bool {
	return s.kind.scale
}

// ScaleOf returns the autoscaling/v1 Scale of obj, and false when its kind
// has no scale subresource.
func ScaleOf(obj api.Object) (*api.Scale, bool) {
	spec, status, selector, ok := scaleOf(obj)
	if !ok {
		return nil, false
	}
	m := obj.GetObjectMeta()
	sc := &api.Scale{
		TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: api.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
		Status: api.ScaleStatus{Replicas: status, Selector: selector},
	}
	if *spec != nil {
		sc.Spec.Replicas = **spec
	}
	return sc, true
}

// GetScale returns the scale subresource of the object under key
// (client.Resource); an error wrapping source.ErrUnsupported for a kind
// without one.
func (s *Store[T]) GetScale(ctx context.Context, key string) (*api.Scale, error) {
	if !s.HasScale() {
		return nil, fmt.Errorf("cluster: %s have no scale subresource: %w", s.kind.resource, source.ErrUnsupported)
	}
	obj, rv, err := s.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	obj.SetResourceVersion(rv)
	return s.scale(obj), nil
}

// scale returns the Scale of obj, an object of the kind.
func (s *Store[T]) scale(obj T) *api.Scale {
	f, _ := s.kind.scaleOf(obj)
	m := obj.GetObjectMeta()
	sc := &api.Scale{
		TypeMeta: api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: api.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
		Status: api.ScaleStatus{Replicas: f.status, Selector: f.selector},
	}
	if f.spec != nil {
		sc.Spec.Replicas = *f.spec
	}
	return sc
}

// UpdateScale sets the replicas of the object under key to
// scale.Spec.Replicas, on the condition that it is at
// scale.ResourceVersion ("" for none), and returns the new scale
// (client.Resource). A negative replica count is ErrInvalid. A non-nil
// scale.ManagedFields are the object's managedFields after the write
// (the API server's field manager computes them, converted from the
// scale's); nil keeps the object's.
func (s *Store[T]) UpdateScale(ctx context.Context, key string, scale *api.Scale) (*api.Scale, error) {
	if !s.HasScale() {
		return nil, fmt.Errorf("cluster: %s have no scale subresource: %w", s.kind.resource, source.ErrUnsupported)
	}
	if scale == nil {
		return nil, fmt.Errorf("cluster: update %s %q scale: nil scale: %w", s.kind.resource, key, ErrBadRequest)
	}
	if scale.Spec.Replicas < 0 {
		return nil, &InvalidError{Resource: s.kind.resource, Name: scale.Name, Errors: []FieldError{{
			Type: FieldInvalid, Field: "spec.replicas", Value: fmt.Sprint(scale.Spec.Replicas), Detail: "must be greater than or equal to 0"}}}
	}
	for attempt := 0; ; attempt++ {
		obj, rv, err := s.Get(ctx, key)
		if err != nil {
			return nil, err
		}
		if scale.ResourceVersion != "" && scale.ResourceVersion != rv {
			return nil, fmt.Errorf("cluster: update %s %q scale: the object has been modified (resource version %s, now %s): %w",
				s.kind.resource, key, scale.ResourceVersion, rv, source.ErrConflict)
		}
		f, ok := s.kind.scaleOf(obj)
		if !ok {
			return nil, fmt.Errorf("cluster: %s %q has no scale fields: %w", s.kind.resource, key, ErrBadRequest)
		}
		f.set(scale.Spec.Replicas)
		if scale.ManagedFields != nil {
			obj.GetObjectMeta().ManagedFields = scale.ManagedFields
		}
		obj.SetResourceVersion(rv)
		_, err = s.Update(ctx, obj, rv)
		if errors.Is(err, source.ErrConflict) && scale.ResourceVersion == "" && attempt < maxRetries {
			continue
		}
		if err != nil {
			return nil, err
		}
		return s.scale(obj), nil
	}
}
