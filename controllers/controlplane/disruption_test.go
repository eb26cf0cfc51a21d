package controlplane_test

import (
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
)

// Issue 31: the disruption controller runs in the control plane. A
// Deployment of 3 with a PodDisruptionBudget minAvailable 2 allows one
// disruption, as on a real cluster.
func TestDisruptionBudgetStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()

		objs, err := api.Decode([]byte(`
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
`), api.DecodeOptions{})
		require.NoError(t, err)
		require.NoError(t, cp.Apply(ctx, objs...))
		require.NoError(t, cp.Settle(ctx, 0))

		pdbs, err := client.For[*api.PodDisruptionBudget](cp.Cluster)
		require.NoError(t, err)
		b, _, err := pdbs.Get(ctx, "default/web")
		require.NoError(t, err)
		require.Equal(t, int32(3), b.Status.ExpectedPods)
		require.Equal(t, int32(3), b.Status.CurrentHealthy)
		require.Equal(t, int32(2), b.Status.DesiredHealthy)
		require.Equal(t, int32(1), b.Status.DisruptionsAllowed)
		require.Equal(t, b.Generation, b.Status.ObservedGeneration)
		require.Len(t, b.Status.Conditions, 1)
		require.Equal(t, "DisruptionAllowed", b.Status.Conditions[0].Type)
		require.Equal(t, api.ConditionTrue, b.Status.Conditions[0].Status)
		require.Equal(t, "SufficientPods", b.Status.Conditions[0].Reason)
	})
}
