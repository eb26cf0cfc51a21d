package disruption_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/disruption"
)

// Decide computes a budget's status from the pods it selects: here a
// Deployment of 3 (its pods' controller, a ReplicaSet, resolves to the
// Deployment's replicas), all Ready, with maxUnavailable 1.
func ExampleDecide() {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	one := api.FromInt32(1)
	pdb := &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web", Generation: 1},
		Spec: api.PodDisruptionBudgetSpec{MaxUnavailable: &one,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	yes := true
	var pods []*api.Pod
	for _, n := range []string{"web-a", "web-b", "web-c"} {
		pods = append(pods, &api.Pod{
			ObjectMeta: api.ObjectMeta{Namespace: "default", Name: n, Labels: map[string]string{"app": "web"},
				OwnerReferences: []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "rs", Controller: &yes}}},
			Status: api.PodStatus{Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}})
	}
	scale := func(ref api.OwnerReference, namespace string) (api.UID, int32, bool, error) {
		return "deployment-web", 3, true, nil // the Deployment behind ReplicaSet web-1
	}
	d := disruption.Decide(pdb, pods, scale, now)
	s := d.Status
	fmt.Printf("expected %d, healthy %d/%d, allowed %d\n", s.ExpectedPods, s.CurrentHealthy, s.DesiredHealthy, s.DisruptionsAllowed)
	fmt.Println(s.Conditions[0].Type, s.Conditions[0].Status, s.Conditions[0].Reason)
	// Output:
	// expected 3, healthy 3/2, allowed 1
	// DisruptionAllowed True SufficientPods
}
