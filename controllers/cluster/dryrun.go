package cluster

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// dryRunKey is the context key of a dry-run write.
type dryRunKey struct{}

// WithDryRun returns a context under which a Store's writes run as
// kube-apiserver's dryRun=All: everything a write does — defaulting,
// generateName, uid and creationTimestamp, validation, the namespace
// lifecycle check, mutating and validating admission (which see
// Attributes.DryRun true) — happens, and the caller receives the object
// as it would have been stored, but nothing is stored: no
// resourceVersion is taken, no watcher sees an event, and writes that
// admission or an eviction would make under the same context (a
// quota's charge, a budget's decrement) are not stored either. A dry-run
// create answers with an empty resourceVersion, a dry-run update or
// delete with the stored object's.
func WithDryRun(ctx context.Context) context.Context {
	return context.WithValue(ctx, dryRunKey{}, true)
}

// IsDryRun reports whether ctx is a dry-run context (WithDryRun).
func IsDryRun(ctx context.Context) bool {
	v, _ := ctx.Value(dryRunKey{}).(bool)
	return v
}

// create stores obj, or under a dry-run context checks that its key is
// free and stores nothing (kube-apiserver's DryRunnableStorage.Create):
// the resourceVersion is then "".
func (s *Store[T]) create(ctx context.Context, obj T) (string, error) {
	if !IsDryRun(ctx) {
		return s.s.Create(ctx, obj)
	}
	if _, _, err := s.s.Get(ctx, api.Key(obj)); err == nil {
		return "", fmt.Errorf("%q: %w", api.Key(obj), source.ErrAlreadyExists)
	} else if !errors.Is(err, source.ErrNotFound) {
		return "", err
	}
	return "", nil
}
