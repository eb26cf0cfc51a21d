package controlplane_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

const gizmoCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gizmos.crd.ctrlkit.dev}
spec:
  group: crd.ctrlkit.dev
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
---
apiVersion: crd.ctrlkit.dev/v1
kind: Gizmo
metadata: {name: g, namespace: default}
spec: {size: 3}
`

// The whole control plane with a kind a CustomResourceDefinition
// defines, applied from a manifest with the definition: the garbage
// collector finds the kind at its next discovery and deletes the
// dependents of a deleted Gizmo; deleting a namespace deletes its
// gizmos.
func TestCRDKindEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 1})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		objs, err := api.Decode([]byte(gizmoCRD), api.DecodeOptions{Unstructured: true})
		require.NoError(t, err)
		for _, o := range objs {
			require.NoError(t, cp.Apply(ctx, o))
		}
		gizmos, ok := cp.Cluster.DynamicStore(api.GroupVersionKind{Group: "crd.ctrlkit.dev", Version: "v1", Kind: "Gizmo"})
		require.True(t, ok)
		g, _, err := gizmos.Get(ctx, "default/g")
		require.NoError(t, err)
		cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "of-g",
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(g)}}}
		require.NoError(t, cp.Apply(ctx, cm))
		require.NoError(t, cp.Settle(ctx, time.Minute)) // past the collector's discovery period
		synctest.Wait()
		_, err = gizmos.Delete(ctx, "default/g", "")
		require.NoError(t, err)
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		_, _, err = cp.Cluster.ConfigMaps().Get(ctx, "default/of-g")
		require.ErrorIs(t, err, source.ErrNotFound, "the collector deleted the Gizmo's dependent")

		require.NoError(t, cp.Apply(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}))
		_, err = gizmos.Create(ctx, &api.Unstructured{TypeMeta: api.TypeMeta{APIVersion: "crd.ctrlkit.dev/v1", Kind: "Gizmo"},
			ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "x", Finalizers: []string{}}, Content: map[string]any{"spec": map[string]any{"size": int64(1)}}})
		require.NoError(t, err)
		_, err = cp.Cluster.Namespaces().DeleteWith(ctx, "shop", cluster.DeleteOptions{})
		require.NoError(t, err)
		require.NoError(t, cp.Settle(ctx, time.Minute))
		synctest.Wait()
		_, _, err = cp.Cluster.Namespaces().Get(ctx, "shop")
		require.ErrorIs(t, err, source.ErrNotFound, "the namespace is gone")
		_, _, err = gizmos.Get(ctx, "shop/x")
		require.ErrorIs(t, err, source.ErrNotFound)
	})
}
