package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// PropagationPolicy says what happens to an object's dependents when it
// is deleted (client.PropagationPolicy).
type PropagationPolicy = client.PropagationPolicy

// The propagation policies.
const (
	DeletePropagationOrphan     = client.DeletePropagationOrphan
	DeletePropagationBackground = client.DeletePropagationBackground
	DeletePropagationForeground = client.DeletePropagationForeground
)

// The finalizers the store adds for a propagation policy.
const (
	FinalizerOrphanDependents = client.FinalizerOrphanDependents
	FinalizerDeleteDependents = client.FinalizerDeleteDependents
)

// Preconditions must hold for a delete to happen (client.Preconditions).
type Preconditions = client.Preconditions

// DeleteOptions are the options of DeleteWith (client.DeleteOptions).
type DeleteOptions = client.DeleteOptions

// Delete deletes the object stored under key on the condition that it is
// at ifVersion ("": unconditionally): DeleteWith with that precondition
// and default options (source.Writer).
func (s *Store[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	return s.DeleteWith(ctx, key, DeleteOptions{Preconditions: Preconditions{ResourceVersion: ifVersion}})
}

// DeleteWith deletes the object stored under key as kube-apiserver does.
// An object with finalizers (after the propagation policy added or
// removed "orphan" and "foregroundDeletion"), and a pod bound to a node
// deleted with a non-zero grace period, are not removed: they get a
// deletionTimestamp (now plus the grace period) and
// deletionGracePeriodSeconds, their generation is bumped, and they stay
// until their finalizers are removed (Update) and, for a pod, until it
// is deleted again with grace period 0. A second delete may shorten a
// pending grace period, never lengthen it. Deleting a namespace marks it
// Terminating until its spec.finalizers are removed; deleting "default",
// "kube-system" or "kube-public" is ErrForbidden. Once the preconditions
// hold, Options.Mutating and Options.Admission see the delete (operation
// DELETE, the stored object as OldObject) and may refuse it.
//
// It returns the resourceVersion of its write: the removal, or the update
// that marked the object. A missing object is ErrNotFound, a failed
// precondition ErrConflict.
func (s *Store[T]) DeleteWith(ctx context.Context, key string, opts DeleteOptions) (string, error) {
	_, _, rv, err := s.DeleteReturning(ctx, key, opts)
	return rv, err
}

// DeleteReturning is DeleteWith that also returns the object as the
// delete left it: marked for deletion (gone false) when finalizers or a
// grace period keep it, else its last state (gone true). Under a dry-run
// context (WithDryRun) nothing is stored and obj is what the delete
// would have left, as kube-apiserver answers a dryRun=All DELETE.
func (s *Store[T]) DeleteReturning(ctx context.Context, key string, opts DeleteOptions) (obj T, gone bool, rv string, err error) {
	if ctx == nil {
		return obj, false, "", fmt.Errorf("cluster: delete %s %q: nil context", s.kind.resource, key)
	}
	obj, gone, rv, err = s.deleteWith(ctx, key, opts)
	return obj, gone, rv, err
}

func (s *Store[T]) deleteWith(ctx context.Context, key string, opts DeleteOptions) (obj T, gone bool, rv string, err error) {
	switch opts.PropagationPolicy {
	case "", DeletePropagationOrphan, DeletePropagationBackground, DeletePropagationForeground:
	default:
		return obj, false, "", fmt.Errorf("cluster: delete %s %q: unknown propagation policy %q: %w", s.kind.resource, key, opts.PropagationPolicy, ErrBadRequest)
	}
	if opts.GracePeriodSeconds != nil && *opts.GracePeriodSeconds < 0 {
		return obj, false, "", fmt.Errorf("cluster: delete %s %q: negative grace period: %w", s.kind.resource, key, ErrBadRequest)
	}
	if s.kind.resource == "namespaces" && immortalNamespaces[key] {
		return obj, false, "", fmt.Errorf("cluster: delete namespaces %q: this namespace may not be deleted: %w", key, ErrForbidden)
	}
	for range maxRetries {
		res, rv, retry, err := s.deleteOnce(ctx, key, opts)
		if retry {
			continue
		}
		return res.obj, res.gone, rv, err
	}
	return obj, false, "", fmt.Errorf("cluster: delete %s %q: gave up after %d conflicting writes: %w", s.kind.resource, key, maxRetries, source.ErrConflict)
}

func (s *Store[T]) deleteOnce(ctx context.Context, key string, opts DeleteOptions) (res deleted[T], rv string, retry bool, err error) {
	fail := func(err error) (deleted[T], string, bool, error) {
		return res, "", false, fmt.Errorf("cluster: delete %s %q: %w", s.kind.resource, key, err)
	}
	cur, curRV, err := s.s.Get(ctx, key)
	if err != nil {
		return fail(err)
	}
	m := cur.GetObjectMeta()
	p := opts.Preconditions
	if p.UID != "" && p.UID != m.UID {
		return fail(fmt.Errorf("precondition failed: UID in precondition: %s, UID in object meta: %s: %w", p.UID, m.UID, source.ErrConflict))
	}
	if p.ResourceVersion != "" && p.ResourceVersion != curRV {
		return fail(fmt.Errorf("precondition failed: ResourceVersion in precondition: %s, ResourceVersion in object meta: %s: %w", p.ResourceVersion, curRV, source.ErrConflict))
	}
	if err := s.c.admitDelete(ctx, s.kind.resource, cur, opts); err != nil {
		return res, "", false, err
	}
	dry := IsDryRun(ctx)
	next := deepCopy(cur)
	nm := next.GetObjectMeta()
	nm.Finalizers = deletionFinalizers(m.Finalizers, opts.PropagationPolicy)

	var grace int64
	graceful := false
	if s.kind.gracePeriod != nil {
		grace, graceful = s.kind.gracePeriod(cur, opts.GracePeriodSeconds)
	}
	if !graceful {
		grace = 0
	} else if pending := m.DeletionGracePeriodSeconds; m.DeletionTimestamp != nil && pending != nil && *pending > 0 && grace >= *pending {
		grace = *pending // a pending deletion may only be shortened
	}
	if !graceful && !s.kind.finalizing(next) {
		cur.SetResourceVersion(curRV)
		if dry {
			return deleted[T]{cur, true}, curRV, false, nil
		}
		rv, err := s.s.Delete(ctx, key, curRV)
		if errors.Is(err, source.ErrConflict) && p.ResourceVersion == "" {
			return res, "", true, nil
		}
		if err != nil {
			return fail(err)
		}
		return deleted[T]{cur, true}, rv, false, nil
	}
	t := now()
	if m.DeletionTimestamp == nil || m.DeletionGracePeriodSeconds == nil || grace < *m.DeletionGracePeriodSeconds {
		ts := api.NewTime(t.Add(time.Duration(grace) * time.Second))
		nm.DeletionTimestamp = &ts
		nm.DeletionGracePeriodSeconds = &grace
	}
	if m.DeletionTimestamp == nil {
		if nm.Generation > 0 {
			nm.Generation++
		}
		if s.kind.onDelete != nil {
			s.kind.onDelete(next)
		}
	}
	next.SetResourceVersion(curRV)
	if dry || jsonEqual(cur, next) {
		return deleted[T]{next, false}, curRV, false, nil
	}
	rv, err = s.s.Update(ctx, next, curRV)
	if errors.Is(err, source.ErrConflict) && p.ResourceVersion == "" {
		return res, "", true, nil
	}
	if err != nil {
		return fail(err)
	}
	next.SetResourceVersion(rv)
	return deleted[T]{next, false}, rv, false, nil
}

// deleted is the object a delete left and whether it is gone.
type deleted[T api.Object] struct {
	obj  T
	gone bool
}

// deletionFinalizers returns the finalizers after a delete with policy,
// as kube-apiserver's deletionFinalizersForGarbageCollection computes
// them: an explicit policy replaces "orphan" and "foregroundDeletion"
// with its own (none for Background); no policy keeps them.
func deletionFinalizers(fins []string, policy PropagationPolicy) []string {
	orphan := slices.Contains(fins, FinalizerOrphanDependents)
	foreground := slices.Contains(fins, FinalizerDeleteDependents)
	switch policy {
	case DeletePropagationOrphan:
		orphan, foreground = true, false
	case DeletePropagationForeground:
		orphan, foreground = false, true
	case DeletePropagationBackground:
		orphan, foreground = false, false
	}
	out := make([]string, 0, len(fins)+1)
	for _, f := range fins {
		if f != FinalizerOrphanDependents && f != FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, FinalizerDeleteDependents)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
