package scheduler

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func withGPU(n string) podOpt {
	return func(p *api.Pod) {
		if p.Spec.Containers[0].Resources.Requests == nil {
			p.Spec.Containers[0].Resources.Requests = api.ResourceList{}
		}
		p.Spec.Containers[0].Resources.Requests["nvidia.com/gpu"] = api.MustParse(n)
	}
}

func gpuNode(name, gpus string) *api.Node {
	n := mkNode(name, "4", "8Gi", 10)
	n.Status.Allocatable["nvidia.com/gpu"] = api.MustParse(gpus)
	return n
}

// Extended resources are filtered as kube-scheduler's NodeResourcesFit
// does (pkg/scheduler/framework/plugins/noderesources/fit_test.go,
// TestEnoughRequests: "extended resource allocatable enforced",
// "extended resource allocatable enforced for unknown resource", the
// cpu-and-extended case): "Insufficient nvidia.com/gpu" after the native
// reasons; asking for more than a node has in all is unresolvable.
func TestExtendedResourcesFit(t *testing.T) {
	tests := []struct {
		name  string
		nodes []*api.Node
		bound []*api.Pod
		pod   *api.Pod
		node  string
		want  string
	}{
		{
			name:  "fits the free gpus",
			nodes: []*api.Node{gpuNode("n1", "2")},
			bound: []*api.Pod{bound(mkPod("a", "", "", withGPU("1")), "n1")},
			pod:   mkPod("p", "", "", withGPU("1")),
			node:  "n1",
		},
		{
			name:  "extended resource allocatable enforced",
			nodes: []*api.Node{gpuNode("n1", "2")},
			bound: []*api.Pod{bound(mkPod("a", "", "", withGPU("2")), "n1")},
			pod:   mkPod("p", "", "", withGPU("1")),
			want: "0/1 nodes are available: 1 Insufficient nvidia.com/gpu." +
				" preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name:  "a node without the resource",
			nodes: []*api.Node{mkNode("n1", "4", "8Gi", 10), gpuNode("n2", "1")},
			pod:   mkPod("p", "", "", withGPU("1")),
			node:  "n2",
		},
		{
			name:  "more than any node has: unresolvable, with cpu",
			nodes: []*api.Node{gpuNode("n1", "1")},
			bound: []*api.Pod{bound(mkPod("a", "4", "", withPriority(0)), "n1")},
			pod:   mkPod("p", "1", "", withGPU("2")),
			want: "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient nvidia.com/gpu." +
				" preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name:  "preemption frees a gpu",
			nodes: []*api.Node{gpuNode("n1", "1")},
			bound: []*api.Pod{bound(mkPod("a", "", "", withGPU("1"), withPriority(1)), "n1")},
			pod:   mkPod("p", "", "", withGPU("1"), withPriority(10)),
			want:  "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCache(0)
			for _, n := range tt.nodes {
				c.SetNode(n)
			}
			for _, p := range tt.bound {
				c.AddPod(p)
			}
			e := Decide(NewPodInfo(tt.pod), c.Nodes(), Weights{}, rng(), time.Time{})
			if e.Node != tt.node || e.Message != tt.want {
				t.Fatalf("node %q message %q\nwant %q %q", e.Node, e.Message, tt.node, tt.want)
			}
		})
	}
	// Removing the pod gives the gpu back.
	c := NewCache(0)
	c.SetNode(gpuNode("n1", "1"))
	c.AddPod(bound(mkPod("a", "", "", withGPU("1")), "n1"))
	c.RemovePod("default/a")
	if e := Decide(NewPodInfo(mkPod("p", "", "", withGPU("1"))), c.Nodes(), Weights{}, rng(), time.Time{}); e.Node != "n1" {
		t.Fatalf("after removal: %s", e.Message)
	}
}
