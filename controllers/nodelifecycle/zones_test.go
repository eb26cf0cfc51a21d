package nodelifecycle_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
)

func readies(ready, notReady int) []*api.NodeCondition {
	var out []*api.NodeCondition
	for range ready {
		out = append(out, &api.NodeCondition{Type: api.NodeReady, Status: api.ConditionTrue})
	}
	for i := range notReady {
		if i%2 == 0 {
			out = append(out, &api.NodeCondition{Type: api.NodeReady, Status: api.ConditionUnknown})
		} else {
			out = append(out, nil) // no Ready condition counts as not ready
		}
	}
	return out
}

func TestComputeZoneState(t *testing.T) {
	tests := []struct {
		ready, notReady int
		want            nodelifecycle.ZoneState
	}{
		{3, 0, nodelifecycle.StateNormal},
		{0, 1, nodelifecycle.StateFullDisruption},
		{0, 3, nodelifecycle.StateFullDisruption},
		{1, 2, nodelifecycle.StateNormal}, // 67% but only two: never partial
		{2, 3, nodelifecycle.StatePartialDisruption},
		{9, 11, nodelifecycle.StatePartialDisruption}, // 55%
		{10, 10, nodelifecycle.StateNormal},           // 50%
		{0, 0, nodelifecycle.StateNormal},
	}
	for _, tt := range tests {
		n, s := nodelifecycle.ComputeZoneState(readies(tt.ready, tt.notReady), nodelifecycle.DefaultUnhealthyZoneThreshold)
		require.Equal(t, tt.want, s, "%d ready, %d not", tt.ready, tt.notReady)
		require.Equal(t, tt.notReady, n)
	}
}

// The zone cases of kcm's TestMonitorNodeHealthEvictPodsWithDisruption
// (pkg/controller/nodelifecycle/node_lifecycle_controller_test.go): what
// the rate limiters become as zones fall and recover.
func TestDisruption(t *testing.T) {
	rates := nodelifecycle.Rates{Eviction: 0.1, Secondary: 0.01, LargeCluster: 50}
	const (
		normal  = nodelifecycle.StateNormal
		full    = nodelifecycle.StateFullDisruption
		partial = nodelifecycle.StatePartialDisruption
	)
	tests := []struct {
		name         string
		prev         map[string]nodelifecycle.ZoneState
		zones        map[string][]*api.NodeCondition
		states       map[string]nodelifecycle.ZoneState
		rates        map[string]float64
		allReachable bool
		reset        bool
	}{
		{name: "new zones start normal at the normal rate", zones: map[string][]*api.NodeCondition{"a": readies(3, 0), "b": readies(2, 1)},
			states: map[string]nodelifecycle.ZoneState{"a": normal, "b": normal}, rates: map[string]float64{"a": 0.1, "b": 0.1}},
		{name: "one zone fully disrupted, another healthy: the disrupted zone keeps the normal rate",
			prev:   map[string]nodelifecycle.ZoneState{"a": normal, "b": normal},
			zones:  map[string][]*api.NodeCondition{"a": readies(0, 2), "b": readies(2, 0)},
			states: map[string]nodelifecycle.ZoneState{"a": full, "b": normal}, rates: map[string]float64{"a": 0.1}},
		{name: "all zones fully disrupted: no tainting, taints removed",
			prev:   map[string]nodelifecycle.ZoneState{"a": normal, "b": normal},
			zones:  map[string][]*api.NodeCondition{"a": readies(0, 2), "b": readies(0, 1)},
			states: map[string]nodelifecycle.ZoneState{"a": full, "b": full}, rates: map[string]float64{"a": 0, "b": 0}, allReachable: true},
		{name: "still all fully disrupted: nothing changes",
			prev:   map[string]nodelifecycle.ZoneState{"a": full, "b": full},
			zones:  map[string][]*api.NodeCondition{"a": readies(0, 2), "b": readies(0, 1)},
			states: map[string]nodelifecycle.ZoneState{"a": full, "b": full}, rates: map[string]float64{}},
		{name: "leaving full disruption resets probes and rates",
			prev:   map[string]nodelifecycle.ZoneState{"a": full, "b": full},
			zones:  map[string][]*api.NodeCondition{"a": readies(1, 1), "b": readies(0, 1)},
			states: map[string]nodelifecycle.ZoneState{"a": normal, "b": full}, rates: map[string]float64{"a": 0.1, "b": 0.1}, reset: true},
		{name: "partial disruption in a small zone stops tainting",
			prev:   map[string]nodelifecycle.ZoneState{"a": normal, "b": normal},
			zones:  map[string][]*api.NodeCondition{"a": readies(2, 4), "b": readies(3, 0)},
			states: map[string]nodelifecycle.ZoneState{"a": partial, "b": normal}, rates: map[string]float64{"a": 0}},
		{name: "partial disruption in a large zone slows tainting",
			prev:   map[string]nodelifecycle.ZoneState{"a": normal, "b": normal},
			zones:  map[string][]*api.NodeCondition{"a": readies(20, 40), "b": readies(3, 0)},
			states: map[string]nodelifecycle.ZoneState{"a": partial, "b": normal}, rates: map[string]float64{"a": 0.01}},
		{name: "a zone recovers", prev: map[string]nodelifecycle.ZoneState{"a": partial, "b": normal},
			zones:  map[string][]*api.NodeCondition{"a": readies(6, 0), "b": readies(3, 0)},
			states: map[string]nodelifecycle.ZoneState{"a": normal, "b": normal}, rates: map[string]float64{"a": 0.1}},
		{name: "a zone without nodes is forgotten", prev: map[string]nodelifecycle.ZoneState{"a": normal, "gone": partial},
			zones:  map[string][]*api.NodeCondition{"a": readies(1, 0)},
			states: map[string]nodelifecycle.ZoneState{"a": normal}, rates: map[string]float64{}},
		{name: "no nodes at all", states: map[string]nodelifecycle.ZoneState{}, rates: map[string]float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := nodelifecycle.Disruption(tt.prev, tt.zones, nodelifecycle.DefaultUnhealthyZoneThreshold, rates)
			require.Equal(t, tt.states, res.States)
			require.Equal(t, tt.rates, res.Rates)
			require.Equal(t, tt.allReachable, res.MarkAllReachable)
			require.Equal(t, tt.reset, res.ResetProbes)
		})
	}
}

func TestZoneKey(t *testing.T) {
	n := &api.Node{}
	require.Equal(t, "", nodelifecycle.ZoneKey(n))
	n.Labels = map[string]string{api.LabelTopologyZone: "z1"}
	require.Equal(t, ":\x00:z1", nodelifecycle.ZoneKey(n))
	n.Labels[api.LabelTopologyRegion] = "r1"
	require.Equal(t, "r1:\x00:z1", nodelifecycle.ZoneKey(n))
}
