package nodelifecycle_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/nodelifecycle"
)

// ObserveHealth decides, from the node, its Lease and what the previous
// pass remembered, whether the node has gone silent for too long.
func ExampleObserveHealth() {
	start := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1", CreationTimestamp: api.NewTime(start.Add(-time.Hour))}}
	node.Status.Conditions = []api.NodeCondition{{Type: api.NodeReady, Status: api.ConditionTrue,
		LastHeartbeatTime: api.NewTime(start), LastTransitionTime: api.NewTime(start.Add(-time.Hour))}}
	graces := nodelifecycle.Graces{Monitor: nodelifecycle.DefaultMonitorGracePeriod, Startup: nodelifecycle.DefaultStartupGracePeriod}

	// First pass: the heartbeat is news.
	obs := nodelifecycle.ObserveHealth(node, nil, nil, graces, start)
	fmt.Println("at 0s:", obs.Current.Status, "write:", obs.Status != nil)

	// Nothing heard since: still within the 50 s grace, then past it.
	h := obs.Health
	obs = nodelifecycle.ObserveHealth(node, nil, &h, graces, start.Add(50*time.Second))
	fmt.Println("at 50s:", obs.Current.Status, "write:", obs.Status != nil)
	obs = nodelifecycle.ObserveHealth(node, nil, &h, graces, start.Add(55*time.Second))
	fmt.Println("at 55s:", obs.Current.Status, "write:", obs.Status != nil)
	for _, c := range obs.Status.Conditions {
		fmt.Printf("  %s=%s %s\n", c.Type, c.Status, c.Reason)
	}
	// Output:
	// at 0s: True write: false
	// at 50s: True write: false
	// at 55s: Unknown write: true
	//   Ready=Unknown NodeStatusUnknown
	//   MemoryPressure=Unknown NodeStatusNeverUpdated
	//   DiskPressure=Unknown NodeStatusNeverUpdated
	//   PIDPressure=Unknown NodeStatusNeverUpdated
}
