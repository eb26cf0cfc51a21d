package hpa

import (
	"fmt"
	"math"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// podsOf returns n running pods p0…p(n-1), ready unless listed in unready.
func podsOf(n int, unready ...int) []*api.Pod {
	var pods []*api.Pod
	for i := range n {
		ready := true
		for _, u := range unready {
			if u == i {
				ready = false
			}
		}
		pods = append(pods, runningPod(fmt.Sprintf("p%d", i), 1000, ready))
	}
	return pods
}

// Ported from k8s.io/kubernetes/pkg/controller/podautoscaler/
// replica_calculator_test.go, TestReplicaCalcPodMetric: the pods'
// readiness does not matter for a metric other than cpu.
func TestPodsMetricReplicas(t *testing.T) {
	def := Tolerance{ScaleDown: 0.1, ScaleUp: 0.1}
	tests := []struct {
		name    string
		current int32
		pods    []*api.Pod
		levels  []int64
		target  int64
		tol     Tolerance
		want    int32
		usage   int64
	}{
		{"scale up", 3, podsOf(3), []int64{20000, 10000, 30000}, 15000, def, 4, 20000},
		{"scale up: unready hot-CPU pod scales less", 3, podsOf(3, 2), []int64{50000, 10000, 30000}, 15000, def, 6, 30000},
		{"scale up: unready hot-CPU pods avoid scale-down", 3, podsOf(3, 0, 2), []int64{50000, 15000, 30000}, 15000, def, 7, 31666},
		{"scale down", 5, podsOf(5), []int64{12000, 12000, 12000, 12000, 12000}, 20000, def, 3, 12000},
		{"within default tolerance", 3, podsOf(3), []int64{20000, 21000, 21000}, 20000, def, 3, 20666},
		{"outside configurable 1% tolerance", 3, podsOf(3), []int64{20000, 21000, 21000}, 20000, Tolerance{ScaleDown: 0.1, ScaleUp: 0.01}, 4, 20666},
		{"no change: missing metrics", 5, podsOf(5), []int64{20000, 19000, 21000}, 20000, def, 5, 20000},
		{"rolling update with maxSurge: extra pod missing metric", 2, podsOf(3), []int64{10000, 10000}, 17000, def, 2, 10000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := map[string]PodMetric{}
			for i, v := range tt.levels {
				m[fmt.Sprintf("p%d", i)] = sample(v)
			}
			got, usage, err := PodsMetricReplicas(tt.current, tt.target, tt.pods, m, tt.tol, defaultReadiness, t0)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || usage != tt.usage {
				t.Errorf("got %d replicas, usage %d; want %d, %d", got, usage, tt.want, tt.usage)
			}
		})
	}
}

func TestPodsMetricReplicasErrors(t *testing.T) {
	tol := Tolerance{ScaleDown: 0.1, ScaleUp: 0.1}
	if _, _, err := PodsMetricReplicas(3, 100, nil, nil, tol, defaultReadiness, t0); err == nil {
		t.Error("no pods: no error")
	}
	pending := runningPod("p0", 1000, false)
	pending.Status.Phase = api.PodPending
	if _, _, err := PodsMetricReplicas(1, 100, []*api.Pod{pending}, map[string]PodMetric{"p0": sample(500)}, tol, defaultReadiness, t0); err == nil {
		t.Error("only a pending pod: no error")
	}
}

// Ported from replica_calculator_test.go, TestReplicaCalcObjectMetric:
// the count is ratio × the ready pods.
func TestObjectMetricReplicas(t *testing.T) {
	def := Tolerance{ScaleDown: 0.1, ScaleUp: 0.1}
	tests := []struct {
		name    string
		current int32
		pods    []*api.Pod
		value   int64
		target  int64
		tol     Tolerance
		want    int32
	}{
		{"scale up", 3, podsOf(3), 20000, 15000, def, 4},
		{"scale up: very large metric saturates replicas to MaxInt32", 3, podsOf(3), math.MaxInt64, 1, def, math.MaxInt32},
		{"scale up: ignores unready pods", 3, podsOf(3, 0, 2), 50000, 10000, def, 5},
		{"scale down", 5, podsOf(5), 12000, 20000, def, 3},
		{"within default tolerance", 3, podsOf(3), 20666, 20000, def, 3},
		{"outside configurable 1% tolerance", 3, podsOf(3), 20666, 20000, Tolerance{ScaleDown: 0.1, ScaleUp: 0.01}, 4},
		{"scale from zero", 0, nil, 25000, 10000, def, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ObjectMetricReplicas(tt.current, tt.target, tt.value, tt.pods, tt.tol)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %d replicas, want %d", got, tt.want)
			}
		})
	}
	if _, err := ObjectMetricReplicas(3, 100, 1000, nil, def); err == nil {
		t.Error("no pods outside the tolerance: no error")
	}
}

// Ported from replica_calculator_test.go, TestReplicaCalcObjectPerPodMetric.
func TestObjectPerPodMetricReplicas(t *testing.T) {
	def := Tolerance{ScaleDown: 0.1, ScaleUp: 0.1}
	tests := []struct {
		name          string
		status        int32
		value, target int64
		tol           Tolerance
		want          int32
		usage         int64
	}{
		{"scale up", 3, 20000, 5000, def, 4, 6667},
		{"scale down", 5, 6000, 2000, def, 3, 1200},
		{"within default tolerance", 4, 20166, 5000, def, 4, 5042},
		{"outside configurable 1% tolerance", 4, 20208, 5000, Tolerance{ScaleDown: 0.1, ScaleUp: 0.01}, 5, 5052},
		{"no pods yet", 0, 20000, 5000, def, 4, 20000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, usage := ObjectPerPodMetricReplicas(tt.status, tt.target, tt.value, tt.tol)
			if got != tt.want || usage != tt.usage {
				t.Errorf("got %d replicas, usage %d; want %d, %d", got, usage, tt.want, tt.usage)
			}
		})
	}
}
