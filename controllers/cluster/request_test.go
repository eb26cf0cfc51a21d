package cluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/stretchr/testify/require"
)

// A write made under admission.WithRequest carries its requester into
// the admission plugins' Attributes.UserInfo, and the request's own
// checks run after the plugins; a write without one has neither.
func TestAdmissionRequest(t *testing.T) {
	ctx := t.Context()
	var seen []admission.UserInfo
	c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{
		func(_ context.Context, a cluster.Attributes) error {
			if a.Resource == "configmaps" {
				seen = append(seen, a.UserInfo)
			}
			return nil
		},
	}})
	require.NoError(t, err)
	jane := admission.UserInfo{Username: "jane", Groups: []string{"system:authenticated"}}
	var checked []admission.Operation
	check := func(_ context.Context, a cluster.Attributes) error {
		checked = append(checked, a.Operation)
		if a.Name == "refused" {
			return errors.New("the request's check says no")
		}
		return nil
	}
	rctx := admission.WithRequest(ctx, jane, check)
	cms := c.ConfigMaps()
	_, err = cms.Create(rctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a", Namespace: "default"}})
	require.NoError(t, err)
	_, err = cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "b", Namespace: "default"}})
	require.NoError(t, err)
	_, err = cms.Create(rctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "refused", Namespace: "default"}})
	require.ErrorContains(t, err, "the request's check says no")
	require.Equal(t, []admission.UserInfo{jane, {}, jane}, seen)
	require.Equal(t, []admission.Operation{admission.Create, admission.Create}, checked)
	_, _, err = cms.Get(ctx, "default/refused")
	require.Error(t, err, "nothing stored")
}
