package scheduler

import (
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The FailedScheduling message ends with DefaultPreemption's PostFilter
// message, as kube-scheduler's FitError.Error() joins them. Cases after
// kube-scheduler's pkg/scheduler/framework/plugins/defaultpreemption/
// default_preemption_test.go (TestPostFilter: "pod can be made
// schedulable on no node", "preemption should respect filteredNodesStatuses",
// "no candidate nodes found, no enough resource after removing low
// priority pods" with no lower-priority pods) and the preemptionPolicy
// Never case of TestPodEligibleToPreemptOthers, in this scheduler's terms.
func TestFailedSchedulingPreemptionPart(t *testing.T) {
	never := api.PreemptionPolicy("Never")
	tests := []struct {
		name  string
		nodes []*api.Node
		bound []*api.Pod
		pod   *api.Pod
		want  string
	}{
		{
			name:  "no victims on a node short of cpu",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "2", ""), "n1")},
			pod:   mkPod("p", "1", ""),
			want: "0/1 nodes are available: 1 Insufficient cpu." +
				" preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name:  "a request over the node's allocatable is unresolvable",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			pod:   mkPod("p", "3", ""),
			want: "0/1 nodes are available: 1 Insufficient cpu." +
				" preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "unresolvable filters and resolvable ones counted apart",
			nodes: []*api.Node{
				mkNode("n1", "2", "4Gi", 10, withTaint("dedicated", "db", api.TaintEffectNoSchedule)),
				mkNode("n2", "2", "4Gi", 10, withLabels("disk", "hdd")),
				mkNode("n3", "2", "4Gi", 1, withLabels("disk", "ssd")),
				mkNode("n4", "2", "4Gi", 10, withLabels("disk", "ssd")),
			},
			bound: []*api.Pod{bound(mkPod("a", "", ""), "n3"), bound(mkPod("b", "2", ""), "n4")},
			pod:   mkPod("p", "1", "", withSelector("disk", "ssd")),
			want: "0/4 nodes are available: 1 Insufficient cpu, 1 Too many pods, 1 node(s) didn't match Pod's node affinity/selector," +
				" 1 node(s) had untolerated taint {dedicated: db}." +
				" preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
		},
		{
			name:  "host ports: preemption might help",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10), mkNode("n2", "2", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "", "", withHostPort(80, "TCP", "")), "n1"),
				bound(mkPod("b", "", "", withHostPort(80, "TCP", "")), "n2")},
			pod: mkPod("p", "", "", withHostPort(80, "TCP", "")),
			want: "0/2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports." +
				" preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
		},
		{
			name:  "preemptionPolicy Never",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			pod: func() *api.Pod {
				p := mkPod("p", "3", "")
				p.Spec.PreemptionPolicy = &never
				return p
			}(),
			want: "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name:  "unschedulable node",
			nodes: []*api.Node{func() *api.Node { n := mkNode("n1", "2", "4Gi", 10); n.Spec.Unschedulable = true; return n }()},
			pod:   mkPod("p", "", ""),
			want: "0/1 nodes are available: 1 node(s) were unschedulable." +
				" preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
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
			if e.Node != "" || e.Message != tt.want {
				t.Fatalf("node %q message\n got %q\nwant %q", e.Node, e.Message, tt.want)
			}
			// PreemptionMessage over the verdicts says the same.
			filterPart := UnschedulableMessage(len(tt.nodes), e.Verdicts)
			if got := filterPart + " " + PreemptionMessage(tt.pod, len(tt.nodes), e.Verdicts); got != tt.want {
				t.Fatalf("UnschedulableMessage + PreemptionMessage\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
