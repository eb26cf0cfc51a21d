package scheduler

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/source"
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

// preemptDecide runs one attempt as the Scheduler does, with preemption
// and the budgets pdbs, over nodes holding bound, with nominated pods
// nominated to their status.nominatedNodeName.
func preemptDecide(t *testing.T, nodes []*api.Node, bound []*api.Pod, nominated []*api.Pod, pod *api.Pod, pdbs ...*api.PodDisruptionBudget) *Explanation {
	t.Helper()
	c := NewCache(0)
	for _, n := range nodes {
		c.SetNode(n)
	}
	for _, p := range bound {
		c.AddPod(p)
	}
	env := envFor(c.Nodes())
	env.nominated = map[string][]*PodInfo{}
	for _, p := range nominated {
		env.nominated[p.Status.NominatedNodeName] = append(env.nominated[p.Status.NominatedNodeName], NewPodInfo(p))
	}
	env.nominatedNode = pod.Status.NominatedNodeName
	env.preempt = &preemptEnv{now: time.Unix(1000, 0), pdbs: func(ns string) []*api.PodDisruptionBudget {
		var out []*api.PodDisruptionBudget
		for _, b := range pdbs {
			if b.Namespace == ns {
				out = append(out, b)
			}
		}
		return out
	}}
	d, _ := decide(NewPodInfo(pod), c.Nodes(), nil, Weights{}.scorers(), rng(), time.Unix(1000, 0), nil, 0, len(nodes), volumeState{}, env)
	e := d.explain()
	return &e
}

func started(sec int64) podOpt {
	return func(p *api.Pod) { t := api.NewTime(time.Unix(sec, 0)); p.Status.StartTime = &t }
}

func nominatedTo(n string) podOpt { return func(p *api.Pod) { p.Status.NominatedNodeName = n } }

func pdb(name string, allowed int32, kv ...string) *api.PodDisruptionBudget {
	return &api.PodDisruptionBudget{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default"},
		Spec:   api.PodDisruptionBudgetSpec{Selector: &api.LabelSelector{MatchLabels: map[string]string{kv[0]: kv[1]}}},
		Status: api.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed}}
}

// Victim selection and the choice of node, after kube-scheduler's
// pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
// (TestDryRunPreemption, TestSelectBestCandidate: "a pod that fits on
// both nodes when lower priority pods are preempted", "a pod that would
// fit on the nodes, but other pods running are higher priority, no
// preemption would happen", "pod with PDB", "mixed priority pods are
// preempted, pick latest start time", "pickOneNodeForPreemption ...
// minimal number of victims") and TestPodEligibleToPreemptOthers (a
// terminating victim on the nominated node), in this scheduler's terms.
func TestPreemptionVictimsAndNode(t *testing.T) {
	low, mid, high := withPriority(1), withPriority(5), withPriority(10)
	tests := []struct {
		name      string
		nodes     []*api.Node
		bound     []*api.Pod
		nominated []*api.Pod
		pdbs      []*api.PodDisruptionBudget
		pod       *api.Pod
		node      string
		victims   []string
		message   string
	}{
		{
			name:    "the lower-priority pod makes room",
			nodes:   []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			bound:   []*api.Pod{bound(mkPod("a", "2", "", low), "n1")},
			pod:     mkPod("p", "1", "", high),
			node:    "n1",
			victims: []string{"default/a"},
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name:  "the more important pods are reprieved",
			nodes: []*api.Node{mkNode("n1", "4", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "1", "", withPriority(3)), "n1"), bound(mkPod("b", "1", "", withPriority(2)), "n1"),
				bound(mkPod("c", "1", "", low), "n1"), bound(mkPod("d", "1", "", low, started(10)), "n1")},
			pod:     mkPod("p", "2", "", high),
			node:    "n1",
			victims: []string{"default/d", "default/c"}, // d started earlier: more important, listed first
			message: "0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name:  "higher-priority pods are never victims",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "1", "", withPriority(20)), "n1"), bound(mkPod("b", "1", "", low), "n1")},
			pod:   mkPod("p", "2", "", high),
			message: "0/1 nodes are available: 1 Insufficient cpu." +
				" preemption: 0/1 nodes are available: 1 Insufficient cpu.",
		},
		{
			name:    "the node whose highest victim priority is lowest",
			nodes:   []*api.Node{mkNode("n1", "2", "4Gi", 10), mkNode("n2", "2", "4Gi", 10)},
			bound:   []*api.Pod{bound(mkPod("a", "2", "", mid), "n1"), bound(mkPod("b", "2", "", low), "n2")},
			pod:     mkPod("p", "1", "", high),
			node:    "n2",
			victims: []string{"default/b"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name:  "the node with the fewest victims",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10), mkNode("n2", "2", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "1", "", low), "n1"), bound(mkPod("b", "1", "", low), "n1"),
				bound(mkPod("c", "2", "", low), "n2")},
			pod:     mkPod("p", "2", "", high),
			node:    "n2",
			victims: []string{"default/c"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name:    "the latest started victims",
			nodes:   []*api.Node{mkNode("n1", "2", "4Gi", 10), mkNode("n2", "2", "4Gi", 10)},
			bound:   []*api.Pod{bound(mkPod("a", "2", "", low, started(100)), "n1"), bound(mkPod("b", "2", "", low, started(200)), "n2")},
			pod:     mkPod("p", "1", "", high),
			node:    "n2",
			victims: []string{"default/b"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name:  "a victim whose budget allows no disruption is avoided",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10), mkNode("n2", "2", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "2", "", low, withPodLabels("app", "db")), "n1"),
				bound(mkPod("b", "2", "", mid), "n2")},
			pdbs:    []*api.PodDisruptionBudget{pdb("db", 0, "app", "db")},
			pod:     mkPod("p", "1", "", high),
			node:    "n2",
			victims: []string{"default/b"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name:  "a budget allowing the disruption is no violation",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10), mkNode("n2", "2", "4Gi", 10)},
			bound: []*api.Pod{bound(mkPod("a", "2", "", low, withPodLabels("app", "db")), "n1"),
				bound(mkPod("b", "2", "", mid), "n2")},
			pdbs:    []*api.PodDisruptionBudget{pdb("db", 1, "app", "db")},
			pod:     mkPod("p", "1", "", high),
			node:    "n1",
			victims: []string{"default/a"},
			message: "0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name:  "a lower-priority pod whose anti-affinity term matches",
			nodes: []*api.Node{lnode("n1", api.LabelHostname, "n1")},
			bound: []*api.Pod{bound(mkPod("a", "", "", low, withPodLabels("app", "x")), "n1")},
			pod: mkPod("p", "", "", high, withPodAffinity(nil,
				terms(paTerm(api.LabelHostname, "app", api.LabelSelectorOpIn, "x")))),
			node:    "n1",
			victims: []string{"default/a"},
			message: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules.",
		},
		{
			name:      "a pod nominated with at least the pod's priority keeps its room",
			nodes:     []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			nominated: []*api.Pod{mkPod("q", "2", "", withPriority(10), nominatedTo("n1"))},
			pod:       mkPod("p", "1", "", mid),
			message: "0/1 nodes are available: 1 Insufficient cpu." +
				" preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name:      "a lower-priority nominated pod does not count",
			nodes:     []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			nominated: []*api.Pod{mkPod("q", "2", "", low, nominatedTo("n1"))},
			pod:       mkPod("p", "1", "", mid),
			node:      "n1",
		},
		{
			name:  "a victim still terminating on the nominated node",
			nodes: []*api.Node{mkNode("n1", "2", "4Gi", 10)},
			bound: []*api.Pod{func() *api.Pod {
				p := bound(mkPod("a", "2", "", low), "n1")
				now := api.NewTime(time.Unix(900, 0))
				p.DeletionTimestamp = &now
				p.Status.Conditions = []api.PodCondition{preemptCondition(DefaultSchedulerName)}
				return p
			}()},
			pod: mkPod("p", "1", "", high, nominatedTo("n1")),
			message: "0/1 nodes are available: 1 Insufficient cpu." +
				" preemption: " + PreemptionTerminatingVictim,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := preemptDecide(t, tt.nodes, tt.bound, tt.nominated, tt.pod, tt.pdbs...)
			if tt.victims == nil && tt.node != "" && tt.message == "" {
				if e.Node != tt.node {
					t.Fatalf("scheduled to %q, want %q (%s)", e.Node, tt.node, e.Message)
				}
				return
			}
			if e.Node != "" {
				t.Fatalf("scheduled to %q", e.Node)
			}
			if e.NominatedNode != tt.node || !slices.Equal(e.Victims, tt.victims) || e.Message != tt.message {
				t.Fatalf("nominated %q victims %v message %q\nwant %q %v %q", e.NominatedNode, e.Victims, e.Message, tt.node, tt.victims, tt.message)
			}
		})
	}
}

// The Scheduler preempts: the victim gets the DisruptionTarget condition
// and is deleted, with a Preempted event; the preemptor is nominated,
// its FailedScheduling message has no "preemption:" part (the PostFilter
// succeeded), and it is bound to the node once the victim is gone. A
// lower-priority pod does not take the room meanwhile.
func TestSchedulerPreempts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := events.NewMemory()
		c := newCluster(t, Options{Recorder: rec})
		c.s.opts.Preempt = PodWriter{Pods: c.pods}
		c.addNode(mkNode("n1", "2", "4Gi", 10))
		c.addPod(bound(mkPod("low", "2", "", withPriority(1)), "n1"))
		c.start()
		c.settle(100 * time.Millisecond)

		var deletedCond *api.PodCondition
		w, err := c.pods.Watch(c.ctx, source.WatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.addPod(mkPod("high", "1", "", withPriority(100)))
		c.settle(100 * time.Millisecond)
	drain:
		for {
			var ev source.Event[*api.Pod]
			select {
			case ev = <-w:
			case <-time.After(time.Second):
				break drain
			}
			if ev.Type == source.Deleted && ev.Object.Name == "low" {
				deletedCond, _ = ev.Object.Status.GetCondition(ConditionDisruptionTarget)
			}
		}
		if deletedCond == nil || deletedCond.Reason != ReasonPreemptionByScheduler ||
			deletedCond.Message != "default-scheduler: preempting to accommodate a higher priority pod" {
			e, _ := c.s.Explain("default/high")
			t.Fatalf("victim's condition at deletion: %+v\n%s\n%v", deletedCond, e.String(), rec.Events())
		}
		var preempted, failed bool
		for _, ev := range rec.Events() {
			switch {
			case ev.Reason == ReasonPreempted && ev.Regarding.Name == "low" && ev.Message == "Preempted by pod uid-high on node n1":
				preempted = true
			case ev.Reason == ReasonFailedScheduling && ev.Regarding.Name == "high":
				failed = ev.Message == "0/1 nodes are available: 1 Insufficient cpu."
			}
		}
		if !preempted || !failed {
			t.Fatalf("events %v", rec.Events())
		}
		c.settle(2 * time.Second)
		// Binding cleared the nomination (ClearingNominatedNodeNameAfterBinding).
		if p := c.pod("high"); p.Spec.NodeName != "n1" || p.Status.NominatedNodeName != "" {
			t.Fatalf("preemptor on %q nominated %q", p.Spec.NodeName, p.Status.NominatedNodeName)
		}
	})
}
