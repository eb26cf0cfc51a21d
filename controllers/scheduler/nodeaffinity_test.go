package scheduler

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
)

func fieldsIn(names ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: api.NodeFieldName, Operator: api.NodeSelectorOpIn, Values: names}
}

// PreFilter rows of kube's nodeaffinity/node_affinity_test.go
// (TestNodeAffinity, wantPreFilterResult and errReasonConflict).
func TestNodeAffinityPreFilter(t *testing.T) {
	label := api.NodeSelectorRequirement{Key: "foo", Operator: api.NodeSelectorOpIn, Values: []string{"bar"}}
	tests := []struct {
		name     string
		terms    []api.NodeSelectorTerm
		want     []string
		conflict bool
	}{
		{"matchFields In matches the existing node", []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{fieldsIn("node1")}}}, []string{"node1"}, false},
		{"two terms: matchFields does not match, but matchExpressions matches",
			[]api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{fieldsIn("node1")}}, {MatchExpressions: []api.NodeSelectorRequirement{label}}}, nil, false},
		{"one term: matchFields and matchExpressions",
			[]api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{fieldsIn("node1")}, MatchExpressions: []api.NodeSelectorRequirement{label}}}, []string{"node1"}, false},
		{"two terms of node.Name affinity",
			[]api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{fieldsIn("node1")}}, {MatchFields: []api.NodeSelectorRequirement{fieldsIn("node2")}}}, []string{"node1", "node2"}, false},
		{"two conflicting match field requirements",
			[]api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{fieldsIn("node1"), fieldsIn("node2")}}}, nil, true},
		{"intersection within a term", []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{fieldsIn("node1", "node2", "node3"), fieldsIn("node3", "node2")}}},
			[]string{"node2", "node3"}, false},
		{"NotIn does not narrow", []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{Key: api.NodeFieldName, Operator: api.NodeSelectorOpNotIn, Values: []string{"node1"}}}}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, conflict := nodeAffinityPreFilter(mkPod("p", "", "", withRequired(tt.terms...)))
			if !slices.Equal(got, tt.want) || conflict != tt.conflict {
				t.Fatalf("got %q conflict %v, want %q %v", got, conflict, tt.want, tt.conflict)
			}
		})
	}
	if got, c := nodeAffinityPreFilter(mkPod("p", "", "", withSelector("a", "b"))); got != nil || c {
		t.Fatalf("a nodeSelector alone narrows: %q %v", got, c)
	}
}

// countingScorer fails the test if a skipped plugin scores a node.
func countingScorer(t *testing.T, calls *int) scorer {
	return scorer{name: "Counting", weight: 1, raw: func(*podCtx, *NodeInfo) int64 { *calls++; return 1 },
		skip: func(pc *podCtx) bool { return len(pc.preferred) == 0 }}
}

// With a PreFilter result, only its nodes are filtered; the others get
// the framework's reason, counted in the message as schedule_one.go's
// FitError counts absent nodes, and are unresolvable for preemption.
func TestNodeAffinityNarrowing(t *testing.T) {
	c := NewCache(time.Minute)
	for _, n := range []*api.Node{mkNode("a", "4", "1Gi", 10), mkNode("b", "2", "1Gi", 10), mkNode("c", "4", "1Gi", 10), mkNode("d", "4", "1Gi", 10)} {
		c.SetNode(n)
	}
	c.AddPod(bound(mkPod("x", "1", ""), "b"))
	run := func(pod *api.Pod, ss []scorer) *decision {
		pi := NewPodInfo(pod)
		d, _ := decide(pi, c.Nodes(), c.names, ss, rng(), t0, nil, 0, 4, volumeState{}, pluginEnv{})
		return d
	}
	narrow := func(names ...string) podOpt {
		return withRequired(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{fieldsIn(names...)}})
	}

	d := run(mkPod("p", "2", "", narrow("b", "missing")), Weights{}.scorers())
	want := "0/4 nodes are available: 1 Insufficient cpu, 3 node(s) didn't satisfy plugin(s) [NodeAffinity]." +
		" preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling."
	if d.message != want {
		t.Fatalf("message %q\nwant    %q", d.message, want)
	}
	e := d.explain()
	for _, v := range e.Verdicts {
		if v.Node == "b" {
			if v.Filter != FilterNodeResourcesFit || v.Unresolvable {
				t.Fatalf("b: %+v", v)
			}
			continue
		}
		if v.Filter != FilterNodeAffinity || !slices.Equal(v.Reasons, []string{ReasonPreFilterNodeAffinity}) || !v.Unresolvable {
			t.Fatalf("%s: %+v", v.Node, v)
		}
	}

	var calls int
	d = run(mkPod("p", "1", "", narrow("d", "c")), append(Weights{}.scorers(), countingScorer(t, &calls)))
	if d.node != "c" && d.node != "d" || d.feasible != 2 {
		t.Fatalf("chose %q of %d feasible", d.node, d.feasible)
	}
	if calls != 0 {
		t.Fatalf("a plugin whose PreScore skips scored %d nodes", calls)
	}
	if e := d.explain(); e.Verdicts[0].Filter != FilterNodeAffinity {
		t.Fatalf("a: %+v", e.Verdicts[0])
	}

	d = run(mkPod("p", "", "", narrow("nowhere")), Weights{}.scorers())
	if want := "0/4 nodes are available: 4 node(s) didn't satisfy plugin(s) [NodeAffinity]." +
		" preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."; d.message != want {
		t.Fatalf("message %q", d.message)
	}

	d = run(mkPod("p", "", "", withRequired(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{fieldsIn("a"), fieldsIn("b")}})), Weights{}.scorers())
	if want := "0/4 nodes are available: pod affinity terms conflict." +
		" preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."; d.message != want {
		t.Fatalf("message %q", d.message)
	}
	if d.claimWait {
		t.Fatal("a NodeAffinity conflict waits for claims")
	}
}

// NodeAffinityArgs.addedAffinity, after node_affinity_test.go's
// "Matches added affinity and Pod's node affinity", "Matches added
// affinity but not Pod's node affinity", "Doesn't match added affinity"
// and the Score rows with added preferred terms.
func TestAddedAffinity(t *testing.T) {
	args := NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{term("zone", api.NodeSelectorOpIn, "foo")}},
		PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{
			{Weight: 5, Preference: term("disk", api.NodeSelectorOpIn, "ssd")}},
	}}
	if err := args.validate(); err != nil {
		t.Fatal(err)
	}
	c := NewCache(time.Minute)
	for _, n := range []*api.Node{
		mkNode("a", "4", "1Gi", 10, withLabels("zone", "foo", "x", "y")),
		mkNode("b", "4", "1Gi", 10, withLabels("zone", "foo", "disk", "ssd")),
		mkNode("c", "4", "1Gi", 10, withLabels("zone", "bar", "disk", "ssd", "x", "y")),
	} {
		c.SetNode(n)
	}
	env := pluginEnv{added: newAddedAffinity(args)}
	run := func(pod *api.Pod) *decision {
		d, _ := decide(NewPodInfo(pod), c.Nodes(), c.names, []scorer{Weights{}.scorers()[4]}, rng(), t0, nil, 0, 3, volumeState{}, env)
		return d
	}
	// The pod's own selector is ANDed: a matches both.
	d := run(mkPod("p", "", "", withSelector("x", "y")))
	e := d.explain()
	if d.node != "a" {
		t.Fatalf("chose %q: %s", d.node, e.String())
	}
	if v, _ := e.Verdict("c"); v.Filter != FilterNodeAffinity || !slices.Equal(v.Reasons, []string{ReasonNodeAffinityEnforced}) || !v.Unresolvable {
		t.Fatalf("c: %+v", v)
	}
	if v, _ := e.Verdict("b"); !slices.Equal(v.Reasons, []string{ReasonNodeAffinity}) {
		t.Fatalf("b: %+v", v)
	}
	// The added preferred term scores, with the pod's own (none here).
	d = run(mkPod("p", "", ""))
	e = d.explain()
	if e.ScoreNames[0] != ScoreNodeAffinity {
		t.Fatalf("scorer %q", e.ScoreNames[0])
	}
	va, _ := e.Verdict("a")
	vb, _ := e.Verdict("b")
	if va.Scores[0] != 0 || vb.Scores[0] != MaxNodeScore || d.node != "b" {
		t.Fatalf("scores a %v b %v, chose %q", va.Scores, vb.Scores, d.node)
	}
	if !strings.Contains(e.String(), "c: filtered by NodeAffinity: "+ReasonNodeAffinityEnforced) {
		t.Fatal(e.String())
	}
}

// ValidateNodeAffinityArgs' cases: a malformed added affinity is an
// error of New.
func TestAddedAffinityValidation(t *testing.T) {
	for name, aa := range map[string]*api.NodeAffinity{
		"no terms": {RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{}},
		"bad operator": {RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
			term("zone", "Near", "foo")}}},
		"in without values": {RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
			term("zone", api.NodeSelectorOpIn)}}},
		"weight 0":   {PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 0, Preference: term("a", api.NodeSelectorOpExists)}}},
		"weight 101": {PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 101, Preference: term("a", api.NodeSelectorOpExists)}}},
		"bad field": {RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
			{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.uid", Operator: api.NodeSelectorOpIn, Values: []string{"x"}}}}}}},
	} {
		pods, _ := fake.NewSource(api.Key[*api.Pod], fake.Options[*api.Pod]{})
		nodes, _ := fake.NewSource(api.Key[*api.Node], fake.Options[*api.Node]{})
		o := Options{Pods: pods, Nodes: nodes, Binder: PodWriter{Pods: pods}, NodeAffinityArgs: NodeAffinityArgs{AddedAffinity: aa}}
		if _, err := New(o); err == nil || !strings.Contains(err.Error(), "NodeAffinityArgs.AddedAffinity") {
			t.Errorf("%s: err %v", name, err)
		}
	}
}

// Options.NodeAffinityArgs reaches every attempt of the scheduler.
func TestSchedulerAddedAffinity(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, Options{NodeAffinityArgs: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{term("pool", api.NodeSelectorOpIn, "batch")}}}}})
		c.addNode(mkNode("big", "8", "8Gi", 110))
		c.addNode(mkNode("batch", "1", "1Gi", 110, withLabels("pool", "batch")))
		c.addPod(mkPod("web", "100m", ""))
		c.start()
		c.settle(time.Second)
		if got := c.pod("web").Spec.NodeName; got != "batch" {
			t.Fatalf("bound to %q", got)
		}
	})
}
