package scheduler

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// scoresOf schedules pod over nodes (with bound pods per node name) and
// returns the named plugin's normalized score per node, in node order.
func scoresOf(t *testing.T, plugin string, nodes []*api.Node, pods map[string][]*api.Pod, pod *api.Pod) []int64 {
	t.Helper()
	c := NewCache(0)
	for _, n := range nodes {
		c.SetNode(n)
		for _, p := range pods[n.Name] {
			c.AddPod(bound(p, n.Name))
		}
	}
	e := Decide(NewPodInfo(pod), c.Nodes(), Weights{SelectorSpread: 2}, rng(), t0)
	s := slices.Index(e.ScoreNames, plugin)
	if s < 0 {
		t.Fatalf("no plugin %s in %v", plugin, e.ScoreNames)
	}
	var out []int64
	for _, v := range e.Verdicts {
		if v.Scores == nil {
			t.Fatalf("node %s filtered: %v", v.Node, v.Reasons)
		}
		out = append(out, v.Scores[s])
	}
	return out
}

func TestScores(t *testing.T) {
	zone := func(z string) nodeOpt { return withLabels(api.LabelTopologyZone, z) }
	rs := func(name string) *api.Pod { return mkPod(name, "", "", withOwner("ReplicaSet", "rs-1")) }
	tests := []struct {
		name   string
		plugin string
		nodes  []*api.Node
		pods   map[string][]*api.Pod
		pod    *api.Pod
		want   []int64
	}{
		// Cases from kube-scheduler's least_allocated_test.go: a 4000m/10000
		// node and a 6000m/10000 node, pod 3000m/5000 on top of nothing:
		// ((4000-3000)*100/4000 + (10000-5000)*100/10000)/2 = (25+50)/2 = 37,
		// ((6000-3000)*100/6000 + 50)/2 = (50+50)/2 = 50.
		{"least allocated", ScoreLeastAllocated,
			[]*api.Node{mkNode("a", "4", "10000", 10), mkNode("b", "6", "10000", 10)}, nil,
			mkPod("p", "3", "5000"), []int64{37, 50}},
		{"least allocated counts bound pods", ScoreLeastAllocated,
			[]*api.Node{mkNode("a", "10", "20000", 10), mkNode("b", "10", "20000", 10)},
			map[string][]*api.Pod{"a": {mkPod("x", "3", "0")}, "b": {mkPod("y", "3", "5000")}},
			mkPod("p", "3", "5000"), []int64{(40 + 75) / 2, (40 + 50) / 2}},
		{"least allocated defaults best effort", ScoreLeastAllocated,
			[]*api.Node{mkNode("a", "1", "1000Mi", 10)}, nil,
			mkPod("p", "", ""), []int64{(90 + 80) / 2}},
		{"least allocated over-requested is 0", ScoreLeastAllocated,
			[]*api.Node{mkNode("a", "1", "1000Mi", 10)}, map[string][]*api.Pod{"a": {mkPod("x", "2", "2000Mi")}},
			mkPod("p", "", ""), []int64{0}},
		// balanced_allocation_test.go: cpu 3000/10000, memory 5000/20000 →
		// |0.3-0.25|/2 = 0.025 → 97; cpu 0.3, memory 0.5 → 90.
		{"balanced", ScoreBalancedAllocation,
			[]*api.Node{mkNode("a", "10", "20000", 10), mkNode("b", "10", "10000", 10)}, nil,
			mkPod("p", "3", "5000"), []int64{97, 90}},
		// Ported from balanced_allocation_test.go, "nothing scheduled,
		// resources requested, differently sized nodes": cpu 0.75 memory
		// 0.5 → 87; 0.5 and 0.5 → 100.
		{"balanced differently sized nodes", ScoreBalancedAllocation,
			[]*api.Node{mkNode("a", "4", "10000", 10), mkNode("b", "6", "10000", 10)}, nil,
			mkPod("p", "3", "5000"), []int64{87, 100}},
		{"balanced capped at 1", ScoreBalancedAllocation,
			[]*api.Node{mkNode("a", "1", "20000", 10)}, map[string][]*api.Pod{"a": {mkPod("x", "4", "")}},
			mkPod("p", "", "1"), []int64{50}},
		// balanced_allocation_test.go's PreScore: a best-effort pod
		// (no cpu, no memory request) skips the plugin; it scores 0.
		{"balanced skipped for best effort", ScoreBalancedAllocation,
			[]*api.Node{mkNode("a", "1", "20000", 10), mkNode("b", "2", "20000", 10)}, map[string][]*api.Pod{"a": {mkPod("x", "1", "")}},
			mkPod("p", "", ""), []int64{0, 0}},
		{"spread over nodes", ScoreSelectorSpread,
			[]*api.Node{mkNode("a", "1", "1Gi", 10), mkNode("b", "1", "1Gi", 10), mkNode("c", "1", "1Gi", 10)},
			map[string][]*api.Pod{"a": {rs("r1"), rs("r2")}, "b": {rs("r3"), mkPod("other", "", "", withOwner("ReplicaSet", "rs-2"))}},
			rs("p"), []int64{0, 50, 100}},
		{"no group spreads nothing", ScoreSelectorSpread,
			[]*api.Node{mkNode("a", "1", "1Gi", 10), mkNode("b", "1", "1Gi", 10)},
			map[string][]*api.Pod{"a": {rs("r1")}},
			mkPod("p", "", ""), []int64{100, 100}},
		// Zones: a(z1) 1 peer, b(z1) 0, c(z2) 0. Node maxes: a 0, b 100, c 100;
		// zone counts z1=1, z2=0: z1 0, z2 100; blend f/3 + 2z/3, truncated
		// (100/3 + 200/3 is 99.99… in float64).
		{"spread over zones", ScoreSelectorSpread,
			[]*api.Node{mkNode("a", "1", "1Gi", 10, zone("z1")), mkNode("b", "1", "1Gi", 10, zone("z1")), mkNode("c", "1", "1Gi", 10, zone("z2"))},
			map[string][]*api.Pod{"a": {rs("r1")}},
			rs("p"), []int64{0, 33, 99}},
		{"terminating peers do not count", ScoreSelectorSpread,
			[]*api.Node{mkNode("a", "1", "1Gi", 10), mkNode("b", "1", "1Gi", 10)},
			map[string][]*api.Pod{"a": {func() *api.Pod { p := rs("r1"); p.DeletionTimestamp = &api.Time{Time: t0}; return p }()}, "b": {rs("r2")}},
			rs("p"), []int64{100, 0}},
		{"preferred affinity", ScoreNodeAffinity,
			[]*api.Node{mkNode("a", "1", "1Gi", 10, withLabels("disk", "ssd", "gpu", "yes")), mkNode("b", "1", "1Gi", 10, withLabels("disk", "ssd")), mkNode("c", "1", "1Gi", 10)}, nil,
			mkPod("p", "", "", withPreferred(
				api.PreferredSchedulingTerm{Weight: 20, Preference: term("disk", api.NodeSelectorOpIn, "ssd")},
				api.PreferredSchedulingTerm{Weight: 60, Preference: term("gpu", api.NodeSelectorOpExists)})),
			[]int64{100, 25, 0}},
		{"no preferred affinity", ScoreNodeAffinity,
			[]*api.Node{mkNode("a", "1", "1Gi", 10)}, nil, mkPod("p", "", ""), []int64{0}},
		// taint_toleration_test.go: more untolerated PreferNoSchedule taints score lower.
		{"prefer no schedule", ScoreTaintToleration,
			[]*api.Node{
				mkNode("a", "1", "1Gi", 10),
				mkNode("b", "1", "1Gi", 10, withTaint("k1", "v", api.TaintEffectPreferNoSchedule)),
				mkNode("c", "1", "1Gi", 10, withTaint("k1", "v", api.TaintEffectPreferNoSchedule), withTaint("k2", "v", api.TaintEffectPreferNoSchedule)),
				mkNode("d", "1", "1Gi", 10, withTaint("k3", "v", api.TaintEffectPreferNoSchedule), withTaint("k2", "v", api.TaintEffectPreferNoSchedule)),
			}, nil,
			mkPod("p", "", "", withToleration(api.Toleration{Key: "k3", Operator: api.TolerationOpExists, Effect: api.TaintEffectPreferNoSchedule}),
				withToleration(api.Toleration{Key: "k1", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule})),
			[]int64{100, 50, 0, 50}},
		{"no prefer taints", ScoreTaintToleration,
			[]*api.Node{mkNode("a", "1", "1Gi", 10)}, nil, mkPod("p", "", ""), []int64{100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scoresOf(t, tt.plugin, tt.nodes, tt.pods, tt.pod); !slices.Equal(got, tt.want) {
				t.Fatalf("%s scores %v, want %v", tt.plugin, got, tt.want)
			}
		})
	}
}

func TestDecideWeightsAndTies(t *testing.T) {
	c := NewCache(0)
	for _, n := range []string{"a", "b", "c", "d"} {
		c.SetNode(mkNode(n, "4", "8Gi", 10))
	}
	// Identical nodes: every one is chosen for some seed, and a seed is
	// reproducible.
	seen := map[string]bool{}
	for seed := range uint64(64) {
		r1 := Decide(NewPodInfo(mkPod("p", "1", "1Gi")), c.Nodes(), Weights{}, rngSeed(seed), t0)
		r2 := Decide(NewPodInfo(mkPod("p", "1", "1Gi")), c.Nodes(), Weights{}, rngSeed(seed), t0)
		if r1.Node != r2.Node {
			t.Fatalf("seed %d: %s then %s", seed, r1.Node, r2.Node)
		}
		seen[r1.Node] = true
	}
	if len(seen) != 4 {
		t.Fatalf("ties chose only %v", seen)
	}
	// Weights: totals are the weighted sums; turning a plugin off drops it.
	e := Decide(NewPodInfo(mkPod("p", "1", "1Gi")), c.Nodes(), Weights{TaintToleration: -1, NodeAffinity: 5}, rng(), t0)
	if want := []string{ScoreLeastAllocated, ScoreBalancedAllocation, ScorePodTopologySpread, ScoreInterPodAffinity, ScoreNodeAffinity, ScoreImageLocality}; !slices.Equal(e.ScoreNames, want) {
		t.Fatalf("plugins %v", e.ScoreNames)
	}
	if want := []int64{1, 1, 2, 2, 5, 1}; !slices.Equal(e.Weights, want) {
		t.Fatalf("weights %v", e.Weights)
	}
	v := e.Verdicts[0]
	var total int64
	for i, s := range v.Scores {
		total += s * e.Weights[i]
	}
	if total != v.Total {
		t.Fatalf("total %d, want %d", v.Total, total)
	}
	// The highest total wins.
	c.AddPod(bound(mkPod("x", "3", "6Gi"), "a"))
	c.AddPod(bound(mkPod("y", "2", "2Gi"), "b"))
	c.AddPod(bound(mkPod("z", "2", "2Gi"), "c"))
	if e := Decide(NewPodInfo(mkPod("p", "1", "1Gi")), c.Nodes(), Weights{}, rng(), t0); e.Node != "d" {
		t.Fatalf("chose %s:\n%s", e.Node, e)
	}
}

func TestUnschedulableMessage(t *testing.T) {
	v := func(r ...string) NodeVerdict { return NodeVerdict{Filter: "x", Reasons: r} }
	tests := []struct {
		n        int
		verdicts []NodeVerdict
		want     string
	}{
		{3, []NodeVerdict{v(ReasonInsufficientCPU), v(ReasonNodeAffinity), v(ReasonNodeAffinity)},
			"0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector."},
		{2, []NodeVerdict{v(ReasonInsufficientCPU, ReasonInsufficientMem), v(ReasonInsufficientMem)},
			"0/2 nodes are available: 1 Insufficient cpu, 2 Insufficient memory."},
		// Sorted as strings, as kube-scheduler does: "10 …" before "2 …".
		{12, append(slices.Repeat([]NodeVerdict{v(ReasonNodePorts)}, 10), v(ReasonInsufficientCPU), v(ReasonInsufficientCPU)),
			"0/12 nodes are available: 10 node(s) didn't have free ports for the requested pod ports, 2 Insufficient cpu."},
		{1, []NodeVerdict{v("node(s) had untolerated taint {dedicated: gpu}")},
			"0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}."},
		{0, nil, ErrNoNodesMessage},
	}
	for _, tt := range tests {
		if got := UnschedulableMessage(tt.n, tt.verdicts); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
	// End to end through Decide.
	c := NewCache(0)
	c.SetNode(mkNode("n1", "1", "1Gi", 10, withLabels("disk", "ssd")))
	c.SetNode(mkNode("n2", "4", "1Gi", 10))
	c.SetNode(mkNode("n3", "4", "1Gi", 10))
	e := Decide(NewPodInfo(mkPod("p", "2", "", withSelector("disk", "ssd"))), c.Nodes(), Weights{}, rng(), time.Time{})
	if want := "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector." +
		" preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."; e.Message != want || e.Node != "" {
		t.Fatalf("message %q node %q", e.Message, e.Node)
	}
}

func TestNumFeasibleNodesToFind(t *testing.T) {
	// After kube-scheduler's TestNumFeasibleNodesToFind.
	tests := []struct{ pct, nodes, want int }{
		{0, 10, 10},
		{40, 10, 10},
		{0, 1000, 420},
		{40, 1000, 400},
		{0, 6000, 300},
		{40, 6000, 2400},
		{0, 5000, 500},
		{100, 5000, 5000},
		{1, 1000, 100},
	}
	for _, tt := range tests {
		if got := NumFeasibleNodesToFind(tt.pct, tt.nodes); got != tt.want {
			t.Errorf("NumFeasibleNodesToFind(%d, %d) = %d, want %d", tt.pct, tt.nodes, got, tt.want)
		}
	}
}

func TestDecideStopsEarly(t *testing.T) {
	c := NewCache(0)
	for i := range 10 {
		c.SetNode(mkNode(string(rune('a'+i)), "1", "1Gi", 10))
	}
	nodes := c.Nodes()
	d, next := decide(NewPodInfo(mkPod("p", "", "")), nodes, nil, Weights{}.scorers(), rng(), t0, nil, 8, 3, volumeState{}, pluginEnv{})
	if next != 1 {
		t.Fatalf("next = %d", next)
	}
	e := d.explain()
	var evaluated []string
	for _, v := range e.Verdicts {
		if !v.Skipped {
			evaluated = append(evaluated, v.Node)
		}
	}
	if !slices.Equal(evaluated, []string{"a", "i", "j"}) || e.Feasible != 3 {
		t.Fatalf("evaluated %v, feasible %d", evaluated, e.Feasible)
	}
	if !strings.Contains(e.String(), "7 nodes not evaluated") {
		t.Fatal(e.String())
	}
}
