package hpa

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Ported from kube's pkg/controller/podautoscaler/replica_calculator_test.go
// (TestCalculateRequests, the rows without pod-level resources, which
// ctrlkit's PodSpec does not have; and
// TestCalculatePodRequestsFromContainers_NonExistentContainer).
func TestPodRequests(t *testing.T) {
	cpu := func(milli int64) api.ResourceRequirements {
		return api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.NewMilliQuantity(milli, api.DecimalSI)}}
	}
	always := api.ContainerRestartPolicy("Always")
	pod := func(containers []api.Container, inits ...api.Container) []*api.Pod {
		return []*api.Pod{{ObjectMeta: api.ObjectMeta{Name: "test-pod", Namespace: "test-namespace"},
			Spec: api.PodSpec{Containers: containers, InitContainers: inits}}}
	}
	for _, tc := range []struct {
		name      string
		pods      []*api.Pod
		container string
		want      map[string]int64
		wantErr   string
	}{
		{name: "void", want: map[string]int64{}},
		{name: "Sum container requests",
			pods: pod([]api.Container{{Name: "container1", Resources: cpu(100)}, {Name: "container2", Resources: cpu(50)}}),
			want: map[string]int64{"test-pod": 150}},
		{name: "Fail if at least one of the containers is missing requests",
			pods:    pod([]api.Container{{Name: "container1"}, {Name: "container2", Resources: cpu(50)}}),
			wantErr: "missing request for cpu in container container1 of Pod test-pod"},
		{name: "Container: if a container name is specified, calculate requests only for that container",
			pods:      pod([]api.Container{{Name: "container1", Resources: cpu(100)}, {Name: "container2", Resources: cpu(50)}}),
			container: "container1", want: map[string]int64{"test-pod": 100}},
		{name: "pod with restartable init containers",
			pods: pod([]api.Container{{Name: "container1", Resources: cpu(100)}},
				api.Container{Name: "init-container1", Resources: cpu(20)},
				api.Container{Name: "restartable-container1", RestartPolicy: &always, Resources: cpu(50)}),
			want: map[string]int64{"test-pod": 150}},
		{name: "a restartable init container by name",
			pods: pod([]api.Container{{Name: "container1", Resources: cpu(100)}},
				api.Container{Name: "restartable-container1", RestartPolicy: &always, Resources: cpu(50)}),
			container: "restartable-container1", want: map[string]int64{"test-pod": 50}},
		{name: "NonExistentContainer",
			pods:      pod([]api.Container{{Name: "container1", Resources: cpu(100)}}),
			container: "non-existent-container", wantErr: "container non-existent-container not found in Pod test-pod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := podRequests(tc.pods, tc.container, api.ResourceCPU)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// A ContainerResource metric counts the named container's usage against
// its own request: the app container at 150% of its 100m (the sidecar
// idle) asks for 3 pods where the pod-wide utilization (150m of 200m,
// 75%) would ask for none more.
func TestContainerResourceReplicas(t *testing.T) {
	always := api.ContainerRestartPolicy("Always")
	var pods []*api.Pod
	app, whole := map[string]PodMetric{}, map[string]PodMetric{}
	for _, name := range []string{"a", "b"} {
		p := runningPod(name, 100, true)
		p.Spec.Containers[0].Name = "app"
		p.Spec.InitContainers = []api.Container{{Name: "proxy", RestartPolicy: &always,
			Resources: api.ResourceRequirements{Requests: api.ResourceList{api.ResourceCPU: api.NewMilliQuantity(100, api.DecimalSI)}}}}
		pods = append(pods, p)
		app[name] = PodMetric{Value: 150, Timestamp: t0, Window: DefaultMetricWindow}
		whole[name] = PodMetric{Value: 150, Timestamp: t0, Window: DefaultMetricWindow}
	}
	n, util, avg, err := ContainerResourceReplicas(2, 100, pods, app, api.ResourceCPU, "app", Tolerance{0.1, 0.1}, Readiness{}, t0)
	if err != nil || n != 3 || util != 150 || avg != 150 {
		t.Fatalf("container: %d replicas, %d%%, avg %d, %v; want 3, 150%%, 150", n, util, avg, err)
	}
	n, util, _, err = ResourceReplicas(2, 100, pods, whole, api.ResourceCPU, Tolerance{0.1, 0.1}, Readiness{}, t0)
	if err != nil || n != 2 || util != 75 {
		t.Fatalf("pod: %d replicas, %d%%, %v; want 2 at 75%% (150m of the pods' 200m)", n, util, err)
	}
	if _, _, _, err := ContainerResourceReplicas(2, 100, pods, app, api.ResourceCPU, "web", Tolerance{0.1, 0.1}, Readiness{}, t0); err == nil || err.Error() != "container web not found in Pod a" {
		t.Fatalf("missing container: %v", err)
	}
	// An AverageValue target of 100m per pod over the app containers'
	// 150m: 3 pods.
	n, got, err := RawResourceReplicas(2, 100, pods, app, api.ResourceCPU, Tolerance{0.1, 0.1}, Readiness{}, t0)
	if err != nil || n != 3 || got != 150 {
		t.Fatalf("raw: %d replicas, avg %d, %v; want 3, 150", n, got, err)
	}
	if _, _, err := RawResourceReplicas(2, 100, nil, app, api.ResourceCPU, Tolerance{}, Readiness{}, t0); !errors.Is(err, ErrNoMetrics) {
		t.Fatalf("no pods: %v", err)
	}
}
