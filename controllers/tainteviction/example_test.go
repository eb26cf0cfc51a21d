package tainteviction_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/tainteviction"
)

// Decide is the whole eviction policy: a pod with the default
// 300 s toleration of node.kubernetes.io/unreachable leaves five minutes
// after its node is tainted; one without tolerations leaves at once.
func ExampleDecide() {
	t0 := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	unreachable := []api.Taint{{Key: "node.kubernetes.io/unreachable", Effect: api.TaintEffectNoExecute}}
	seconds := int64(300)
	tolerant := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}}
	tolerant.Spec.Tolerations = []api.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists,
		Effect: api.TaintEffectNoExecute, TolerationSeconds: &seconds}}
	intolerant := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "batch"}}

	for _, p := range []*api.Pod{tolerant, intolerant} {
		d := tainteviction.Decide(p, unreachable, nil, t0)
		fmt.Println(p.Name, "evicted after", d.Schedule.FireAt.Sub(t0))
	}
	// The taint goes before the five minutes are up: cancelled.
	pending := tainteviction.Decide(tolerant, unreachable, nil, t0).Schedule
	d := tainteviction.Decide(tolerant, nil, pending, t0.Add(2*time.Minute))
	fmt.Println("untainted: cancel", d.Cancel)
	// Output:
	// web evicted after 5m0s
	// batch evicted after 0s
	// untainted: cancel true
}
