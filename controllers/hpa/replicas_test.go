package hpa

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

// runningPod is a pod started long ago, ready since shortly after.
func runningPod(name string, requestMilli int64, ready bool) *api.Pod {
	start := api.NewTime(t0.Add(-10 * time.Minute))
	status := api.ConditionTrue
	if !ready {
		status = api.ConditionFalse
	}
	return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "x",
			Resources: api.ResourceRequirements{Requests: api.ResourceList{"cpu": api.NewMilliQuantity(requestMilli, api.DecimalSI)}}}}},
		Status: api.PodStatus{Phase: api.PodRunning, StartTime: &start,
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: status, LastTransitionTime: api.NewTime(start.Add(10 * time.Second))}}}}
}

func sample(v int64) PodMetric { return PodMetric{Value: v, Timestamp: t0, Window: 30 * time.Second} }

var defaultReadiness = Readiness{CPUInitializationPeriod: DefaultCPUInitializationPeriod, InitialReadinessDelay: DefaultInitialReadinessDelay}

// Cases in the shape of kcm's replica_calculator_test.go
// (TestReplicaCalcScaleUp, …UnreadyLessScale, …UnreadyNoScale,
// …ScaleDown, …Tolerance, …MissingMetrics…), their expectations worked
// out by hand from the algorithm.
func TestResourceReplicas(t *testing.T) {
	tol := Tolerance{ScaleDown: 0.1, ScaleUp: 0.1}
	three := func(r0, r1, r2 bool) []*api.Pod {
		return []*api.Pod{runningPod("p0", 1000, r0), runningPod("p1", 1000, r1), runningPod("p2", 1000, r2)}
	}
	deleting := runningPod("gone", 1000, true)
	dt := api.NewTime(t0)
	deleting.DeletionTimestamp = &dt
	pending := runningPod("pending", 1000, false)
	pending.Status.Phase = api.PodPending
	fresh := runningPod("fresh", 1000, true)
	freshStart := api.NewTime(t0.Add(-40 * time.Second))
	fresh.Status.StartTime = &freshStart
	fresh.Status.Conditions[0].LastTransitionTime = api.NewTime(t0.Add(-10 * time.Second)) // ready less than a window ago
	tests := []struct {
		name    string
		current int32
		target  int32
		pods    []*api.Pod
		usage   map[string]int64
		want    int32
		util    int32
		wantErr bool
	}{
		{"scale up", 3, 30, three(true, true, true), map[string]int64{"p0": 300, "p1": 500, "p2": 700}, 5, 50, false},
		{"unready pod: less scale", 3, 30, three(false, true, true), map[string]int64{"p0": 300, "p1": 500, "p2": 700}, 4, 60, false},
		{"unready pods: no scale", 3, 30, three(true, false, false), map[string]int64{"p0": 400, "p1": 500, "p2": 700}, 3, 40, false},
		{"scale down", 5, 50, []*api.Pod{runningPod("p0", 1000, true), runningPod("p1", 1000, true), runningPod("p2", 1000, true), runningPod("p3", 1000, true), runningPod("p4", 1000, true)},
			map[string]int64{"p0": 100, "p1": 300, "p2": 500, "p3": 250, "p4": 250}, 3, 28, false},
		{"within tolerance", 3, 100, []*api.Pod{runningPod("p0", 900, true), runningPod("p1", 1000, true), runningPod("p2", 1100, true)},
			map[string]int64{"p0": 1010, "p1": 1030, "p2": 1020}, 3, 102, false},
		{"missing metric damps a scale-down", 4, 50, append(three(true, true, true), runningPod("p3", 1000, true)),
			map[string]int64{"p0": 100, "p1": 100, "p2": 100}, 3, 10, false},
		{"missing metric damps a scale-up", 3, 50, three(true, true, true), map[string]int64{"p0": 900, "p1": 900}, 4, 90, false},
		{"deleting and pending pods do not count", 3, 50, []*api.Pod{deleting, pending, runningPod("p2", 1000, true)},
			map[string]int64{"gone": 1000, "p2": 500}, 3, 50, false},
		{"fresh pod's sample predates a window of readiness", 2, 50, []*api.Pod{fresh, runningPod("p1", 1000, true)},
			map[string]int64{"fresh": 1000, "p1": 1000}, 2, 100, false},
		{"no metrics", 2, 50, []*api.Pod{pending}, map[string]int64{}, 0, 0, true},
		{"no pods", 2, 50, nil, nil, 0, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]PodMetric{}
			for k, v := range tt.usage {
				m[k] = sample(v)
			}
			got, util, _, err := ResourceReplicas(tt.current, tt.target, tt.pods, m, api.ResourceCPU, tol, defaultReadiness, t0)
			if tt.wantErr {
				if !errors.Is(err, ErrNoMetrics) {
					t.Fatalf("err %v, want ErrNoMetrics", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || util != tt.util {
				t.Errorf("replicas %d utilization %d, want %d and %d", got, util, tt.want, tt.util)
			}
		})
	}
	// A pod without a request cannot be measured.
	noReq := runningPod("p", 0, true)
	noReq.Spec.Containers[0].Resources = api.ResourceRequirements{}
	if _, _, _, err := ResourceReplicas(1, 50, []*api.Pod{noReq}, map[string]PodMetric{"p": sample(1)}, api.ResourceCPU, tol, defaultReadiness, t0); err == nil {
		t.Error("no error for a pod without a request")
	}
}

func int32p(v int32) *int32 { return &v }

// Cases in the shape of kcm's horizontal_test.go
// (TestNormalizeDesiredReplicasWithBehavior, TestScalingWithRules):
// the rate policies and bounds, over explicit instants.
func TestNormalizeRates(t *testing.T) {
	def := DefaultBehavior(nil)
	podsDown := DefaultBehavior(&api.HorizontalPodAutoscalerBehavior{ScaleDown: &api.HPAScalingRules{
		StabilizationWindowSeconds: int32p(0), Policies: []api.HPAScalingPolicy{{Type: PodsPolicy, Value: 1, PeriodSeconds: 60}}}})
	disabled := SelectDisable
	noDown := DefaultBehavior(&api.HorizontalPodAutoscalerBehavior{ScaleDown: &api.HPAScalingRules{StabilizationWindowSeconds: int32p(0), SelectPolicy: &disabled}})
	type step struct {
		at                      time.Duration
		current, desired        int32
		want                    int32
		reason                  string
		recordFromCurrentToWant bool
	}
	tests := []struct {
		name     string
		b        api.HorizontalPodAutoscalerBehavior
		min, max int32
		steps    []step
	}{
		{"up from 1: 4 pods beat 100%", def, 1, 100, []step{{0, 1, 10, 5, "ScaleUpLimit", false}}},
		{"up from 5: 100% beats 4 pods", def, 1, 100, []step{{0, 5, 20, 10, "ScaleUpLimit", false}}},
		{"within a period of a scale-up the budget is spent", def, 1, 100, []step{
			{0, 1, 20, 5, "ScaleUpLimit", true},
			{10 * time.Second, 5, 20, 5, "ScaleUpLimit", false},
			{16 * time.Second, 5, 20, 10, "ScaleUpLimit", true},
			{32 * time.Second, 10, 20, 20, "DesiredWithinRange", true},
		}},
		{"max bounds", def, 1, 7, []step{{0, 5, 20, 7, "TooManyReplicas", false}}},
		{"min bounds", podsDown, 3, 10, []step{{0, 4, 1, 3, "TooFewReplicas", false}}},
		{"one pod per minute down", podsDown, 1, 10, []step{
			{0, 5, 1, 4, "ScaleDownLimit", true},
			{15 * time.Second, 4, 1, 4, "ScaleDownLimit", false},
			{61 * time.Second, 4, 1, 3, "ScaleDownLimit", true},
		}},
		{"scale-down disabled", noDown, 1, 10, []step{{0, 5, 1, 5, "ScaleDownLimit", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s State
			for i, st := range tt.steps {
				got, l := s.Normalize(t0.Add(st.at), tt.b, st.current, st.desired, tt.min, tt.max)
				if got != st.want || l.LimitedReason != st.reason {
					t.Fatalf("step %d: %d (%s), want %d (%s)", i, got, l.LimitedReason, st.want, st.reason)
				}
				if st.recordFromCurrentToWant {
					s.RecordScale(t0.Add(st.at), tt.b, st.current, got)
				}
			}
		})
	}
}

// The default scale-down stabilization: the highest recommendation of
// the last 300 s wins, the window starting with the current count.
func TestStabilization(t *testing.T) {
	b := DefaultBehavior(nil)
	var s State
	var trace []string
	last := int32(-1)
	for at := time.Duration(0); at <= 390*time.Second; at += 15 * time.Second {
		desired := int32(2)
		if at == 60*time.Second {
			desired = 8 // a short spike
		}
		got, _ := s.Normalize(t0.Add(at), b, 10, desired, 1, 10)
		if got != last {
			trace = append(trace, fmt.Sprintf("%v:%d", at, got))
			last = got
		}
	}
	// Until 300 s the initial 10 holds; then the spike (8, recorded at
	// 60 s) is the highest, until it leaves the window at 360 s.
	want := []string{"0s:10", "5m0s:8", "6m0s:2"}
	if fmt.Sprint(trace) != fmt.Sprint(want) {
		t.Errorf("trace %v, want %v", trace, want)
	}
}
