package ephemeral_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/ephemeral"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

func podWithEphemeral(name, vol string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"}, Spec: api.PodSpec{
		Containers: []api.Container{{Name: "app", Image: "busybox"}},
		Volumes: []api.Volume{{Name: vol, VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{
			VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{Spec: api.PersistentVolumeClaimSpec{
				AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
				Resources:   api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")}}}}}}}}}}
}

// The controller running: a pod's ephemeral claim is created, made again
// when deleted while the pod lives, and a claim of the same name that
// the pod does not own is left alone with an event on the pod.
func TestController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		quiet := slog.New(slog.DiscardHandler)
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		rec := events.NewMemory()
		ec, err := ephemeral.New(c, f, ephemeral.Options{Recorder: rec, Logger: quiet})
		require.NoError(t, err)
		f.Start(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			if err := ec.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Errorf("Run: %v", err)
			}
		})
		defer func() { cancel(); wg.Wait(); f.Shutdown() }()
		settle := func() { time.Sleep(5 * time.Second); synctest.Wait() }

		pod := podWithEphemeral("db-0", "scratch")
		_, err = c.Pods().Create(ctx, pod)
		require.NoError(t, err)
		settle()
		pvc, _, err := c.PersistentVolumeClaims().Get(ctx, "default/db-0-scratch")
		require.NoError(t, err)
		require.NoError(t, ephemeral.IsForPod(pod, pvc))
		require.Equal(t, "1Gi", pvc.Spec.Resources.Requests[api.ResourceStorage].String())

		_, err = c.PersistentVolumeClaims().DeleteWith(ctx, "default/db-0-scratch", cluster.DeleteOptions{})
		require.NoError(t, err)
		settle()
		again, _, err := c.PersistentVolumeClaims().Get(ctx, "default/db-0-scratch")
		require.NoError(t, err, "made again while the pod lives")
		require.NotEqual(t, pvc.UID, again.UID)

		foreign := &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: "web-0-data", Namespace: "default"}, Spec: pvc.Spec}
		_, err = c.PersistentVolumeClaims().Create(ctx, foreign)
		require.NoError(t, err)
		settle()
		web := podWithEphemeral("web-0", "data")
		_, err = c.Pods().Create(ctx, web)
		require.NoError(t, err)
		settle()
		got, _, err := c.PersistentVolumeClaims().Get(ctx, "default/web-0-data")
		require.NoError(t, err)
		require.Empty(t, got.OwnerReferences, "not taken over")
		require.Contains(t, rec.Strings(), "Warning FailedBinding ephemeral volume data: "+
			"PVC default/web-0-data was not created for pod default/web-0 (pod is not owner)")
		var onWeb int
		for _, e := range rec.Events() {
			if e.Regarding.Kind == "Pod" && e.Regarding.Name == "web-0" {
				onWeb++
			}
		}
		require.Positive(t, onWeb)
		l, err := c.PersistentVolumeClaims().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 2)
	})
}
