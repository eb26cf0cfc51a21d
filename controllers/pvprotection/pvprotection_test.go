package pvprotection_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/pvprotection"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

func volume(name string) *api.PersistentVolume {
	return &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{"storage": api.MustParse("1Gi")},
			AccessModes:            []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data"}}}}
}

// After kube's pv_protection_controller_test.go (TestPVProtectionController:
// "PV without finalizer -> finalizer is added", "deleted PV with
// finalizer + PV is bound -> finalizer is not removed", "deleted PV with
// finalizer + PV is not bound -> finalizer is removed").
func TestProtection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		logger := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		pc, err := pvprotection.New(c, f, pvprotection.Options{Logger: logger})
		require.NoError(t, err)
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- pc.Run(ctx) }()
		defer func() { cancel(); <-done }()
		// The controller starts its workers once its informers have
		// synced, which it polls for: let virtual time pass.
		time.Sleep(time.Second)
		synctest.Wait()

		for _, name := range []string{"bound", "free"} {
			_, err := c.PersistentVolumes().Create(ctx, volume(name))
			require.NoError(t, err)
		}
		synctest.Wait()
		bound, _, err := c.PersistentVolumes().Get(ctx, "bound")
		require.NoError(t, err)
		require.Equal(t, []string{"kubernetes.io/pv-protection"}, bound.Finalizers, "added")
		bound.Status.Phase = "Bound"
		_, err = c.PersistentVolumes().UpdateStatus(ctx, bound)
		require.NoError(t, err)
		synctest.Wait()

		for _, name := range []string{"bound", "free"} {
			_, err := c.PersistentVolumes().Delete(ctx, name, "")
			require.NoError(t, err)
		}
		synctest.Wait()
		_, _, err = c.PersistentVolumes().Get(ctx, "free")
		require.ErrorIs(t, err, source.ErrNotFound, "not bound: removed")
		bound, _, err = c.PersistentVolumes().Get(ctx, "bound")
		require.NoError(t, err, "bound: kept")
		require.NotNil(t, bound.DeletionTimestamp)

		bound.Status.Phase = "Released"
		_, err = c.PersistentVolumes().UpdateStatus(ctx, bound)
		require.NoError(t, err)
		synctest.Wait()
		_, _, err = c.PersistentVolumes().Get(ctx, "bound")
		require.ErrorIs(t, err, source.ErrNotFound, "released: removed")
	})
}
