package cluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// Admission sees a delete as kube-apiserver's delete validation does:
// operation DELETE, no object, the stored object as the old one, the
// delete's options; a refusal keeps the object, and a failed
// precondition is reported before admission runs.
func TestAdmissionOnDelete(t *testing.T) {
	errProtected := errors.New("protected")
	var seen []cluster.Attributes
	c := newMemory(t, cluster.Options{
		Mutating: []cluster.MutatingFunc{func(_ context.Context, a cluster.Attributes) error {
			if a.Operation == cluster.OperationDelete {
				seen = append(seen, a)
			}
			return nil
		}},
		Admission: []cluster.AdmissionFunc{func(_ context.Context, a cluster.Attributes) error {
			if a.Operation != cluster.OperationDelete {
				return nil
			}
			seen = append(seen, a)
			if a.OldObject.GetObjectMeta().Labels["protected"] == "true" {
				return errProtected
			}
			return nil
		}},
	})
	ctx := t.Context()
	cm := func(name string, labels map[string]string) *api.ConfigMap {
		return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: labels}}
	}
	_, err := c.ConfigMaps().Create(ctx, cm("keep", map[string]string{"protected": "true"}))
	require.NoError(t, err)
	_, err = c.ConfigMaps().Create(ctx, cm("drop", nil))
	require.NoError(t, err)

	_, err = c.ConfigMaps().DeleteWith(ctx, "default/keep", cluster.DeleteOptions{PropagationPolicy: cluster.DeletePropagationForeground})
	require.ErrorIs(t, err, errProtected)
	_, _, err = c.ConfigMaps().Get(ctx, "default/keep")
	require.NoError(t, err, "a refused delete keeps the object")
	require.Len(t, seen, 2, "the mutating phase, then the validating one")
	for _, a := range seen {
		require.Equal(t, cluster.OperationDelete, a.Operation)
		require.Nil(t, a.Object)
		require.Equal(t, "keep", a.OldObject.GetObjectMeta().Name)
		require.Equal(t, api.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, a.Kind)
		require.Equal(t, "default", a.Namespace)
		require.Equal(t, "keep", a.Name)
		require.Equal(t, "configmaps", a.Resource)
		require.Equal(t, cluster.DeletePropagationForeground, a.DeleteOptions.PropagationPolicy)
	}

	seen = nil
	_, err = c.ConfigMaps().Delete(ctx, "default/drop", "1")
	require.True(t, errors.Is(err, source.ErrConflict), "%v", err)
	require.Empty(t, seen, "a failed precondition fails before admission")
	_, err = c.ConfigMaps().Delete(ctx, "default/drop", "")
	require.NoError(t, err)
	_, _, err = c.ConfigMaps().Get(ctx, "default/drop")
	require.True(t, client.IsNotFound(err), "%v", err)
	require.Len(t, seen, 2)
}
