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
	"github.com/ctrlkit/ctrlkit/controllers/persistentvolume"
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

// With the PersistentVolume controller, and a fake scheduler step: the
// ephemeral claim of an unscheduled pod of a WaitForFirstConsumer class
// waits for the pod (WaitForPodScheduled), then is provisioned for the
// node the "scheduler" selects and bound.
func TestWithPersistentVolumeController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		quiet := slog.New(slog.DiscardHandler)
		f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
		rec := events.NewMemory()
		ec, err := ephemeral.New(c, f, ephemeral.Options{Recorder: rec, Logger: quiet})
		require.NoError(t, err)
		pv, err := persistentvolume.New(c, f, persistentvolume.Options{Recorder: rec, Logger: quiet})
		require.NoError(t, err)
		f.Start(ctx)
		var wg sync.WaitGroup
		for _, run := range []func(context.Context) error{ec.Run, pv.Run} {
			wg.Go(func() {
				if err := run(ctx); !errors.Is(err, context.Canceled) {
					t.Errorf("Run: %v", err)
				}
			})
		}
		defer func() { cancel(); wg.Wait(); f.Shutdown() }()
		settle := func() { time.Sleep(5 * time.Second); synctest.Wait() }

		wait := persistentvolume.BindingWaitForFirstConsumer
		_, err = c.StorageClasses().Create(ctx, &api.StorageClass{ObjectMeta: api.ObjectMeta{Name: "standard",
			Annotations: map[string]string{persistentvolume.AnnDefaultStorageClass: "true"}},
			Provisioner: "rancher.io/local-path", VolumeBindingMode: &wait})
		require.NoError(t, err)
		_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
		require.NoError(t, err)
		_, err = c.Pods().Create(ctx, podWithEphemeral("db-0", "scratch"))
		require.NoError(t, err)
		settle()
		claim, _, err := c.PersistentVolumeClaims().Get(ctx, "default/db-0-scratch")
		require.NoError(t, err)
		require.Equal(t, "standard", *claim.Spec.StorageClassName)
		require.Equal(t, api.PersistentVolumeClaimPhase("Pending"), claim.Status.Phase)
		require.Contains(t, rec.Strings(), "Normal WaitForPodScheduled waiting for pod db-0 to be scheduled")

		claim.Annotations = map[string]string{persistentvolume.AnnSelectedNode: "node-1"}
		_, err = c.PersistentVolumeClaims().Update(ctx, claim, "")
		require.NoError(t, err)
		settle()
		claim, _, err = c.PersistentVolumeClaims().Get(ctx, "default/db-0-scratch")
		require.NoError(t, err)
		require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), claim.Status.Phase)
		vol, _, err := c.PersistentVolumes().Get(ctx, claim.Spec.VolumeName)
		require.NoError(t, err)
		require.Equal(t, []string{"node-1"}, vol.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values)
	})
}
