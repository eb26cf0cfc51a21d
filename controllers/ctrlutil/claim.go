package ctrlutil

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Claimer decides which objects a controller owns, adopting and releasing
// them as kube-controller-manager's ControllerRefManager does. Make one
// per sync: it reads the owner's live state at most once.
type Claimer[T api.Object] struct {
	owner    api.Object
	selector api.Selector
	live     func(ctx context.Context) (api.Object, error)
	writer   source.Writer[T]

	checked  bool
	adoptErr error
}

// NewClaimer returns a Claimer for the children of owner that selector
// picks. live reads owner from the source — not from a cache — and is
// called before the first adoption, so that a controller deleted (or
// deleted and re-created under the same name) since its cache was filled
// adopts nothing. writer updates the children's owner references.
func NewClaimer[T api.Object](owner api.Object, selector api.Selector, live func(ctx context.Context) (api.Object, error), writer source.Writer[T]) *Claimer[T] {
	return &Claimer[T]{owner: owner, selector: selector, live: live, writer: writer}
}

// Claim returns those of children the owner controls once it has acted
// on them:
//
//   - a child controlled by another object is left alone;
//   - a child it controls that the selector still picks is kept;
//   - a child it controls that the selector no longer picks is released
//     (its owner reference removed) — unless the owner is being deleted;
//   - an orphan the selector picks, not itself being deleted and in the
//     owner's namespace, is adopted (a controller reference added) —
//     unless the owner is being deleted or the live read finds it gone.
//
// children come from a cache and are not changed: writes go to deep
// copies, with the cached version as their precondition. A child that is
// gone meanwhile is skipped. The errors of failed writes (and of the live
// check) are joined; the children claimed are returned either way.
func (c *Claimer[T]) Claim(ctx context.Context, children []T) ([]T, error) {
	var out []T
	var errs []error
	for _, child := range children {
		got, ok, err := c.ClaimOne(ctx, child)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			out = append(out, got)
		}
	}
	return out, errors.Join(errs...)
}

// ClaimOne acts on one child by Claim's rules and reports whether the
// owner controls it afterwards (ok), returning the object to use: child
// itself if it was the owner's already, or the adopted copy. err is the
// error of a failed write or live check, if any; a child gone meanwhile
// is no error and not claimed. A controller that walks its children
// once per sync (the ReplicaSet controller) calls it in that walk
// instead of collecting them for Claim. It allocates nothing for a
// child that keeps its owner.
func (c *Claimer[T]) ClaimOne(ctx context.Context, child T) (claimed T, ok bool, err error) {
	om := c.owner.GetObjectMeta()
	deleting := om.DeletionTimestamp != nil
	m := child.GetObjectMeta()
	// The selector is matched only against children that are the
	// owner's or orphans: another's child is left alone unmatched.
	if ref := m.ControllerRef(); ref != nil {
		if ref.UID != om.UID {
			return claimed, false, nil
		}
		if c.selector.Matches(m.Labels) {
			return child, true, nil
		}
		if deleting {
			return claimed, false, nil
		}
		cp, err := deepCopy(child)
		if err == nil {
			RemoveOwnerReference(cp, om.UID)
			_, err = c.writer.Update(ctx, cp, "")
		}
		if err != nil && !errors.Is(err, source.ErrNotFound) {
			return claimed, false, fmt.Errorf("ctrlutil: release %q: %w", m.Name, err)
		}
		return claimed, false, nil
	}
	if deleting || m.DeletionTimestamp != nil || (om.Namespace != "" && m.Namespace != om.Namespace) || !c.selector.Matches(m.Labels) {
		return claimed, false, nil
	}
	if err := c.canAdopt(ctx); err != nil {
		return claimed, false, fmt.Errorf("ctrlutil: adopt %q: %w", m.Name, err)
	}
	cp, err := deepCopy(child)
	if err == nil {
		if err = SetControllerReference(c.owner, cp); err == nil {
			_, err = c.writer.Update(ctx, cp, "")
		}
	}
	switch {
	case errors.Is(err, source.ErrNotFound):
		return claimed, false, nil
	case err != nil:
		return claimed, false, fmt.Errorf("ctrlutil: adopt %q: %w", m.Name, err)
	}
	return cp, true, nil
}

// canAdopt reads the owner live, once: it must still exist with the same
// UID and not be being deleted.
func (c *Claimer[T]) canAdopt(ctx context.Context) error {
	if c.checked {
		return c.adoptErr
	}
	c.checked = true
	om := c.owner.GetObjectMeta()
	kind := c.owner.GroupVersionKind().Kind
	fresh, err := c.live(ctx)
	switch {
	case err != nil:
		c.adoptErr = fmt.Errorf("cannot read %s %q: %w", kind, om.Name, err)
	case fresh.GetObjectMeta().UID != om.UID:
		c.adoptErr = fmt.Errorf("the original %s %q is gone: got uid %s, wanted %s", kind, om.Name, fresh.GetObjectMeta().UID, om.UID)
	case fresh.GetObjectMeta().DeletionTimestamp != nil:
		c.adoptErr = fmt.Errorf("%s %q is being deleted", kind, om.Name)
	}
	return c.adoptErr
}

// deepCopy copies a cached object before it is changed.
func deepCopy[T api.Object](obj T) (T, error) {
	cp, ok := obj.DeepCopyObject().(T)
	if !ok {
		return cp, fmt.Errorf("DeepCopyObject of %T returned %T", obj, obj.DeepCopyObject())
	}
	return cp, nil
}
