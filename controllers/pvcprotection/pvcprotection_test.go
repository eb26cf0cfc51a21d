package pvcprotection_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/pvcprotection"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

func claim(name string) *api.PersistentVolumeClaim {
	return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{"storage": api.MustParse("1Gi")}}}}
}

func podUsing(name, claimName, node string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}, Spec: api.PodSpec{NodeName: node,
		Containers: []api.Container{{Name: "c", Image: "busybox"}},
		Volumes: []api.Volume{{Name: "data", VolumeSource: api.VolumeSource{
			PersistentVolumeClaim: &api.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}}}}}
}

// Which pods keep a claim: after kube's pvc_protection_controller_test.go
// (TestPVCProtectionController: "scheduled pod using the PVC" keeps it,
// "unscheduled pod" and "pod using another PVC" do not; a finished pod
// still scheduled keeps a directly mounted claim).
func TestUses(t *testing.T) {
	require.True(t, pvcprotection.Uses(podUsing("p", "data", "node-1"), claim("data")))
	require.False(t, pvcprotection.Uses(podUsing("p", "data", ""), claim("data")), "not scheduled")
	require.False(t, pvcprotection.Uses(podUsing("p", "other", "node-1"), claim("data")))
	done := podUsing("p", "data", "node-1")
	done.Status.Phase = api.PodSucceeded
	require.True(t, pvcprotection.Uses(done, claim("data")), "a finished pod still holds its claim until it is deleted")
	require.True(t, pvcprotection.Terminated(done))

	// A generic ephemeral volume mounts its claim <pod>-<volume> when the
	// pod controls it (kcm's podUsesPVC with VolumeIsForPod).
	eph := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0", UID: "pod-uid"}, Spec: api.PodSpec{NodeName: "node-1",
		Volumes: []api.Volume{{Name: "scratch", VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{}}}}}}
	own := claim("web-0-scratch")
	yes := true
	own.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "web-0", UID: "pod-uid", Controller: &yes}}
	require.True(t, pvcprotection.Uses(eph, own))
	require.False(t, pvcprotection.Uses(eph, claim("web-0-scratch")), "a claim of that name the pod does not control")
	var zero int64
	eph.DeletionTimestamp, eph.DeletionGracePeriodSeconds = &api.Time{}, &zero
	require.False(t, pvcprotection.Uses(eph, own), "shut down (podIsShutDown)")
	deleting := podUsing("p", "data", "node-1")
	deleting.DeletionTimestamp = &api.Time{}
	deleting.Status.ContainerStatuses = []api.ContainerStatus{{Name: "c", State: api.ContainerState{Running: &api.ContainerStateRunning{}}}}
	require.False(t, pvcprotection.Terminated(deleting), "a container still runs")
	deleting.Status.ContainerStatuses[0].State = api.ContainerState{Terminated: &api.ContainerStateTerminated{}}
	require.True(t, pvcprotection.Terminated(deleting))
}

// A claim gets the finalizer (from the admission plugin, or from the
// controller when created without it); deleted while a scheduled pod uses
// it, it stays Terminating; once the pod is gone it goes.
func TestProtection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		logger := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		pc, err := pvcprotection.New(c, f, pvcprotection.Options{Logger: logger})
		require.NoError(t, err)
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- pc.Run(ctx) }()
		defer func() { cancel(); <-done }()
		// The controller starts its workers once its informers have
		// synced, which it polls for: let virtual time pass.
		time.Sleep(time.Second)
		synctest.Wait()

		_, err = c.PersistentVolumeClaims().Create(ctx, claim("data"))
		require.NoError(t, err)
		_, err = c.PersistentVolumeClaims().Create(ctx, claim("free"))
		require.NoError(t, err)
		_, err = c.Pods().Create(ctx, podUsing("web", "data", "node-1"))
		require.NoError(t, err)
		_, err = c.Pods().Create(ctx, podUsing("pending", "free", ""))
		require.NoError(t, err)
		synctest.Wait()
		for _, name := range []string{"data", "free"} {
			pvc, _, err := c.PersistentVolumeClaims().Get(ctx, "default/"+name)
			require.NoError(t, err)
			require.Equal(t, []string{"kubernetes.io/pvc-protection"}, pvc.Finalizers, "added by the controller")
		}

		for _, name := range []string{"data", "free"} {
			_, err = c.PersistentVolumeClaims().Delete(ctx, "default/"+name, "")
			require.NoError(t, err)
		}
		synctest.Wait()
		_, _, err = c.PersistentVolumeClaims().Get(ctx, "default/free")
		require.ErrorIs(t, err, source.ErrNotFound, "an unscheduled pod does not hold it")
		pvc, _, err := c.PersistentVolumeClaims().Get(ctx, "default/data")
		require.NoError(t, err, "a scheduled pod holds it")
		require.NotNil(t, pvc.DeletionTimestamp)

		zero := int64(0)
		_, err = c.Pods().DeleteWith(ctx, "default/web", cluster.DeleteOptions{GracePeriodSeconds: &zero})
		require.NoError(t, err)
		synctest.Wait()
		_, _, err = c.PersistentVolumeClaims().Get(ctx, "default/data")
		require.ErrorIs(t, err, source.ErrNotFound, "released with its pod")
	})
}

// The admission plugin gives every new claim and volume its finalizer.
func TestAdmissionAddsFinalizers(t *testing.T) {
	ctx := t.Context()
	c, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{admission.StorageObjectInUseProtection}})
	require.NoError(t, err)
	pvc := claim("data")
	_, err = c.PersistentVolumeClaims().Create(ctx, pvc)
	require.NoError(t, err)
	require.Equal(t, []string{"kubernetes.io/pvc-protection"}, pvc.Finalizers)
	pv := &api.PersistentVolume{ObjectMeta: api.ObjectMeta{Name: "pv", Finalizers: []string{"kubernetes.io/pv-protection"}},
		Spec: api.PersistentVolumeSpec{Capacity: api.ResourceList{"storage": api.MustParse("1Gi")},
			AccessModes:            []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
			PersistentVolumeSource: api.PersistentVolumeSource{HostPath: &api.HostPathVolumeSource{Path: "/data"}}}}
	_, err = c.PersistentVolumes().Create(ctx, pv)
	require.NoError(t, err)
	require.Equal(t, []string{"kubernetes.io/pv-protection"}, pv.Finalizers, "not twice")
}
