package scheduler

import (
	"maps"
	"slices"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Builders for the pod-placement plugins' tests.

func withPodLabels(kv ...string) podOpt {
	return func(p *api.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func inNamespace(ns string) podOpt { return func(p *api.Pod) { p.Namespace = ns } }

func terminating(p *api.Pod) { p.DeletionTimestamp = &api.Time{Time: t0} }

func exists(key string) *api.LabelSelector {
	return &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: key, Operator: api.LabelSelectorOpExists}}}
}

func withSpread(maxSkew int32, key string, when api.UnsatisfiableConstraintAction, sel *api.LabelSelector, mod ...func(*api.TopologySpreadConstraint)) podOpt {
	return func(p *api.Pod) {
		c := api.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: sel}
		for _, m := range mod {
			m(&c)
		}
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, c)
	}
}

// lnode is a node with these labels only (key, value pairs), room for
// 110 pods.
func lnode(name string, kv ...string) *api.Node {
	return mkNode(name, "32", "64Gi", 110, func(n *api.Node) { n.Labels = map[string]string{} }, withLabels(kv...))
}

// cacheOf is a cache holding nodes and the pods, each bound to the node
// its spec.nodeName names.
func cacheOf(nodes []*api.Node, pods []*api.Pod) *Cache {
	c := NewCache(0)
	for _, n := range nodes {
		c.SetNode(n)
	}
	for _, p := range pods {
		c.AddPod(p)
	}
	return c
}

// on is a pod bound to node.
func on(name, node string, opts ...podOpt) *api.Pod {
	return bound(mkPod(name, "", "", opts...), node)
}

// The filter outcome per node: "" fits, "U" Unschedulable (preemption
// might help), "UU" UnschedulableAndUnresolvable.
func filterCodes(t *testing.T, pod *api.Pod, nodes []*api.Node, pods []*api.Pod) (map[string]string, *Explanation) {
	t.Helper()
	c := cacheOf(nodes, pods)
	e := Decide(NewPodInfo(pod), c.Nodes(), Weights{}, rng(), t0)
	got := map[string]string{}
	for _, v := range e.Verdicts {
		switch {
		case v.Feasible():
			got[v.Node] = ""
		case v.Unresolvable:
			got[v.Node] = "UU"
		default:
			got[v.Node] = "U"
		}
	}
	return got, e
}

func fourNodes() []*api.Node {
	return []*api.Node{
		lnode("node-a", "zone", "zone1", "node", "node-a"),
		lnode("node-b", "zone", "zone1", "node", "node-b"),
		lnode("node-x", "zone", "zone2", "node", "node-x"),
		lnode("node-y", "zone", "zone2", "node", "node-y"),
	}
}

// spread2103 places matching pods on node-a, b, x, y as 2/1/0/3.
func spread2103() []*api.Pod {
	foo := withPodLabels("foo", "")
	return []*api.Pod{on("p-a1", "node-a", foo), on("p-a2", "node-a", foo), on("p-b1", "node-b", foo),
		on("p-y1", "node-y", foo), on("p-y2", "node-y", foo), on("p-y3", "node-y", foo)}
}

func TestPodTopologySpreadFilter(t *testing.T) {
	foo := withPodLabels("foo", "")
	minDomains := func(n int32) func(*api.TopologySpreadConstraint) {
		return func(c *api.TopologySpreadConstraint) { c.MinDomains = &n }
	}
	honorTaints := func(c *api.TopologySpreadConstraint) { h := "Honor"; c.NodeTaintsPolicy = &h }
	tests := []struct {
		name  string
		pod   *api.Pod
		nodes []*api.Node
		pods  []*api.Pod
		want  map[string]string
	}{
		// The first cases are ported from kube-scheduler's
		// pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go,
		// TestSingleConstraint.
		{"no existing pods",
			mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"))), fourNodes(), nil,
			map[string]string{"node-a": "", "node-b": "", "node-x": "", "node-y": ""}},
		{"existing pods in a different namespace do not count",
			mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"))), fourNodes(),
			[]*api.Pod{on("p-a1", "node-a", foo, inNamespace("ns1")), on("p-b1", "node-a", foo, inNamespace("ns2")),
				on("p-x1", "node-x", foo), on("p-y1", "node-y", foo)},
			map[string]string{"node-a": "", "node-b": "", "node-x": "U", "node-y": "U"}},
		{"pods spread across zones as 3/3, all nodes fit",
			mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"))), fourNodes(),
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-a2", "node-a", foo), on("p-b1", "node-b", foo),
				on("p-y1", "node-y", foo), on("p-y2", "node-y", foo), on("p-y3", "node-y", foo)},
			map[string]string{"node-a": "", "node-b": "", "node-x": "", "node-y": ""}},
		{"pods spread across zones as 1/2 due to absence of label 'zone' on node-b",
			mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"))),
			[]*api.Node{lnode("node-a", "zone", "zone1", "node", "node-a"), lnode("node-b", "zon", "zone1", "node", "node-b"),
				lnode("node-x", "zone", "zone2", "node", "node-x"), lnode("node-y", "zone", "zone2", "node", "node-y")},
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-b1", "node-b", foo), on("p-x1", "node-x", foo), on("p-y1", "node-y", foo)},
			map[string]string{"node-a": "", "node-b": "UU", "node-x": "U", "node-y": "U"}},
		{"pod cannot be scheduled as all nodes don't have label 'rack'",
			mkPod("p", "", "", foo, withSpread(1, "rack", DoNotSchedule, exists("foo"))),
			[]*api.Node{lnode("node-a", "zone", "zone1", "node", "node-a"), lnode("node-x", "zone", "zone2", "node", "node-x")}, nil,
			map[string]string{"node-a": "UU", "node-x": "UU"}},
		{"pods spread across nodes as 2/1/0/3, only node-x fits",
			mkPod("p", "", "", foo, withSpread(1, "node", DoNotSchedule, exists("foo"))), fourNodes(), spread2103(),
			map[string]string{"node-a": "U", "node-b": "U", "node-x": "", "node-y": "U"}},
		{"pods spread across nodes as 2/1/0/3, maxSkew is 2, node-b and node-x fit",
			mkPod("p", "", "", foo, withSpread(2, "node", DoNotSchedule, exists("foo"))), fourNodes(), spread2103(),
			map[string]string{"node-a": "U", "node-b": "", "node-x": "", "node-y": "U"}},
		{"pods spread across nodes as 2/1/0/3, but pod doesn't match itself",
			mkPod("p", "", "", withPodLabels("bar", ""), withSpread(1, "node", DoNotSchedule, exists("foo"))), fourNodes(), spread2103(),
			map[string]string{"node-a": "U", "node-b": "", "node-x": "", "node-y": "U"}},
		// Upstream runs the plugin alone, so node-b and node-x pass there;
		// here NodeAffinity rejects them first (unresolvable).
		{"incoming pod has nodeAffinity, pods spread as 2/~1~/~0~/3, hence node-a fits",
			mkPod("p", "", "", foo, withRequired(term("node", api.NodeSelectorOpIn, "node-a", "node-y")),
				withSpread(1, "node", DoNotSchedule, exists("foo"))), fourNodes(), spread2103(),
			map[string]string{"node-a": "", "node-b": "UU", "node-x": "UU", "node-y": "U"}},
		{"terminating Pods should be excluded",
			mkPod("p", "", "", foo, withSpread(1, "node", DoNotSchedule, exists("foo"))),
			[]*api.Node{lnode("node-a", "node", "node-a"), lnode("node-b", "node", "node-b")},
			[]*api.Pod{on("p-a", "node-a", foo, terminating), on("p-b", "node-b", foo)},
			map[string]string{"node-a": "", "node-b": "U"}},
		// Ours: minDomains greater than the domains makes the global
		// minimum 0 (filtering.go's minMatchNum).
		{"minDomains above the domain count makes the minimum 0",
			mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"), minDomains(3))), fourNodes(),
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-x1", "node-x", foo)},
			map[string]string{"node-a": "U", "node-b": "U", "node-x": "U", "node-y": "U"}},
		{"minDomains met keeps the real minimum",
			mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"), minDomains(2))), fourNodes(),
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-x1", "node-x", foo)},
			map[string]string{"node-a": "", "node-b": "", "node-x": "", "node-y": ""}},
		// matchLabelKeys: only the pods with the pod's own value count.
		{"matchLabelKeys narrows the selector to the pod's value",
			mkPod("p", "", "", withPodLabels("foo", "", "rev", "2"), withSpread(1, "node", DoNotSchedule, exists("foo"),
				func(c *api.TopologySpreadConstraint) { c.MatchLabelKeys = []string{"rev"} })),
			[]*api.Node{lnode("node-a", "node", "node-a"), lnode("node-b", "node", "node-b")},
			[]*api.Pod{on("old-1", "node-a", withPodLabels("foo", "", "rev", "1")), on("old-2", "node-a", withPodLabels("foo", "", "rev", "1")),
				on("new-1", "node-b", withPodLabels("foo", "", "rev", "2"))},
			map[string]string{"node-a": "", "node-b": "U"}},
		// nodeTaintsPolicy Honor: a node with an untolerated taint is no
		// domain, so its emptiness does not hold the minimum at 0.
		{"nodeTaintsPolicy Honor leaves out tainted nodes",
			mkPod("p", "", "", foo, withSpread(1, "node", DoNotSchedule, exists("foo"), honorTaints)),
			[]*api.Node{lnode("node-a", "node", "node-a"), lnode("node-b", "node", "node-b"),
				mkNode("node-t", "32", "64Gi", 110, withLabels("node", "node-t"), withTaint("k", "v", api.TaintEffectNoSchedule))},
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-b1", "node-b", foo)},
			map[string]string{"node-a": "", "node-b": "", "node-t": "UU"}},
		{"nodeTaintsPolicy Ignore counts tainted nodes",
			mkPod("p", "", "", foo, withSpread(1, "node", DoNotSchedule, exists("foo"))),
			[]*api.Node{lnode("node-a", "node", "node-a"), lnode("node-b", "node", "node-b"),
				mkNode("node-t", "32", "64Gi", 110, withLabels("node", "node-t"), withTaint("k", "v", api.TaintEffectNoSchedule))},
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-b1", "node-b", foo)},
			map[string]string{"node-a": "U", "node-b": "U", "node-t": "UU"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, e := filterCodes(t, tt.pod, tt.nodes, tt.pods)
			if !maps.Equal(got, tt.want) {
				t.Fatalf("codes %v, want %v\n%s", got, tt.want, e)
			}
		})
	}
}

func TestPodTopologySpreadMessage(t *testing.T) {
	foo := withPodLabels("foo", "")
	nodes := []*api.Node{lnode("node-a", "zone", "zone1"), lnode("node-b", "zone", "zone1"), lnode("node-c", "zone", "zone2"), lnode("node-d")}
	// Two zones, fewer than minDomains: the global minimum is 0, so a
	// zone with one matching pod is full at maxSkew 1.
	three := int32(3)
	pod := mkPod("p", "", "", foo, withSpread(1, "zone", DoNotSchedule, exists("foo"), func(c *api.TopologySpreadConstraint) { c.MinDomains = &three }))
	_, e := filterCodes(t, pod, nodes, []*api.Pod{on("p-a1", "node-a", foo), on("p-c1", "node-c", foo)})
	want := "0/4 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label), " +
		"3 node(s) didn't match pod topology spread constraints. preemption: 0/4 nodes are available: " +
		"1 Preemption is not helpful for scheduling, 3 No preemption victims found for incoming pod."
	if e.Message != want {
		t.Fatalf("message\n%s\nwant\n%s", e.Message, want)
	}
	if v, _ := e.Verdict("node-a"); v.Filter != FilterPodTopologySpread {
		t.Fatalf("node-a filtered by %q", v.Filter)
	}
}

// spreadScores returns PodTopologySpread's score of every feasible node;
// the failed nodes (tainted, so TaintToleration rejects them) take part
// in the counts but are not scored.
func spreadScores(t *testing.T, pod *api.Pod, nodes, failed []*api.Node, pods []*api.Pod) map[string]int64 {
	t.Helper()
	all := slices.Clone(nodes)
	for _, n := range failed {
		n = n.DeepCopy()
		n.Spec.Taints = append(n.Spec.Taints, api.Taint{Key: "failed", Effect: api.TaintEffectNoSchedule})
		all = append(all, n)
	}
	c := cacheOf(all, pods)
	e := Decide(NewPodInfo(pod), c.Nodes(), Weights{}, rng(), t0)
	s := slices.Index(e.ScoreNames, ScorePodTopologySpread)
	got := map[string]int64{}
	for _, v := range e.Verdicts {
		if v.Feasible() {
			got[v.Node] = v.Scores[s]
		}
	}
	return got
}

func TestPodTopologySpreadScore(t *testing.T) {
	foo, bar := withPodLabels("foo", ""), withPodLabels("bar", "")
	fooBar := withPodLabels("foo", "", "bar", "")
	host := func(names ...string) []*api.Node {
		var out []*api.Node
		for _, n := range names {
			out = append(out, lnode(n, api.LabelHostname, n))
		}
		return out
	}
	zoned := func(name, zone string) *api.Node { return lnode(name, "zone", zone, api.LabelHostname, name) }
	soft := func(maxSkew int32, key string, sel *api.LabelSelector) podOpt {
		return withSpread(maxSkew, key, ScheduleAnyway, sel)
	}
	pods4321 := []*api.Pod{on("p-a1", "node-a", foo), on("p-a2", "node-a", foo), on("p-a3", "node-a", foo), on("p-a4", "node-a", foo),
		on("p-b1", "node-b", foo), on("p-b2", "node-b", foo), on("p-b3", "node-b", foo),
		on("p-c1", "node-c", foo), on("p-c2", "node-c", foo), on("p-d1", "node-d", foo)}
	pods4213 := []*api.Pod{on("p-a1", "node-a", foo), on("p-a2", "node-a", foo), on("p-a3", "node-a", foo), on("p-a4", "node-a", foo),
		on("p-b1", "node-b", foo), on("p-b2", "node-b", foo), on("p-x1", "node-x", foo),
		on("p-y1", "node-y", foo), on("p-y2", "node-y", foo), on("p-y3", "node-y", foo)}
	tests := []struct {
		name          string
		pod           *api.Pod
		nodes, failed []*api.Node
		pods          []*api.Pod
		want          map[string]int64
	}{
		// Ported from kube-scheduler's
		// pkg/scheduler/framework/plugins/podtopologyspread/scoring_test.go,
		// TestPodTopologySpreadScore.
		{"one constraint on node, all nodes have the same number of matching pods",
			mkPod("p", "", "", foo, soft(1, api.LabelHostname, exists("foo"))), host("node-a", "node-b"), nil,
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-b1", "node-b", foo)},
			map[string]int64{"node-a": 100, "node-b": 100}},
		{"one constraint on node, all 4 nodes are candidates, maxSkew=2",
			mkPod("p", "", "", foo, soft(2, api.LabelHostname, exists("foo"))), host("node-a", "node-b", "node-c", "node-d"), nil,
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-a2", "node-a", foo), on("p-b1", "node-b", foo),
				on("p-d1", "node-d", foo), on("p-d2", "node-d", foo), on("p-d3", "node-d", foo)},
			map[string]int64{"node-a": 33, "node-b": 66, "node-c": 100, "node-d": 16}},
		{"one constraint on node, all 4 nodes are candidates, maxSkew=3",
			mkPod("p", "", "", foo, soft(3, api.LabelHostname, exists("foo"))), host("node-a", "node-b", "node-c", "node-d"), nil,
			pods4321, map[string]int64{"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}},
		// Upstream selects the pods with a Service selecting foo; here the
		// system defaults count the pods of the pod's controller.
		{"system defaulting, nodes don't have zone, pods match the controller",
			mkPod("p", "", "", foo, withOwner("ReplicaSet", "rs-1")), host("node-a", "node-b", "node-c", "node-d"), nil,
			func() []*api.Pod {
				var out []*api.Pod
				for _, p := range pods4321 {
					withOwner("ReplicaSet", "rs-1")(p)
					out = append(out, p)
				}
				return out
			}(),
			map[string]int64{"node-a": 44, "node-b": 66, "node-c": 77, "node-d": 100}},
		{"one constraint on node, 3 out of 4 nodes are candidates",
			mkPod("p", "", "", foo, soft(1, api.LabelHostname, exists("foo"))), host("node-a", "node-b", "node-x"), host("node-y"),
			pods4213, map[string]int64{"node-a": 33, "node-b": 83, "node-x": 100}},
		{"one constraint on node, 3 out of 4 nodes are candidates, one node doesn't match topology key",
			mkPod("p", "", "", foo, soft(1, api.LabelHostname, exists("foo"))),
			[]*api.Node{lnode("node-a", api.LabelHostname, "node-a"), lnode("node-b", "n", "node-b"), lnode("node-x", api.LabelHostname, "node-x")},
			host("node-y"), pods4213, map[string]int64{"node-a": 16, "node-b": 0, "node-x": 100}},
		{"one constraint on zone, 3 out of 4 nodes are candidates",
			mkPod("p", "", "", foo, soft(1, "zone", exists("foo"))),
			[]*api.Node{zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2")},
			[]*api.Node{zoned("node-y", "zone2")}, pods4213, map[string]int64{"node-a": 75, "node-b": 75, "node-x": 100}},
		{"two Constraints on zone and node, 2 out of 4 nodes are candidates",
			mkPod("p", "", "", foo, soft(1, "zone", exists("foo")), soft(1, api.LabelHostname, exists("foo"))),
			[]*api.Node{zoned("node-a", "zone1"), zoned("node-x", "zone2")},
			[]*api.Node{zoned("node-b", "zone1"), zoned("node-y", "zone2")},
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-a2", "node-a", foo), on("p-b1", "node-b", foo),
				on("p-x1", "node-x", foo), on("p-x2", "node-x", foo),
				on("p-y1", "node-y", foo), on("p-y2", "node-y", foo), on("p-y3", "node-y", foo), on("p-y4", "node-y", foo)},
			map[string]int64{"node-a": 100, "node-x": 63}},
		{"two Constraints on zone and node, with different labelSelectors",
			mkPod("p", "", "", fooBar, soft(1, "zone", exists("foo")), soft(1, api.LabelHostname, exists("bar"))),
			[]*api.Node{zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")}, nil,
			[]*api.Pod{on("p-a1", "node-a", foo), on("p-b1", "node-b", fooBar), on("p-y1", "node-y", foo), on("p-y2", "node-y", bar)},
			map[string]int64{"node-a": 60, "node-b": 20, "node-x": 100, "node-y": 60}},
		{"two Constraints on zone and node, with different labelSelectors, some nodes have 0 pods",
			mkPod("p", "", "", fooBar, soft(1, "zone", exists("foo")), soft(1, api.LabelHostname, exists("bar"))),
			[]*api.Node{zoned("node-a", "zone1"), zoned("node-b", "zone1"), zoned("node-x", "zone2"), zoned("node-y", "zone2")}, nil,
			[]*api.Pod{on("p-b1", "node-b", bar), on("p-x1", "node-x", foo), on("p-y1", "node-y", fooBar)},
			map[string]int64{"node-a": 100, "node-b": 60, "node-x": 40, "node-y": 0}},
		// Ours: a pod without constraints and without a controller is
		// not scored (kube's PreScore Skip).
		{"no constraint and no controller: skipped",
			mkPod("p", "", "", foo), host("node-a", "node-b"), nil, []*api.Pod{on("p-a1", "node-a", foo)},
			map[string]int64{"node-a": 0, "node-b": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := spreadScores(t, tt.pod, tt.nodes, tt.failed, tt.pods); !maps.Equal(got, tt.want) {
				t.Fatalf("scores %v, want %v", got, tt.want)
			}
		})
	}
}
