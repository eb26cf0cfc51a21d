package deployment

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// status.terminatingReplicas, on by default since v1.35
// (DeploymentReplicaSetTerminatingReplicas beta): the sum over the
// ReplicaSets, unset while one has none. Cases after kube's
// pkg/controller/deployment/util/deployment_util_test.go
// (TestGetTerminatingReplicaCountForReplicaSets).
func TestTerminatingReplicas(t *testing.T) {
	rs := func(n *int32) *api.ReplicaSet {
		return &api.ReplicaSet{Status: api.ReplicaSetStatus{TerminatingReplicas: n}}
	}
	tests := []struct {
		name string
		sets []*api.ReplicaSet
		want *int32
	}{
		{"no replica sets", nil, new(int32(0))},
		{"one with 2", []*api.ReplicaSet{rs(new(int32(2)))}, new(int32(2))},
		{"summed", []*api.ReplicaSet{rs(new(int32(1))), rs(new(int32(3))), nil}, new(int32(4))},
		{"one unset", []*api.ReplicaSet{rs(new(int32(1))), rs(nil)}, nil},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, terminatingReplicas(tt.sets), tt.name)
	}
	s := &state{d: &api.Deployment{}}
	st := s.calculateStatus([]*api.ReplicaSet{rs(new(int32(1))), rs(new(int32(2)))}, rs(new(int32(2))))
	require.Equal(t, new(int32(3)), st.TerminatingReplicas, "the deployment's status carries it")
}
