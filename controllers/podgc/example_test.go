package podgc_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
)

// Decide is the collector's whole policy, a function of what the caches
// hold and the time.
func ExampleDecide() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	finished := func(name string, age time.Duration) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, CreationTimestamp: api.NewTime(now.Add(-age))}}
		p.Spec.NodeName, p.Status.Phase = "n1", api.PodSucceeded
		return p
	}
	pods := []*api.Pod{finished("job-a", time.Hour), finished("job-b", 2*time.Hour), finished("job-c", 3*time.Hour)}
	d := podgc.Decide(pods, func(string) bool { return true }, nil, 2, podgc.DefaultQuarantine, now)
	for _, del := range d.Delete {
		fmt.Println(del.Pod.Name, del.Reason)
	}
	// Output: job-c Terminated
}
