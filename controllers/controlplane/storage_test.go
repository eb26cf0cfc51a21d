package controlplane_test

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 31: a StatefulSet with volumeClaimTemplates on a default
// WaitForFirstConsumer StorageClass (kind's "standard", which ctrlkit up
// installs) runs: the scheduler picks each pod's node and marks its claim
// (volume.kubernetes.io/selected-node), the PersistentVolume controller
// provisions a volume pinned to that node, the claim binds, then the pod
// is bound and runs — the whole chain of kube's delayed binding.
func TestStatefulSetClaimsWaitForFirstConsumer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 3})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()

		objs, err := api.Decode([]byte(`
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Delete
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: db, image: postgres}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`), api.DecodeOptions{})
		require.NoError(t, err)
		require.NoError(t, cp.Apply(ctx, objs...))
		require.NoError(t, cp.Settle(ctx, 0))

		pods, err := client.For[*api.Pod](cp.Cluster)
		require.NoError(t, err)
		claims, err := client.For[*api.PersistentVolumeClaim](cp.Cluster)
		require.NoError(t, err)
		volumes, err := client.For[*api.PersistentVolume](cp.Cluster)
		require.NoError(t, err)
		for i := range 2 {
			pod, _, err := pods.Get(ctx, fmt.Sprintf("default/db-%d", i))
			require.NoError(t, err)
			require.NotEmpty(t, pod.Spec.NodeName, "db-%d is scheduled", i)
			require.Equal(t, api.PodRunning, pod.Status.Phase, "db-%d runs", i)
			pvc, _, err := claims.Get(ctx, fmt.Sprintf("default/data-db-%d", i))
			require.NoError(t, err)
			require.Equal(t, api.PersistentVolumeClaimPhase("Bound"), pvc.Status.Phase)
			require.Equal(t, pod.Spec.NodeName, pvc.Annotations["volume.kubernetes.io/selected-node"],
				"the claim was provisioned on the node the scheduler chose")
			require.NotNil(t, pvc.Spec.StorageClassName)
			require.Equal(t, "standard", *pvc.Spec.StorageClassName, "the default class")
			pv, _, err := volumes.Get(ctx, pvc.Spec.VolumeName)
			require.NoError(t, err)
			require.NotNil(t, pv.Spec.NodeAffinity, "a local volume is pinned to its node")
			term := pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0]
			require.Equal(t, "kubernetes.io/hostname", term.Key)
			require.Len(t, term.Values, 1)
		}
		l, err := volumes.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 2, "one volume per claim")
	})
}
