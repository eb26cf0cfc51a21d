package jsonequal_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/internal/jsonequal"
)

// benchPods returns a running pod and a copy whose status moved on (a
// kubelet status write): what an update's no-op check compares.
func benchPods() (*api.Pod, *api.Pod) {
	t0 := api.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	p := &api.Pod{}
	p.Name, p.Namespace, p.UID, p.ResourceVersion = "web-7d9f-abcde", "default", "1b4e28ba-2fa1-11d2-883f-0016d3cca427", "42"
	p.Labels = map[string]string{"app": "web", "pod-template-hash": "7d9f"}
	p.OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f", UID: "u", Controller: new(true)}}
	p.CreationTimestamp = t0
	p.Spec.NodeName = "node-1"
	p.Spec.Containers = []api.Container{{Name: "web", Image: "nginx:1.27", Ports: []api.ContainerPort{{ContainerPort: 80, Protocol: "TCP"}}}}
	p.Status.Phase = api.PodPending
	p.Status.Conditions = []api.PodCondition{{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: t0}}
	q := p.DeepCopy()
	q.Status.Phase = api.PodRunning
	q.Status.PodIP, q.Status.HostIP = "10.0.0.7", "192.168.0.1"
	q.Status.Conditions = append(q.Status.Conditions, api.PodCondition{Type: api.PodReady, Status: api.ConditionTrue, LastTransitionTime: t0})
	return p, q
}

func BenchmarkEqualPodStatusChanged(b *testing.B) {
	p, q := benchPods()
	b.Run("jsonequal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if jsonequal.Equal(p, q) {
				b.Fatal("equal")
			}
		}
	})
	b.Run("DeepEqual+Marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if reflect.DeepEqual(p, q) {
				b.Fatal("equal")
			}
			x, _ := json.Marshal(p)
			y, _ := json.Marshal(q)
			if bytes.Equal(x, y) {
				b.Fatal("equal")
			}
		}
	})
}

func BenchmarkEqualPodSame(b *testing.B) {
	p, _ := benchPods()
	q := p.DeepCopy()
	b.Run("jsonequal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !jsonequal.Equal(p, q) {
				b.Fatal("not equal")
			}
		}
	})
	b.Run("DeepEqual", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !reflect.DeepEqual(p, q) {
				b.Fatal("not equal")
			}
		}
	})
}

// The pods Equal is benchmarked on compare as their encodings do.
func TestBenchPodsAgreeWithEncoding(t *testing.T) {
	p, q := benchPods()
	x, _ := json.Marshal(p)
	y, _ := json.Marshal(q)
	if jsonequal.Equal(p, q) != bytes.Equal(x, y) {
		t.Fatal("Equal disagrees with the encoding on the benchmark pods")
	}
	if !jsonequal.Equal(p, p.DeepCopy()) {
		t.Fatal("a pod differs from its deep copy")
	}
}
