package ctrlutil_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

// A ReplicaSet scaling down from 3 to 1 deletes the pods
// RankForDeletion puts first: here the one not yet scheduled, then the
// one not ready.
func ExampleRankForDeletion() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ready := api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: api.NewTime(now.Add(-time.Hour))}
	pods := []*api.Pod{
		{ObjectMeta: api.ObjectMeta{Name: "web-ready"}, Spec: api.PodSpec{NodeName: "n1"},
			Status: api.PodStatus{Phase: api.PodRunning, Conditions: []api.PodCondition{ready}}},
		{ObjectMeta: api.ObjectMeta{Name: "web-unscheduled"}, Status: api.PodStatus{Phase: api.PodPending}},
		{ObjectMeta: api.ObjectMeta{Name: "web-starting"}, Spec: api.PodSpec{NodeName: "n2"},
			Status: api.PodStatus{Phase: api.PodRunning}},
	}
	for _, p := range ctrlutil.RankForDeletion(pods, pods, now)[:2] {
		fmt.Println("delete", p.Name)
	}
	// Output:
	// delete web-unscheduled
	// delete web-starting
}
