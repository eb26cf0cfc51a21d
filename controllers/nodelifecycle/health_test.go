package nodelifecycle_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
)

var (
	fakeNow  = time.Date(2015, 1, 1, 12, 0, 0, 0, time.UTC)
	longAgo  = time.Date(2012, 1, 1, 0, 0, 0, 0, time.UTC)
	defaults = nodelifecycle.Graces{Monitor: nodelifecycle.DefaultMonitorGracePeriod, Startup: nodelifecycle.DefaultStartupGracePeriod}
)

func at(t time.Time) api.Time { return api.NewTime(t) }

func testNode(created time.Time, conds ...api.NodeCondition) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node0", CreationTimestamp: at(created)}}
	n.Status.Conditions = conds
	return n
}

func cond(t api.NodeConditionType, s api.ConditionStatus, heartbeat, transition time.Time) api.NodeCondition {
	return api.NodeCondition{Type: t, Status: s, LastHeartbeatTime: at(heartbeat), LastTransitionTime: at(transition)}
}

func lease(renew time.Time) *api.Lease {
	l := &api.Lease{ObjectMeta: api.ObjectMeta{Namespace: nodelifecycle.NamespaceNodeLease, Name: "node0"}}
	mt := api.NewMicroTime(renew)
	l.Spec.RenewTime = &mt
	return l
}

// The cases of kcm's TestMonitorNodeHealthUpdateStatus and
// TestMonitorNodeHealthUpdateNodeAndPodStatusWithLease
// (pkg/controller/nodelifecycle/node_lifecycle_controller_test.go), as
// one pass over explicit instants with what the earlier pass remembered.
func TestObserveHealth(t *testing.T) {
	readyTrue := cond(api.NodeReady, api.ConditionTrue, fakeNow, fakeNow)
	diskFalse := cond(api.NodeDiskPressure, api.ConditionFalse, fakeNow, fakeNow)
	seen := func(probe time.Time, ready *api.NodeCondition) *nodelifecycle.Health {
		return &nodelifecycle.Health{ProbeTime: probe, ReadyTransitionTime: probe, Ready: ready}
	}
	unknown := func(t api.NodeConditionType, heartbeat time.Time, reason, msg string, transition time.Time) api.NodeCondition {
		c := cond(t, api.ConditionUnknown, heartbeat, transition)
		c.Reason, c.Message = reason, msg
		return c
	}
	later := fakeNow.Add(time.Hour)
	tests := []struct {
		name  string
		node  *api.Node
		lease *api.Lease
		saved *nodelifecycle.Health
		now   time.Time
		want  []api.NodeCondition // nil: no status write
		probe time.Time
		ready api.ConditionStatus // of Current; "" for nil
	}{
		{name: "node created recently, without status", node: testNode(fakeNow), now: fakeNow, probe: fakeNow},
		{name: "node without status within the startup grace period", node: testNode(fakeNow.Add(-55 * time.Second)), now: fakeNow,
			probe: fakeNow.Add(-55 * time.Second)},
		{name: "node created long time ago, without status", node: testNode(longAgo), now: fakeNow, probe: longAgo,
			want: []api.NodeCondition{
				unknown(api.NodeReady, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, fakeNow),
				unknown(api.NodeMemoryPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, fakeNow),
				unknown(api.NodeDiskPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, fakeNow),
				unknown(api.NodePIDPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, fakeNow),
			}, ready: api.ConditionUnknown},
		{name: "node created long time ago, with status updated by kubelet exceeds grace period",
			node: testNode(longAgo, readyTrue, diskFalse), saved: seen(fakeNow, &readyTrue), now: later, probe: fakeNow,
			want: []api.NodeCondition{
				unknown(api.NodeReady, fakeNow, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown, later),
				unknown(api.NodeDiskPressure, fakeNow, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown, later),
				unknown(api.NodeMemoryPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, later),
				unknown(api.NodePIDPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, later),
			}, ready: api.ConditionUnknown},
		{name: "node created long time ago, with status updated recently",
			node: testNode(longAgo, readyTrue), saved: seen(fakeNow, &readyTrue), now: fakeNow.Add(10 * time.Second), probe: fakeNow,
			ready: api.ConditionTrue},
		{name: "exactly at the end of the grace period it is still healthy",
			node: testNode(longAgo, readyTrue), saved: seen(fakeNow, &readyTrue), now: fakeNow.Add(50 * time.Second), probe: fakeNow,
			ready: api.ConditionTrue},
		{name: "a new heartbeat moves the probe time to the controller's now, whatever the kubelet's clock says",
			node:  testNode(longAgo, cond(api.NodeReady, api.ConditionTrue, longAgo.Add(time.Second), longAgo)),
			saved: seen(fakeNow, ptr(cond(api.NodeReady, api.ConditionTrue, longAgo, longAgo))), now: later, probe: later,
			ready: api.ConditionTrue},
		{name: "node created long time ago, first observation", node: testNode(longAgo, readyTrue), now: later, probe: later,
			ready: api.ConditionTrue},
		{name: "node status not updated, but the lease was renewed",
			node: testNode(longAgo, readyTrue), lease: lease(later.Add(-time.Second)),
			saved: &nodelifecycle.Health{ProbeTime: fakeNow, Ready: &readyTrue, LeaseRenewTime: fakeNow, HasLease: true},
			now:   later, probe: later, ready: api.ConditionTrue},
		{name: "neither the node status nor the lease was renewed",
			node: testNode(longAgo, readyTrue), lease: lease(fakeNow),
			saved: &nodelifecycle.Health{ProbeTime: fakeNow, Ready: &readyTrue, LeaseRenewTime: fakeNow, HasLease: true},
			now:   later, probe: fakeNow, ready: api.ConditionUnknown,
			want: []api.NodeCondition{
				unknown(api.NodeReady, fakeNow, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown, later),
				unknown(api.NodeMemoryPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, later),
				unknown(api.NodeDiskPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, later),
				unknown(api.NodePIDPressure, longAgo, nodelifecycle.ReasonNodeStatusNeverUpdated, nodelifecycle.MessageNodeStatusNeverPosted, later),
			}},
		{name: "a node already Unknown is not written again",
			node:  testNode(longAgo, unknown(api.NodeReady, fakeNow, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown, fakeNow)),
			saved: seen(fakeNow, ptr(unknown(api.NodeReady, fakeNow, nodelifecycle.ReasonNodeStatusUnknown, nodelifecycle.MessageNodeStatusUnknown, fakeNow))),
			now:   later, probe: fakeNow, ready: api.ConditionUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.node.DeepCopy()
			obs := nodelifecycle.ObserveHealth(tt.node, tt.lease, tt.saved, defaults, tt.now)
			require.Equal(t, before, tt.node, "the node is not modified")
			require.True(t, obs.Health.ProbeTime.Equal(tt.probe), "probe time %v, want %v", obs.Health.ProbeTime, tt.probe)
			if tt.want == nil {
				require.Nil(t, obs.Status)
			} else {
				require.NotNil(t, obs.Status)
				require.ElementsMatch(t, tt.want, obs.Status.Conditions)
				require.True(t, obs.AfterWrite.ReadyTransitionTime.Equal(tt.now))
			}
			if tt.ready == "" {
				require.Nil(t, obs.Current)
			} else {
				require.Equal(t, tt.ready, obs.Current.Status)
			}
		})
	}
}

func ptr[V any](v V) *V { return &v }
