package kube_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	featuregatetesting "k8s.io/component-base/featuregate/testing"

	"github.com/ctrlkit/ctrlkit/source"
)

// TestWatchListGateOff turns the server's WatchList feature gate off,
// as it is by default on Kubernetes 1.27-1.31 and 1.33 (the server runs
// in this process and reads the gate per request): a watch from now
// still starts from now, and a watch-list is ErrUnsupported.
func TestWatchListGateOff(t *testing.T) {
	featuregatetesting.SetFeatureGateDuringTest(t, utilfeature.DefaultFeatureGate, features.WatchList, false)
	ctx := t.Context()
	ns := newNamespace("nowatchlist")
	src := flunders(t, ns)
	_, err := src.Create(ctx, newFlunder(ns, "before", ""))
	require.NoError(t, err)

	_, err = src.Watch(ctx, source.WatchOptions{SendInitialEvents: true})
	require.True(t, errors.Is(err, source.ErrUnsupported), "watch-list with the gate off: %v", err)

	w, err := src.Watch(ctx, source.WatchOptions{})
	require.NoError(t, err)
	rv, err := src.Create(ctx, newFlunder(ns, "after", ""))
	require.NoError(t, err)
	e := next(t, w)
	require.Equal(t, source.Added, e.Type)
	require.Equal(t, "after", e.Object.Name, "a watch from now replayed the existing objects")
	require.Equal(t, rv, e.ResourceVersion)
}
