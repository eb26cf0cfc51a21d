package client

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/source"
)

// Evictor is the eviction subresource of pods (policy/v1 Eviction), what
// `kubectl drain` posts: Evict deletes the pod namespace/name with opts
// unless its PodDisruptionBudget allows no disruption now, which is
// IsTooManyRequests (retry later, as kubectl does every 5 s). A pod that
// is not running, or already being deleted, is deleted without looking at
// a budget. Clients that serve pods may implement it; get it with
// EvictorFor.
type Evictor interface {
	Evict(ctx context.Context, namespace, name string, opts DeleteOptions) error
}

// EvictorFor returns c's eviction subresource of pods, or an error
// wrapping source.ErrUnsupported when c has none.
func EvictorFor(c Client) (Evictor, error) {
	if e, ok := c.(Evictor); ok {
		return e, nil
	}
	return nil, fmt.Errorf("client: %T has no pods/eviction subresource: %w", c, source.ErrUnsupported)
}
