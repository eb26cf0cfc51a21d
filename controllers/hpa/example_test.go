package hpa_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/hpa"
)

// The pure core: three ready pods requesting 1 cpu and using 300m, 500m
// and 700m on a 30% target want 5 replicas; the default behavior lets
// 3 grow to 5 at once (the larger of +4 pods and +100%).
func ExampleResourceReplicas() {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	start := api.NewTime(now.Add(-time.Hour))
	var pods []*api.Pod
	metrics := map[string]hpa.PodMetric{}
	for i, use := range []int64{300, 500, 700} {
		name := fmt.Sprintf("web-%d", i)
		pods = append(pods, &api.Pod{ObjectMeta: api.ObjectMeta{Name: name},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx",
				Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": api.MustParse("1")}}}}},
			Status: api.PodStatus{Phase: api.PodRunning, StartTime: &start,
				Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: start}}}})
		metrics[name] = hpa.PodMetric{Value: use, Timestamp: now, Window: 30 * time.Second}
	}
	n, util, _, err := hpa.ResourceReplicas(3, 30, pods, metrics, api.ResourceCPU,
		hpa.Tolerance{ScaleDown: hpa.DefaultTolerance, ScaleUp: hpa.DefaultTolerance},
		hpa.Readiness{CPUInitializationPeriod: hpa.DefaultCPUInitializationPeriod, InitialReadinessDelay: hpa.DefaultInitialReadinessDelay}, now)
	if err != nil {
		panic(err)
	}
	fmt.Printf("utilization %d%%, desired %d\n", util, n)
	var s hpa.State
	got, limit := s.Normalize(now, hpa.DefaultBehavior(nil), 3, n, 1, 10)
	fmt.Println("after the behavior:", got, limit.LimitedReason)
	// Output:
	// utilization 50%, desired 5
	// after the behavior: 5 DesiredWithinRange
}
