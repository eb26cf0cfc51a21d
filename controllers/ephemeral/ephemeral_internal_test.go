package ephemeral

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The rows of kcm's pkg/controller/volume/ephemeral/controller_test.go
// (TestSyncHandler), one sync of one pod key each; "create-conflict"
// (an injected create error there) is a claim name the server refuses
// here.
func TestSyncHandler(t *testing.T) {
	const ns, other, podName, volName = "my-namespace", "not-my-namespace", "test-pod", "ephemeral-volume"
	ephemeralVolume := func(name string) api.Volume {
		return api.Volume{Name: name, VolumeSource: api.VolumeSource{Ephemeral: &api.EphemeralVolumeSource{
			VolumeClaimTemplate: &api.PersistentVolumeClaimTemplate{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "db"}, Annotations: map[string]string{"note": "scratch"}},
				Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
					Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")}}},
			}}}}
	}
	makePod := func(name string, vols ...api.Volume) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: ns},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}, Volumes: vols}}
	}
	makePVC := func(name, namespace string) *api.PersistentVolumeClaim {
		return &api.PersistentVolumeClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: namespace},
			Spec: api.PersistentVolumeClaimSpec{AccessModes: []api.PersistentVolumeAccessMode{"ReadWriteOnce"},
				Resources: api.VolumeResourceRequirements{Requests: api.ResourceList{api.ResourceStorage: api.MustParse("1Gi")}}}}
	}
	claimName := podName + "-" + volName
	long := strings.Repeat("p", 250)

	for _, tc := range []struct {
		name      string
		pod       *api.Pod
		deleted   bool
		podKey    string
		pvcs      []*api.PersistentVolumeClaim
		wantPVCs  []string // namespace/name, sorted
		owned     string   // a claim that must be owned by the pod
		wantErr   string
		wantEvent string
	}{
		{name: "create", pod: makePod(podName, ephemeralVolume(volName)), wantPVCs: []string{ns + "/" + claimName}, owned: claimName},
		{name: "no-such-pod", podKey: ns + "/" + podName},
		{name: "pod-deleted", pod: makePod(podName, ephemeralVolume(volName)), deleted: true},
		{name: "no-volumes", pod: makePod(podName)},
		{name: "create-with-other-PVC", pod: makePod(podName, ephemeralVolume(volName)), pvcs: []*api.PersistentVolumeClaim{makePVC(claimName, other)},
			wantPVCs: []string{ns + "/" + claimName, other + "/" + claimName}, owned: claimName},
		{name: "wrong-PVC-owner", pod: makePod(podName, ephemeralVolume(volName)), pvcs: []*api.PersistentVolumeClaim{makePVC(claimName, ns)},
			wantPVCs: []string{ns + "/" + claimName},
			wantErr:  "PVC my-namespace/test-pod-ephemeral-volume was not created for pod my-namespace/test-pod (pod is not owner)",
			wantEvent: "Warning FailedBinding ephemeral volume ephemeral-volume: " +
				"PVC my-namespace/test-pod-ephemeral-volume was not created for pod my-namespace/test-pod (pod is not owner)"},
		{name: "create-conflict", pod: makePod(long, ephemeralVolume("data")),
			wantErr: "create PVC " + long + "-data", wantEvent: "Warning FailedBinding ephemeral volume data: create PVC " + long + "-data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				c, err := cluster.New(ctx, cluster.Options{})
				require.NoError(t, err)
				for _, n := range []string{ns, other} {
					_, err := c.CreateObject(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: n}})
					require.NoError(t, err)
				}
				key := tc.podKey
				if tc.pod != nil {
					if tc.deleted {
						tc.pod.Finalizers = []string{"test/hold"}
					}
					_, err := c.Pods().Create(ctx, tc.pod)
					require.NoError(t, err)
					key = api.Key(tc.pod)
					if tc.deleted {
						_, err := c.Pods().DeleteWith(ctx, key, cluster.DeleteOptions{})
						require.NoError(t, err)
					}
				}
				for _, p := range tc.pvcs {
					_, err := c.PersistentVolumeClaims().Create(ctx, p)
					require.NoError(t, err)
				}
				f := informer.NewFactory(informer.FactoryOptions{Logger: slog.New(slog.DiscardHandler)})
				rec := events.NewMemory()
				ec, err := New(c, f, Options{Recorder: rec, Logger: slog.New(slog.DiscardHandler)})
				require.NoError(t, err)
				f.Start(ctx)
				defer f.Shutdown()
				require.True(t, f.WaitForCacheSync(ctx))

				_, err = ec.sync(ctx, key)
				if tc.wantErr != "" {
					require.ErrorContains(t, err, tc.wantErr)
				} else {
					require.NoError(t, err)
				}
				l, err := c.PersistentVolumeClaims().List(ctx, source.ListOptions{})
				require.NoError(t, err)
				var got []string
				for _, p := range l.Items {
					got = append(got, api.Key(p))
				}
				require.ElementsMatch(t, tc.wantPVCs, got)
				if tc.owned != "" {
					pvc, _, err := c.PersistentVolumeClaims().Get(ctx, api.NamespacedKey(ns, tc.owned))
					require.NoError(t, err)
					pod, _, err := c.Pods().Get(ctx, key)
					require.NoError(t, err)
					require.NoError(t, IsForPod(pod, pvc))
					require.Len(t, pvc.OwnerReferences, 1)
					ref := pvc.OwnerReferences[0]
					require.Equal(t, api.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
						Controller: ref.Controller, BlockOwnerDeletion: ref.BlockOwnerDeletion}, ref)
					require.True(t, *ref.Controller)
					require.True(t, *ref.BlockOwnerDeletion)
					require.Equal(t, map[string]string{"app": "db"}, pvc.Labels, "the template's labels")
					require.Equal(t, "scratch", pvc.Annotations["note"], "the template's annotations")
					require.Equal(t, "1Gi", pvc.Spec.Resources.Requests[api.ResourceStorage].String())
				}
				evs := rec.Strings()
				if tc.wantEvent == "" {
					require.Empty(t, evs)
				} else {
					require.Len(t, evs, 1)
					require.True(t, strings.HasPrefix(evs[0], tc.wantEvent), evs[0])
				}
			})
		})
	}
}
