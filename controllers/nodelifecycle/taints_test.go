package nodelifecycle_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
)

func noSchedule(key string) api.Taint { return api.Taint{Key: key, Effect: api.TaintEffectNoSchedule} }

// The cases of kcm's TestTaintsNodeByCondition
// (pkg/controller/nodelifecycle/node_lifecycle_controller_test.go), plus
// spec.unschedulable and taints the controller does not own.
func TestNoScheduleTaints(t *testing.T) {
	c := func(t api.NodeConditionType, s api.ConditionStatus) api.NodeCondition {
		return api.NodeCondition{Type: t, Status: s}
	}
	ready := c(api.NodeReady, api.ConditionTrue)
	foreign := api.Taint{Key: "dedicated", Value: "gpu", Effect: api.TaintEffectNoSchedule}
	tests := []struct {
		name          string
		conds         []api.NodeCondition
		unschedulable bool
		taints        []api.Taint
		add, remove   []api.Taint
	}{
		{name: "NetworkUnavailable is true", conds: []api.NodeCondition{ready, c(api.NodeNetworkUnavailable, api.ConditionTrue)},
			add: []api.Taint{noSchedule(api.TaintNodeNetworkUnavailable)}},
		{name: "NetworkUnavailable is true, taint already there", conds: []api.NodeCondition{ready, c(api.NodeNetworkUnavailable, api.ConditionTrue)},
			taints: []api.Taint{noSchedule(api.TaintNodeNetworkUnavailable)}},
		{name: "NetworkUnavailable and MemoryPressure are true",
			conds: []api.NodeCondition{ready, c(api.NodeNetworkUnavailable, api.ConditionTrue), c(api.NodeMemoryPressure, api.ConditionTrue)},
			add:   []api.Taint{noSchedule(api.TaintNodeNetworkUnavailable), noSchedule(api.TaintNodeMemoryPressure)}},
		{name: "Ready is false", conds: []api.NodeCondition{c(api.NodeReady, api.ConditionFalse)},
			add: []api.Taint{noSchedule(api.TaintNodeNotReady)}},
		{name: "Ready is unknown", conds: []api.NodeCondition{c(api.NodeReady, api.ConditionUnknown)},
			add: []api.Taint{noSchedule(api.TaintNodeUnreachable)}},
		{name: "Ready again: the unreachable taint goes, a foreign one stays", conds: []api.NodeCondition{ready},
			taints: []api.Taint{noSchedule(api.TaintNodeUnreachable), foreign},
			remove: []api.Taint{noSchedule(api.TaintNodeUnreachable)}},
		{name: "pressure conditions", conds: []api.NodeCondition{ready, c(api.NodeDiskPressure, api.ConditionTrue), c(api.NodePIDPressure, api.ConditionTrue), c(api.NodeMemoryPressure, api.ConditionFalse)},
			taints: []api.Taint{noSchedule(api.TaintNodeMemoryPressure)},
			add:    []api.Taint{noSchedule(api.TaintNodeDiskPressure), noSchedule(api.TaintNodePIDPressure)},
			remove: []api.Taint{noSchedule(api.TaintNodeMemoryPressure)}},
		{name: "cordoned", conds: []api.NodeCondition{ready}, unschedulable: true,
			add: []api.Taint{noSchedule(api.TaintNodeUnschedulable)}},
		{name: "uncordoned", conds: []api.NodeCondition{ready},
			taints: []api.Taint{noSchedule(api.TaintNodeUnschedulable)},
			remove: []api.Taint{noSchedule(api.TaintNodeUnschedulable)}},
		{name: "NoExecute taints are not this pass's", conds: []api.NodeCondition{ready},
			taints: []api.Taint{nodelifecycle.UnreachableTaint}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &api.Node{}
			n.Status.Conditions, n.Spec.Unschedulable, n.Spec.Taints = tt.conds, tt.unschedulable, tt.taints
			add, remove := nodelifecycle.NoScheduleTaints(n)
			require.Equal(t, tt.add, add)
			require.Equal(t, tt.remove, remove)
		})
	}
}

// kcm's processTaintBaseEviction, by observed Ready status and taints.
func TestNoExecuteDecision(t *testing.T) {
	tests := []struct {
		status api.ConditionStatus
		taints []api.Taint
		want   nodelifecycle.NoExecuteAction
	}{
		{api.ConditionTrue, nil, nodelifecycle.MarkReachable},
		{api.ConditionTrue, []api.Taint{nodelifecycle.UnreachableTaint}, nodelifecycle.MarkReachable},
		{api.ConditionFalse, nil, nodelifecycle.QueueNotReady},
		{api.ConditionFalse, []api.Taint{nodelifecycle.NotReadyTaint}, nodelifecycle.QueueNotReady},
		{api.ConditionFalse, []api.Taint{nodelifecycle.UnreachableTaint}, nodelifecycle.SwapToNotReady},
		{api.ConditionUnknown, nil, nodelifecycle.QueueUnreachable},
		{api.ConditionUnknown, []api.Taint{nodelifecycle.NotReadyTaint}, nodelifecycle.SwapToUnreachable},
		{api.ConditionUnknown, []api.Taint{noSchedule(api.TaintNodeNotReady)}, nodelifecycle.QueueUnreachable},
		{"", nil, nodelifecycle.NoExecuteNone},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, nodelifecycle.NoExecuteDecision(tt.status, tt.taints), "%s %v", tt.status, tt.taints)
	}
	add, remove, ok := nodelifecycle.TaintForReady(api.ConditionUnknown)
	require.True(t, ok)
	require.Equal(t, nodelifecycle.UnreachableTaint, add)
	require.Equal(t, nodelifecycle.NotReadyTaint, remove)
	_, _, ok = nodelifecycle.TaintForReady(api.ConditionTrue)
	require.False(t, ok)
}
