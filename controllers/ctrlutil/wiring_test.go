package ctrlutil_test

import (
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/stretchr/testify/require"
)

func TestControllerKey(t *testing.T) {
	owned := func(refs ...api.OwnerReference) *api.Job {
		j := &api.Job{}
		j.Namespace, j.Name, j.OwnerReferences = "ns", "j", refs
		return j
	}
	yes := true
	mapFn := ctrlutil.ControllerKey[*api.Job]("CronJob")
	require.Equal(t, []string{"ns/cj"}, mapFn(owned(api.OwnerReference{Kind: "CronJob", Name: "cj", Controller: &yes})))
	require.Empty(t, mapFn(owned()), "an orphan maps to nothing")
	require.Empty(t, mapFn(owned(api.OwnerReference{Kind: "CronJob", Name: "cj"})), "an owner that is not the controller")
	require.Empty(t, mapFn(owned(api.OwnerReference{Kind: "Deployment", Name: "d", Controller: &yes})), "another kind")
}
