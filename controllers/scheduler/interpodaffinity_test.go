package scheduler

import (
	"maps"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// paTerm is a pod affinity term selecting key op values in topology tk.
func paTerm(tk, key string, op api.LabelSelectorOperator, values ...string) api.PodAffinityTerm {
	return api.PodAffinityTerm{TopologyKey: tk, LabelSelector: &api.LabelSelector{
		MatchExpressions: []api.LabelSelectorRequirement{{Key: key, Operator: op, Values: values}}}}
}

// withPodAffinity sets required affinity and anti-affinity terms.
func withPodAffinity(aff, anti []api.PodAffinityTerm) podOpt {
	return func(p *api.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &api.Affinity{}
		}
		if aff != nil {
			p.Spec.Affinity.PodAffinity = &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: aff}
		}
		if anti != nil {
			p.Spec.Affinity.PodAntiAffinity = &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti}
		}
	}
}

// withPreferredPodAffinity sets preferred affinity and anti-affinity terms.
func withPreferredPodAffinity(aff, anti []api.WeightedPodAffinityTerm) podOpt {
	return func(p *api.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &api.Affinity{}
		}
		if aff != nil {
			p.Spec.Affinity.PodAffinity = &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: aff}
		}
		if anti != nil {
			p.Spec.Affinity.PodAntiAffinity = &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: anti}
		}
	}
}

func terms(ts ...api.PodAffinityTerm) []api.PodAffinityTerm { return ts }

func TestInterPodAffinityFilter(t *testing.T) {
	scan := withPodLabels("service", "securityscan")
	s1 := withPodLabels("security", "S1")
	machine1 := []*api.Node{lnode("machine1", "region", "r1", "zone", "z11")}
	In, NotIn, Exists := api.LabelSelectorOpIn, api.LabelSelectorOpNotIn, api.LabelSelectorOpExists
	tests := []struct {
		name  string
		pod   *api.Pod
		nodes []*api.Node
		pods  []*api.Pod
		want  map[string]string // per node: "" fits, else the reason
	}{
		// Ported from kube-scheduler's
		// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go,
		// TestRequiredAffinitySingleNode.
		{"A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
			mkPod("p", "", ""), machine1, nil, map[string]string{"machine1": ""}},
		{"satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
			mkPod("p", "", "", s1, withPodAffinity(terms(paTerm("region", "service", In, "securityscan", "value2")), nil)),
			machine1, []*api.Pod{on("e", "machine1", scan)}, map[string]string{"machine1": ""}},
		{"satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
			mkPod("p", "", "", s1, withPodAffinity(terms(paTerm("region", "service", NotIn, "securityscan3", "value3")), nil)),
			machine1, []*api.Pod{on("e", "machine1", scan)}, map[string]string{"machine1": ""}},
		{"Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
			mkPod("p", "", "", s1, withPodAffinity(terms(func() api.PodAffinityTerm {
				t := paTerm("", "service", In, "securityscan", "value2")
				t.Namespaces = []string{"DiffNameSpace"}
				return t
			}()), nil)),
			machine1, []*api.Pod{on("e", "machine1", scan, inNamespace("ns"))}, map[string]string{"machine1": ReasonPodAffinity}},
		{"Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
			mkPod("p", "", "", scan, withPodAffinity(terms(paTerm("", "service", In, "antivirusscan", "value2")), nil)),
			machine1, []*api.Pod{on("e", "machine1", scan)}, map[string]string{"machine1": ReasonPodAffinity}},
		{"satisfies the PodAffinity and PodAntiAffinity with the existing pod",
			mkPod("p", "", "", s1, withPodAffinity(terms(paTerm("region", "service", In, "securityscan", "value2")),
				terms(paTerm("node", "service", In, "antivirusscan", "value2")))),
			machine1, []*api.Pod{on("e", "machine1", scan)}, map[string]string{"machine1": ""}},
		{"satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
			mkPod("p", "", "", s1, withPodAffinity(terms(paTerm("region", "service", In, "securityscan", "value2")),
				terms(paTerm("zone", "service", In, "securityscan", "value2")))),
			machine1, []*api.Pod{on("e", "machine1", scan)}, map[string]string{"machine1": ReasonPodAntiAffinity}},
		{"satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
			mkPod("p", "", "", scan, withPodAffinity(terms(paTerm("region", "service", In, "securityscan", "value2")),
				terms(paTerm("node", "service", In, "antivirusscan", "value2")))),
			machine1, []*api.Pod{on("e", "machine1", scan, withPodAffinity(nil, terms(paTerm("zone", "service", In, "securityscan", "value2"))))},
			map[string]string{"machine1": ReasonExistingAntiAffinity}},
		{"pod matches its own Label in PodAffinity and that matches the existing pod Labels",
			mkPod("p", "", "", scan, withPodAffinity(terms(paTerm("region", "service", NotIn, "securityscan", "value2")), nil)),
			machine1, []*api.Pod{on("e", "machine2", scan)}, map[string]string{"machine1": ReasonPodAffinity}},
		{"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
			mkPod("p", "", "", scan), machine1,
			[]*api.Pod{on("e", "machine1", scan, withPodAffinity(nil, terms(paTerm("zone", "service", In, "securityscan", "value2"))))},
			map[string]string{"machine1": ReasonExistingAntiAffinity}},
		{"verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
			mkPod("p", "", "", scan), machine1,
			[]*api.Pod{on("e", "machine1", scan, withPodAffinity(nil, terms(paTerm("zone", "service", NotIn, "securityscan", "value2"))))},
			map[string]string{"machine1": ""}},
		{"satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
			mkPod("p", "", "", scan, withPodAffinity(nil, terms(paTerm("region", "service", Exists), paTerm("region", "security", Exists)))),
			machine1, []*api.Pod{on("e", "machine1", s1, withPodAffinity(nil, terms(paTerm("zone", "security", Exists))))},
			map[string]string{"machine1": ReasonPodAntiAffinity}},
		// Ours: the first pod of a group that attracts itself schedules
		// when no pod matches its terms (filtering.go's satisfyPodAffinity),
		// but only on nodes carrying the topology key.
		{"first pod of a self-affine group",
			mkPod("p", "", "", scan, withPodAffinity(terms(paTerm("zone", "service", In, "securityscan")), nil)),
			[]*api.Node{lnode("machine1", "zone", "z1"), lnode("machine2")}, nil,
			map[string]string{"machine1": "", "machine2": ReasonPodAffinity}},
		{"affinity follows the matching pod's zone",
			mkPod("p", "", "", scan, withPodAffinity(terms(paTerm("zone", "service", In, "securityscan")), nil)),
			[]*api.Node{lnode("machine1", "zone", "z1"), lnode("machine2", "zone", "z2")}, []*api.Pod{on("e", "machine2", scan)},
			map[string]string{"machine1": ReasonPodAffinity, "machine2": ""}},
		// namespaceSelector {} selects every namespace.
		{"empty namespaceSelector matches pods of every namespace",
			mkPod("p", "", "", withPodAffinity(nil, terms(func() api.PodAffinityTerm {
				t := paTerm("zone", "service", In, "securityscan")
				t.NamespaceSelector = &api.LabelSelector{}
				return t
			}()))),
			[]*api.Node{lnode("machine1", "zone", "z1"), lnode("machine2", "zone", "z2")}, []*api.Pod{on("e", "machine2", scan, inNamespace("other"))},
			map[string]string{"machine1": "", "machine2": ReasonPodAntiAffinity}},
		// matchLabelKeys/mismatchLabelKeys merge the pod's own values in.
		{"mismatchLabelKeys: anti-affinity to other tenants only",
			mkPod("p", "", "", withPodLabels("tenant", "a"), withPodAffinity(nil, terms(func() api.PodAffinityTerm {
				t := paTerm("zone", "tenant", Exists)
				t.MismatchLabelKeys = []string{"tenant"}
				return t
			}()))),
			[]*api.Node{lnode("machine1", "zone", "z1"), lnode("machine2", "zone", "z2")},
			[]*api.Pod{on("e1", "machine1", withPodLabels("tenant", "a")), on("e2", "machine2", withPodLabels("tenant", "b"))},
			map[string]string{"machine1": "", "machine2": ReasonPodAntiAffinity}},
		{"matchLabelKeys: anti-affinity to the same revision only",
			mkPod("p", "", "", withPodLabels("app", "web", "rev", "2"), withPodAffinity(nil, terms(func() api.PodAffinityTerm {
				t := paTerm("zone", "app", In, "web")
				t.MatchLabelKeys = []string{"rev"}
				return t
			}()))),
			[]*api.Node{lnode("machine1", "zone", "z1"), lnode("machine2", "zone", "z2")},
			[]*api.Pod{on("e1", "machine1", withPodLabels("app", "web", "rev", "1")), on("e2", "machine2", withPodLabels("app", "web", "rev", "2"))},
			map[string]string{"machine1": "", "machine2": ReasonPodAntiAffinity}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cacheOf(tt.nodes, tt.pods)
			e := Decide(NewPodInfo(tt.pod), c.Nodes(), Weights{}, rng(), t0)
			got := map[string]string{}
			for _, v := range e.Verdicts {
				got[v.Node] = ""
				if !v.Feasible() {
					got[v.Node] = v.Reasons[0]
					if v.Filter != FilterInterPodAffinity {
						t.Fatalf("%s filtered by %s", v.Node, v.Filter)
					}
					if v.Unresolvable != (v.Reasons[0] == ReasonPodAffinity) {
						t.Fatalf("%s: unresolvable %v for %q", v.Node, v.Unresolvable, v.Reasons[0])
					}
				}
			}
			if !maps.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInterPodAffinityNamespaceSelector(t *testing.T) {
	nsLabels := map[string]map[string]string{"team-a": {"team": "a"}, "team-b": {"team": "b"}}
	c := cacheOf([]*api.Node{lnode("m1", "zone", "z1"), lnode("m2", "zone", "z2"), lnode("m3", "zone", "z3")},
		[]*api.Pod{on("a", "m1", withPodLabels("app", "db"), inNamespace("team-a")), on("b", "m2", withPodLabels("app", "db"), inNamespace("team-b"))})
	term := paTerm("zone", "app", api.LabelSelectorOpIn, "db")
	term.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	pod := mkPod("p", "", "", withPodAffinity(nil, terms(term)))
	pi := NewPodInfo(pod)
	d, _ := decide(pi, c.Nodes(), nil, Weights{}.scorers(), rng(), t0, nil, 0, 3, volumeState{},
		pluginEnv{namespaces: func(ns string) (map[string]string, bool) { l, ok := nsLabels[ns]; return l, ok }})
	e := d.explain()
	var feasible []string
	for _, v := range e.Verdicts {
		if v.Feasible() {
			feasible = append(feasible, v.Node)
		}
	}
	if !slices.Equal(feasible, []string{"m2", "m3"}) {
		t.Fatalf("feasible %v, want m2 m3 (team-a's db is in z1)\n%s", feasible, e.String())
	}
}

func TestInterPodAffinityScore(t *testing.T) {
	// Ported from kube-scheduler's
	// pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go
	// (TestPreferredAffinity), with its nodes: machine1 in region China,
	// machine2 in India, machine3 in China (az1/az2 zones).
	nodes := []*api.Node{
		lnode("machine1", "region", "China", "az", "az1"),
		lnode("machine2", "region", "India", "az", "az2"),
		lnode("machine3", "region", "China", "az", "az1"),
	}
	s1 := withPodLabels("security", "S1")
	s2 := withPodLabels("security", "S2")
	prefS1 := func(w int32, key string) api.WeightedPodAffinityTerm {
		return api.WeightedPodAffinityTerm{Weight: w, PodAffinityTerm: paTerm(key, "security", api.LabelSelectorOpIn, "S1")}
	}
	tests := []struct {
		name string
		pod  *api.Pod
		pods []*api.Pod
		want map[string]int64
	}{
		{"all machines are same priority as Affinity is nil",
			mkPod("p", "", "", s1), []*api.Pod{on("e1", "machine1", s1)},
			map[string]int64{"machine1": 0, "machine2": 0, "machine3": 0}},
		{"Affinity: pod that matches topology key & pods in nodes will get high score comparing to others",
			mkPod("p", "", "", s1, withPreferredPodAffinity([]api.WeightedPodAffinityTerm{prefS1(5, "region")}, nil)),
			[]*api.Pod{on("e1", "machine1", s1), on("e2", "machine2", s2), on("e3", "machine3")},
			map[string]int64{"machine1": 100, "machine2": 0, "machine3": 100}},
		{"Anti Affinity: pod that does not match existing pods in node will get high score",
			mkPod("p", "", "", s1, withPreferredPodAffinity(nil, []api.WeightedPodAffinityTerm{prefS1(5, "region")})),
			[]*api.Pod{on("e1", "machine1", s1), on("e2", "machine2", s2)},
			map[string]int64{"machine1": 0, "machine2": 100, "machine3": 0}},
		// An existing pod's required affinity to the pod counts with
		// hardPodAffinityWeight 1 (the symmetric rule).
		{"Hard Affinity symmetry: existing pods with required affinity to the pod attract it",
			mkPod("p", "", "", s1),
			[]*api.Pod{on("e1", "machine1", s2, withPodAffinity(terms(paTerm("region", "security", api.LabelSelectorOpIn, "S1")), nil))},
			map[string]int64{"machine1": 100, "machine2": 0, "machine3": 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cacheOf(nodes, tt.pods)
			e := Decide(NewPodInfo(tt.pod), c.Nodes(), Weights{}, rng(), t0)
			s := slices.Index(e.ScoreNames, ScoreInterPodAffinity)
			got := map[string]int64{}
			for _, v := range e.Verdicts {
				got[v.Node] = v.Scores[s]
			}
			if !maps.Equal(got, tt.want) {
				t.Fatalf("scores %v, want %v", got, tt.want)
			}
		})
	}
}

func TestInterPodAffinitySkipped(t *testing.T) {
	// Without terms on the pod or on any placed pod, neither plugin does
	// any work (kube's PreFilter and PreScore Skip).
	c := cacheOf([]*api.Node{lnode("m1", "zone", "z1")}, []*api.Pod{on("e", "m1")})
	pc := newPodCtx(NewPodInfo(mkPod("p", "", "")))
	pc.nodes = c.Nodes()
	if newAffinityState(pc) != nil || newSpreadState(pc) != nil {
		t.Fatal("state computed for a pod without constraints")
	}
	if c.withAffinity != 0 {
		t.Fatalf("withAffinity %d", c.withAffinity)
	}
	c.AddPod(on("anti", "m1", withPodAffinity(nil, terms(paTerm("zone", "x", api.LabelSelectorOpExists)))))
	if c.withAffinity != 1 {
		t.Fatalf("withAffinity %d after adding a pod with terms", c.withAffinity)
	}
	c.RemovePod("default/anti")
	if c.withAffinity != 0 {
		t.Fatalf("withAffinity %d after removing it", c.withAffinity)
	}
	if n, _ := c.Node("m1"); len(n.withAffinity) != 0 {
		t.Fatalf("node keeps %d pods with affinity", len(n.withAffinity))
	}
}

// A pod waiting for a pod its affinity needs is retried when such a pod
// is placed, after its backoff, not after UnschedulableTimeout (kube's
// InterPodAffinity requeues on pod adds).
func TestInterPodAffinityRetriedWhenAPodIsPlaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{})
		c.addNode(lnode("m1", "zone", "z1"))
		c.start()
		c.addPod(mkPod("web", "", "", withPodAffinity(terms(paTerm("zone", "app", api.LabelSelectorOpIn, "db")), nil)))
		c.settle(100 * time.Millisecond)
		if got := c.pod("web"); got.Spec.NodeName != "" || scheduledCond(got).Message !=
			"0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." {
			t.Fatalf("web on %q: %q", got.Spec.NodeName, scheduledCond(got).Message)
		}
		c.addPod(bound(mkPod("db", "", "", withPodLabels("app", "db")), "m1"))
		c.settle(2 * time.Second) // the backoff after one attempt is 1 s
		if got := c.pod("web").Spec.NodeName; got != "m1" {
			t.Fatalf("web on %q after db was placed", got)
		}
	})
}
