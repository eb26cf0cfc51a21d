package api_test

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func TestSetCondition(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var conds []api.Condition
	if !api.SetCondition(&conds, api.Condition{Type: "Ready", Status: api.ConditionFalse, Reason: "Starting"}, t0) {
		t.Fatal("adding a condition changed nothing")
	}
	if api.SetCondition(&conds, api.Condition{Type: "Ready", Status: api.ConditionFalse, Reason: "Starting"}, t0.Add(time.Minute)) {
		t.Fatal("setting the same condition changed something")
	}
	if !api.SetCondition(&conds, api.Condition{Type: "Ready", Status: api.ConditionFalse, Reason: "Scaling", ObservedGeneration: 2}, t0.Add(time.Minute)) {
		t.Fatal("a new reason changed nothing")
	}
	if c := api.FindCondition(conds, "Ready"); !c.LastTransitionTime.Equal(t0) || c.Reason != "Scaling" || c.ObservedGeneration != 2 {
		t.Fatalf("without a status change: %+v; want the first transition time kept", c)
	}
	api.SetCondition(&conds, api.Condition{Type: "Ready", Status: api.ConditionTrue}, t0.Add(2*time.Minute))
	if c := api.FindCondition(conds, "Ready"); !c.LastTransitionTime.Equal(t0.Add(2*time.Minute)) || len(conds) != 1 {
		t.Fatalf("after a status change: %+v (%d conditions)", c, len(conds))
	}
	if api.FindCondition(conds, "Other") != nil {
		t.Fatal("FindCondition found a missing type")
	}
}
