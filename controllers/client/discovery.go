package client

import (
	"context"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// KindLister is implemented by clients that know which kinds their
// server serves now — the kinds of CustomResourceDefinitions come and go
// while it runs — as kube-apiserver's discovery says. Get the list with
// ServedKinds.
type KindLister interface {
	// ServedKinds returns the registration of each kind served now, one
	// per group and kind (at its preferred version).
	ServedKinds(ctx context.Context) ([]api.KindInfo, error)
}

// ServedKinds returns the kinds c serves now: c's own list when it is a
// KindLister (an in-process cluster, an API server's client), else
// every kind of the program's registry (api.Registered), which a client
// without discovery may serve.
func ServedKinds(ctx context.Context, c Client) ([]api.KindInfo, error) {
	if l, ok := c.(KindLister); ok {
		return l.ServedKinds(ctx)
	}
	return api.Registered(), nil
}
