package scheduler

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// recountGroupZones is Cache.groupZones computed from scratch: per spread
// group and zone label value, the group's pods (not terminating) on the
// candidate nodes.
func recountGroupZones(c *Cache) map[groupZone]int64 {
	out := map[groupZone]int64{}
	for _, n := range c.nodes {
		if n.Node == nil {
			continue
		}
		z, ok := n.Node.Labels[api.LabelTopologyZone]
		if !ok {
			continue
		}
		for _, p := range n.Pods {
			if p.Owner != "" && p.Pod.DeletionTimestamp == nil {
				out[groupZone{p.Owner, z}]++
			}
		}
	}
	return out
}

// recountCounter is a podCounter's domains computed from scratch.
func recountCounter(c *Cache, pc *podCounter) map[string]domainCount {
	out := map[string]domainCount{}
	for _, n := range c.nodes {
		v, ok := pc.domain(n)
		if !ok {
			continue
		}
		d := out[v]
		d.nodes++
		for _, p := range n.Pods {
			if pc.matches(p) {
				d.pods++
			}
		}
		out[v] = d
	}
	return out
}

// recountAntiTerms is the podIndex's antiTerms (anti) or scoreTerms
// computed from scratch: per term ID, the holders, the domain counts and
// the weight.
func recountAntiTerms(c *Cache, anti bool) (map[string]int64, map[string]map[string]int64, map[string]int64) {
	holders, domains, weights := map[string]int64{}, map[string]map[string]int64{}, map[string]int64{}
	for _, n := range c.nodes {
		for _, ep := range n.withAffinity {
			count := func(t affinityTerm, w int64) {
				holders[t.id]++
				weights[t.id] = w
				if domains[t.id] == nil {
					domains[t.id] = map[string]int64{}
				}
				if v, ok := n.labels[t.key]; ok && n.Node != nil {
					domains[t.id][v]++
				}
			}
			a := ep.affinity
			if anti {
				for _, t := range a.reqAnti {
					count(t, 0)
				}
				continue
			}
			for _, t := range a.reqAff {
				count(t, hardPodAffinityWeight)
			}
			for _, t := range a.prefAff {
				count(t, t.weight)
			}
			for _, t := range a.prefAnti {
				count(t, -t.weight)
			}
		}
	}
	return holders, domains, weights
}

// counterDomains is pc's domains by value.
func counterDomains(pc *podCounter) map[string]domainCount {
	out := map[string]domainCount{}
	for v, d := range pc.domains {
		out[v] = *d
	}
	return out
}

// spreadIndexNode is a node of zone z0..z2, or without a zone label, and
// sometimes with a rack label.
func spreadIndexNode(r *rand.Rand, i int) *api.Node {
	n := mkNode(fmt.Sprint("node-", i), "8", "16Gi", 50)
	if z := r.IntN(4); z < 3 {
		n.Labels[api.LabelTopologyZone] = fmt.Sprint("z", z)
	}
	if r.IntN(2) == 0 {
		n.Labels["rack"] = fmt.Sprint("r", r.IntN(2))
	}
	return n
}

// spreadIndexPod is a pod of one of three ReplicaSets (or none),
// sometimes terminating.
func spreadIndexPod(r *rand.Rand, i int) *api.Pod {
	var opts []podOpt
	if r.IntN(4) > 0 {
		opts = append(opts, withOwner("ReplicaSet", fmt.Sprint("rs-", r.IntN(3))))
	}
	if r.IntN(8) == 0 {
		opts = append(opts, terminating)
	}
	blue := &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}}
	key := func() string { return []string{api.LabelHostname, api.LabelTopologyZone}[r.IntN(2)] }
	switch r.IntN(8) {
	case 0, 1:
		opts = append(opts, withPodAffinity(nil, terms(api.PodAffinityTerm{TopologyKey: key(), LabelSelector: blue})))
	case 2: // required affinity, which scores the pods it matches
		opts = append(opts, withPodAffinity(terms(api.PodAffinityTerm{TopologyKey: key(), LabelSelector: blue, Namespaces: []string{"default", "other"}}), nil))
	case 3: // preferred terms, weights 1 or 5
		w := int32(1 + 4*r.IntN(2))
		opts = append(opts, withPreferredPodAffinity(
			[]api.WeightedPodAffinityTerm{{Weight: w, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: key(), LabelSelector: blue}}},
			[]api.WeightedPodAffinityTerm{{Weight: 3, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: "rack", LabelSelector: &api.LabelSelector{}}}}))
	}
	p := mkPod(fmt.Sprint("pod-", i), "100m", "100Mi", opts...)
	p.Labels = map[string]string{"color": []string{"blue", "green"}[r.IntN(2)]}
	if r.IntN(3) == 0 {
		p.Namespace = "other"
	}
	return p
}

// TestGroupZonesIncremental checks the cache's per-group zone counts
// and its pod counters (built at the start and midway, read as they would
// be for spread constraints and anti-affinity terms) against a recount
// after every step of random sequences of node adds,
// relabels (zone changed, added, removed) and removals, and pod assumes,
// binds (confirming an assumption, possibly on another node), updates to
// terminating, removals, forgets and expiries.
func TestGroupZonesIncremental(t *testing.T) {
	for seed := range uint64(20) {
		r := rngSeed(seed)
		c := NewCache(time.Second)
		now := time.Unix(0, 0)
		const nodes, pods = 8, 40
		pod := map[int]*api.Pod{}
		blue := api.SelectorFromSet(map[string]string{"color": "blue"})
		notGreen, _ := (&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "color", Operator: api.LabelSelectorOpNotIn, Values: []string{"green"}}}}).AsSelector()
		// A spread constraint's inclusion policies honoured: a pod
		// selecting rack r0 that tolerates no taint.
		incl := &spreadConstraint{honorAffinity: true, honorTaints: true}
		inclPod := NewPodInfo(mkPod("incl", "1m", "1Mi", withSelector("rack", "r0")))
		include, inclusion := inclusionOf(newPodCtx(inclPod), incl)
		many := []string{"default", "other"}
		for i := range manyNamespaces {
			many = append(many, fmt.Sprint("ns-", i))
		}
		counters := func() []*podCounter {
			return []*podCounter{
				c.counter(counterSpec{namespaces: []string{"default"}, sels: []api.Selector{blue}, live: true, key: api.LabelTopologyZone, require: []string{api.LabelTopologyZone}}),
				c.counter(counterSpec{namespaces: []string{"default", "other"}, sels: []api.Selector{blue}, key: api.LabelHostname, require: []string{api.LabelHostname}}),
				c.counter(counterSpec{namespaces: []string{"other"}, sels: []api.Selector{api.Everything()}, live: true, key: "rack", require: []string{api.LabelTopologyZone, "rack"}}),
				c.counter(counterSpec{namespaces: many, sels: []api.Selector{notGreen, blue}, key: api.LabelHostname, require: []string{api.LabelHostname}}),
				c.counter(counterSpec{namespaces: many, sels: []api.Selector{api.Everything()}, live: true, key: api.LabelTopologyZone, require: []string{api.LabelTopologyZone}, include: include, inclusion: inclusion}),
			}
		}
		ctrs := counters()
		for step := range 400 {
			if step == 200 {
				c.index.counters = map[string]*podCounter{}
				ctrs = counters()
			}
			switch op := r.IntN(9); op {
			case 0, 1: // add or relabel (or retaint) a node
				n := spreadIndexNode(r, r.IntN(nodes))
				if r.IntN(3) == 0 {
					n.Spec.Taints = []api.Taint{{Key: "dedicated", Effect: api.TaintEffectNoSchedule}}
				}
				c.SetNode(n)
			case 2:
				c.RemoveNode(fmt.Sprint("node-", r.IntN(nodes)))
			case 3: // assume
				i := r.IntN(pods)
				p := spreadIndexPod(r, i)
				if c.Assume(p, fmt.Sprint("node-", r.IntN(nodes))) == nil {
					pod[i] = p
					c.FinishBinding(api.Key(p), now)
				}
			case 4, 5: // bind observed: the assumed pod, or a new one
				i := r.IntN(pods)
				p, ok := pod[i]
				if !ok || r.IntN(3) == 0 {
					p = spreadIndexPod(r, i)
				}
				p = p.DeepCopy()
				p.Spec.NodeName = fmt.Sprint("node-", r.IntN(nodes))
				if r.IntN(6) == 0 {
					terminating(p)
				}
				c.AddPod(p)
				pod[i] = p
			case 6:
				i := r.IntN(pods)
				c.RemovePod(api.Key(spreadIndexPod(r, i)))
				delete(pod, i)
			case 7:
				c.Forget(api.Key(spreadIndexPod(r, r.IntN(pods))))
			case 8:
				now = now.Add(time.Duration(r.IntN(1500)) * time.Millisecond)
				c.Expire(now)
			}
			if want := recountGroupZones(c); !maps.Equal(c.groupZones, want) {
				t.Fatalf("seed %d step %d: groupZones %v, recount %v", seed, step, c.groupZones, want)
			}
			for k, pc := range ctrs {
				got, want := counterDomains(pc), recountCounter(c, pc)
				if !maps.Equal(got, want) {
					t.Fatalf("seed %d step %d: counter %d has %v, recount %v", seed, step, k, got, want)
				}
				var total int64
				hist := map[int64]int64{}
				lo := int64(-1)
				for _, d := range want {
					total += d.pods
					hist[d.pods]++
					if lo < 0 || d.pods < lo {
						lo = d.pods
					}
				}
				if pc.total != total || !maps.Equal(pc.hist, hist) || pc.minPods() != max(lo, 0) {
					t.Fatalf("seed %d step %d: counter %d total %d hist %v min %d, recount %d %v %d", seed, step, k, pc.total, pc.hist, pc.minPods(), total, hist, max(lo, 0))
				}
			}
			for kind, terms := range map[bool]map[string]*antiTerm{true: c.index.antiTerms, false: c.index.scoreTerms} {
				holders, domains, weights := recountAntiTerms(c, kind)
				if len(holders) != len(terms) {
					t.Fatalf("seed %d step %d: %d terms (anti %v), recount %d", seed, step, len(terms), kind, len(holders))
				}
				for id, at := range terms {
					if at.holders != holders[id] || !maps.Equal(at.domains, domains[id]) || at.weight != weights[id] {
						t.Fatalf("seed %d step %d: term %q held %d in %v weighing %d, recount %d in %v weighing %d", seed, step, id, at.holders, at.domains, at.weight, holders[id], domains[id], weights[id])
					}
				}
			}
		}
	}
}

// TestSpreadScoreFromCacheCounts checks that PodTopologySpread's score
// of the system default constraints is the same whether it reads the
// cache's zone counts or walks every node, over random clusters, for pods
// with and without node affinity (which narrows the counted nodes, so
// the walk is kept).
func TestSpreadScoreFromCacheCounts(t *testing.T) {
	ss := Weights{LeastAllocated: -1, BalancedAllocation: -1, InterPodAffinity: -1, NodeAffinity: -1, TaintToleration: -1, ImageLocality: -1}.scorers()
	if len(ss) != 1 || ss[0].name != ScorePodTopologySpread {
		t.Fatalf("scorers %v", ss)
	}
	varied := 0
	for seed := range uint64(30) {
		r := rngSeed(seed)
		c := NewCache(0)
		for i := range 30 {
			c.SetNode(spreadIndexNode(r, i))
		}
		for i := range 120 {
			p := spreadIndexPod(r, i)
			p.Spec.NodeName = fmt.Sprint("node-", r.IntN(30))
			c.AddPod(p)
		}
		for range 10 { // relabel some after the pods are placed
			c.SetNode(spreadIndexNode(r, r.IntN(30)))
		}
		nodes := c.Nodes()
		for k := range 10 {
			p := mkPod(fmt.Sprint("new-", k), "100m", "100Mi", withOwner("ReplicaSet", fmt.Sprint("rs-", r.IntN(3))))
			if k%3 == 0 {
				p.Spec.NodeSelector = map[string]string{api.LabelTopologyZone: fmt.Sprint("z", r.IntN(3))}
			}
			pi := NewPodInfo(p)
			limit := 5 + r.IntN(len(nodes))
			walked, _ := decide(pi, nodes, c.names, ss, rngSeed(seed), time.Time{}, nil, k, limit, volumeState{}, pluginEnv{})
			cached, _ := decide(pi, nodes, c.names, ss, rngSeed(seed), time.Time{}, &scratch{}, k, limit, volumeState{}, pluginEnv{groupZones: c.groupZones})
			if !slices.Equal(walked.scores, cached.scores) || walked.node != cached.node {
				t.Fatalf("seed %d pod %d: walked %v → %s, from the cache %v → %s", seed, k, walked.scores, walked.node, cached.scores, cached.node)
			}
			if walked.feasible > 1 && slices.Max(walked.scores) != slices.Min(walked.scores) {
				varied++
			}
		}
	}
	if varied == 0 {
		t.Fatal("no attempt scored nodes differently: the test exercises nothing")
	}
}

// indexNamespaces are the namespace labels of the index tests.
var indexNamespaces = map[string]map[string]string{"default": {"team": "a"}, "other": {"team": "b"}, "third": {"team": "a", "tier": "x"}}

// indexNamespaceLookup looks indexNamespaces up.
func indexNamespaceLookup(name string) (map[string]string, bool) {
	l, ok := indexNamespaces[name]
	return l, ok
}

// indexCluster is a random cache of 20 nodes (some tainted) and 60
// pods (some on nodes the cache does not have, some in namespace third).
func indexCluster(r *rand.Rand) *Cache {
	c := NewCache(0)
	for i := range 20 {
		n := spreadIndexNode(r, i)
		if r.IntN(5) == 0 {
			n.Spec.Taints = []api.Taint{{Key: "dedicated", Effect: api.TaintEffectNoSchedule}}
		}
		c.SetNode(n)
	}
	for i := range 60 {
		p := spreadIndexPod(r, i)
		p.Spec.NodeName = fmt.Sprint("node-", r.IntN(22)) // some on ghost nodes
		if i%7 == 0 {
			p.Namespace = "third"
		}
		c.AddPod(p)
	}
	return c
}

// indexCasePod is the k-th pod of the index tests: spread constraints
// (inclusion policies honoured or not, minDomains), required pod
// affinity and anti-affinity (namespaceSelectors, several terms), node
// selectors and tolerations, in namespace default, other or third.
func indexCasePod(r *rand.Rand, k int) *api.Pod {
	blue := &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}}
	notGreen := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "color", Operator: api.LabelSelectorOpNotIn, Values: []string{"green"}}}}
	teamA := &api.LabelSelector{MatchLabels: map[string]string{"team": "a"}}
	notTeamA := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "team", Operator: api.LabelSelectorOpNotIn, Values: []string{"a"}}}}
	var opts []podOpt
	switch k % 11 {
	case 0:
		opts = append(opts, withSpread(1, api.LabelTopologyZone, DoNotSchedule, blue))
	case 1:
		opts = append(opts, withSpread(1, "rack", DoNotSchedule, blue, func(c *api.TopologySpreadConstraint) {
			m := int32(3)
			c.MinDomains = &m
		}), withSpread(2, api.LabelTopologyZone, DoNotSchedule, blue))
	case 2:
		opts = append(opts, withPodAffinity(nil, terms(api.PodAffinityTerm{TopologyKey: api.LabelHostname, LabelSelector: blue, Namespaces: []string{"default", "other"}})))
	case 3:
		opts = append(opts, withPodAffinity(nil, terms(api.PodAffinityTerm{TopologyKey: api.LabelTopologyZone, LabelSelector: blue})),
			withSpread(1, api.LabelHostname, DoNotSchedule, blue))
	case 4: // the pod's own required affinity
		opts = append(opts, withPodAffinity(terms(api.PodAffinityTerm{TopologyKey: api.LabelHostname, LabelSelector: blue, Namespaces: []string{"default", "other"}}), nil))
	case 5: // two affinity terms: pods matching both, over each key
		opts = append(opts, withPodAffinity(terms(
			api.PodAffinityTerm{TopologyKey: api.LabelTopologyZone, LabelSelector: blue},
			api.PodAffinityTerm{TopologyKey: "rack", LabelSelector: notGreen, Namespaces: []string{"default", "third"}}), nil))
	case 6: // namespaceSelector anti-affinity
		opts = append(opts, withPodAffinity(nil, terms(api.PodAffinityTerm{TopologyKey: api.LabelHostname, LabelSelector: blue, NamespaceSelector: teamA})))
	case 7: // affinity to every namespace, anti-affinity by a NotIn namespaceSelector
		opts = append(opts, withPodAffinity(
			terms(api.PodAffinityTerm{TopologyKey: api.LabelTopologyZone, LabelSelector: blue, NamespaceSelector: &api.LabelSelector{}}),
			terms(api.PodAffinityTerm{TopologyKey: "rack", LabelSelector: notGreen, NamespaceSelector: notTeamA, Namespaces: []string{"third"}})))
	case 8: // spread honouring a required node affinity and the taints
		opts = append(opts, withSpread(1, api.LabelHostname, DoNotSchedule, blue, func(c *api.TopologySpreadConstraint) {
			honor := policyHonor
			c.NodeTaintsPolicy = &honor
		}), withSpread(1, api.LabelTopologyZone, DoNotSchedule, blue), withRequired(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: api.LabelTopologyZone, Operator: api.NodeSelectorOpIn, Values: []string{"z0", "z1"}}}}))
	case 9: // nodeAffinityPolicy Ignore with a node selector
		opts = append(opts, withSpread(1, api.LabelTopologyZone, DoNotSchedule, blue, func(c *api.TopologySpreadConstraint) {
			ignore := "Ignore"
			c.NodeAffinityPolicy = &ignore
		}), withSelector("rack", "r1"))
	case 10: // hostname DoNotSchedule with minDomains
		opts = append(opts, withSpread(1, api.LabelHostname, DoNotSchedule, notGreen, func(c *api.TopologySpreadConstraint) {
			m := int32(15)
			c.MinDomains = &m
		}))
	}
	if r.IntN(3) == 0 {
		opts = append(opts, withSelector("rack", "r0"))
	}
	if r.IntN(2) == 0 {
		opts = append(opts, withToleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpExists}))
	}
	p := mkPod(fmt.Sprint("new-", k), "100m", "100Mi", opts...)
	p.Labels = map[string]string{"color": "blue"}
	if k%2 == 1 {
		p.Namespace = []string{"other", "third"}[r.IntN(2)]
	}
	return p
}

// TestIndexedPreFiltersMatchWalk checks that decisions read from the
// cache's podIndex (PodTopologySpread's DoNotSchedule counts and minima,
// with node inclusion policies honoured or not; InterPodAffinity's
// counts of the pod's own affinity and anti-affinity terms, with
// namespaceSelectors, and of the placed pods' anti-affinity terms; the
// nodes with affinity pods) equal those walking every node, verdict for
// verdict and score for score, over random clusters with tainted nodes
// and pods in labelled namespaces, placing some of the pods as it goes.
func TestIndexedPreFiltersMatchWalk(t *testing.T) {
	ss := Weights{}.scorers()
	rejected, byAffinity, bySpread := 0, 0, 0
	for seed := range uint64(40) {
		r := rngSeed(seed)
		c := indexCluster(r)
		for k := range 22 {
			p := indexCasePod(r, k)
			pi := NewPodInfo(p)
			nodes := c.Nodes()
			env := pluginEnv{anyAffinity: c.withAffinity > 0, namespaces: indexNamespaceLookup}
			walked, _ := decide(pi, nodes, c.names, ss, rngSeed(seed), time.Time{}, nil, 0, len(nodes), volumeState{}, env)
			env.cache = c
			indexed, _ := decide(pi, nodes, c.names, ss, rngSeed(seed), time.Time{}, nil, 0, len(nodes), volumeState{}, env)
			we, ie := walked.explain(), indexed.explain()
			we.Time, ie.Time = time.Time{}, time.Time{}
			if we.String() != ie.String() || walked.node != indexed.node || walked.message != indexed.message {
				t.Fatalf("seed %d pod %d:\nwalked:\n%s\nindexed:\n%s", seed, k, we.String(), ie.String())
			}
			if walked.podWait {
				rejected++
			}
			for _, v := range we.Verdicts {
				switch v.Filter {
				case FilterInterPodAffinity:
					byAffinity++
				case FilterPodTopologySpread:
					bySpread++
				}
			}
			if walked.node != "" && k%3 == 0 {
				// Place it, so that later pods see it (and a counter
				// built earlier follows).
				_ = c.Assume(p, walked.node)
			}
		}
	}
	if rejected == 0 || byAffinity == 0 || bySpread == 0 {
		t.Fatalf("%d attempts rejected by PodTopologySpread or InterPodAffinity (%d nodes by affinity, %d by spread): the test exercises too little", rejected, byAffinity, bySpread)
	}
}

// TestDecideKeepsOnlyEvaluatedWindow checks that an attempt that found a
// node keeps verdicts only for the nodes it evaluated, wrapping past the
// last node, and that its Explanation still has every node: the
// evaluated ones with their verdicts, the rest Skipped.
func TestDecideKeepsOnlyEvaluatedWindow(t *testing.T) {
	c := NewCache(0)
	for i := range 10 {
		var opts []nodeOpt
		if i == 8 || i == 1 {
			opts = append(opts, cordoned)
		}
		c.SetNode(mkNode(fmt.Sprintf("node-%d", i), "4", "8Gi", 10, opts...))
	}
	nodes := c.Nodes()
	var sc scratch
	d, next := decide(NewPodInfo(mkPod("p", "100m", "100Mi")), nodes, c.names, Weights{}.scorers(), rngSeed(1), time.Time{}, &sc, 7, 4, volumeState{}, pluginEnv{})
	// From node-7: 7 feasible, 8 cordoned, 9, 0, 1 cordoned, 2: four
	// feasible after six nodes.
	if d.node == "" || next != 3 || len(d.verdict) != 6 || d.vstart != 7 {
		t.Fatalf("node %q next %d window %d from %d, want a node, 3, 6 from 7", d.node, next, len(d.verdict), d.vstart)
	}
	e := d.explain()
	if len(e.Verdicts) != 10 {
		t.Fatalf("%d verdicts, want 10", len(e.Verdicts))
	}
	for i, v := range e.Verdicts {
		evaluated := i >= 7 || i <= 2
		switch {
		case v.Node != fmt.Sprintf("node-%d", i):
			t.Errorf("verdict %d is of %s", i, v.Node)
		case v.Skipped == evaluated:
			t.Errorf("%s: skipped %v, want %v", v.Node, v.Skipped, !evaluated)
		case (i == 8 || i == 1) && v.Filter != FilterNodeUnschedulable:
			t.Errorf("%s: filter %q, want %s", v.Node, v.Filter, FilterNodeUnschedulable)
		case evaluated && i != 8 && i != 1 && !v.Feasible():
			t.Errorf("%s: not feasible: %+v", v.Node, v)
		}
	}
	if e.Feasible != 4 {
		t.Errorf("%d feasible, want 4", e.Feasible)
	}
}

// prefiltered is pc as decide sets it up for pi over nodes, PreFilters
// run: read from the cache's index when env.cache is set.
func prefiltered(pi *PodInfo, nodes []*NodeInfo, env pluginEnv) *podCtx {
	pc := newPodCtx(pi)
	pc.nodes, pc.anyAffinity, pc.namespaces, pc.cache = nodes, env.anyAffinity, env.namespaces, env.cache
	pc.spread = newSpreadState(pc)
	pc.affinity = newAffinityState(pc)
	setActiveFilters(pc)
	return pc
}

// TestPreemptionDryRunMatchesWalk checks that preemption's dry run on a
// node with some of its pods removed (and some put back) gives the same
// reasons whether PodTopologySpread's and InterPodAffinity's states are
// changed in the node's domains from the cache's index or recounted over
// every node, over random clusters and the index tests' pods.
func TestPreemptionDryRunMatchesWalk(t *testing.T) {
	lifted := 0
	for seed := range uint64(40) {
		r := rngSeed(seed)
		c := indexCluster(r)
		nodes := c.Nodes()
		env := pluginEnv{anyAffinity: c.withAffinity > 0, namespaces: indexNamespaceLookup}
		for k := range 22 {
			pi := NewPodInfo(indexCasePod(r, k))
			walk := prefiltered(pi, nodes, env)
			idx := prefiltered(pi, nodes, pluginEnv{anyAffinity: env.anyAffinity, namespaces: env.namespaces, cache: c})
			for range 6 {
				i := r.IntN(len(nodes))
				n := nodes[i].clone()
				var removed []*PodInfo
				for _, p := range n.Pods {
					if r.IntN(2) == 0 {
						removed = append(removed, p)
					}
				}
				slices.SortFunc(removed, func(a, b *PodInfo) int { return strings.Compare(a.Key, b.Key) })
				for _, p := range removed {
					n.removePod(p)
				}
				check := func() {
					want, got := reasonsWith(walk, i, n), reasonsWith(idx, i, n)
					if !slices.Equal(want, got) {
						t.Fatalf("seed %d pod %d node %s: recounted %q, from the index %q", seed, k, n.Name, want, got)
					}
					checkReplacedStates(t, walk, idx, i, n)
					if f, before := runFilters(walk, nodes[i]); before != nil && want == nil && (f == podTopologySpreadIndex || f == interPodAffinityIndex) {
						lifted++
					}
				}
				check()
				for _, p := range removed {
					if r.IntN(2) == 0 {
						n.addPod(p)
						check()
					}
				}
			}
		}
	}
	if lifted == 0 {
		t.Fatal("no removal made a node fit that PodTopologySpread or InterPodAffinity rejected: the test exercises nothing")
	}
}

// checkReplacedStates checks the states idx's replaced gives for node i
// replaced by n against those recounted over every node (walk's pod):
// the spread minima and the counts in n's domains, and whether a pod
// matches the pod's affinity terms anywhere.
func checkReplacedStates(t *testing.T, walk, idx *podCtx, i int, n *NodeInfo) {
	t.Helper()
	cp := *walk
	cp.nodes = slices.Clone(walk.nodes)
	cp.nodes[i] = n
	if idx.spread != nil {
		want, got := newSpreadState(&cp), idx.spread.replaced(idx, idx.nodes[i], n)
		if !slices.Equal(want.min, got.min) {
			t.Fatalf("node %s: spread minima recounted %v, replaced %v", n.Name, want.min, got.min)
		}
		for c := range want.cons {
			v := n.labels[want.cons[c].key]
			if want.count(c, v) != got.count(c, v) {
				t.Fatalf("node %s: constraint %d counts %d in %q recounted, %d replaced", n.Name, c, want.count(c, v), v, got.count(c, v))
			}
		}
	}
	if idx.affinity != nil {
		want, got := newAffinityState(&cp), idx.affinity.replaced(idx, idx.nodes[i], n)
		if want != nil && want.affExist != got.affExist {
			t.Fatalf("node %s: affinity terms matched anywhere: recounted %v, replaced %v", n.Name, want.affExist, got.affExist)
		}
	}
}

// TestPreemptionDryRunLastAffinityMatch checks the dry run on the node
// holding the only pod that matches a pod's required affinity: without
// it no pod matches anywhere, so the pod, matching its own term, fits
// there (InterPodAffinity's first pod of a group) — from the index as
// recounted.
func TestPreemptionDryRunLastAffinityMatch(t *testing.T) {
	c := NewCache(0)
	for i := range 3 {
		c.SetNode(mkNode(fmt.Sprint("node-", i), "4", "8Gi", 10))
	}
	blue := mkPod("blue", "100m", "100Mi")
	blue.Labels = map[string]string{"color": "blue"}
	c.AddPod(bound(blue, "node-0"))
	c.AddPod(bound(mkPod("other", "100m", "100Mi"), "node-0"))
	p := mkPod("new", "100m", "100Mi", withPodAffinity(terms(api.PodAffinityTerm{TopologyKey: api.LabelHostname,
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}}}), nil))
	p.Labels = map[string]string{"color": "blue"}
	pi := NewPodInfo(p)
	nodes := c.Nodes()
	walk := prefiltered(pi, nodes, pluginEnv{})
	idx := prefiltered(pi, nodes, pluginEnv{cache: c})
	if _, r := runFilters(idx, nodes[1]); r == nil || &r[0] != &reasonsPodAffinity[0] {
		t.Fatalf("node-1 before: %q, want %q", r, ReasonPodAffinity)
	}
	n := nodes[0].clone()
	n.removePod(n.Pods[api.Key(blue)])
	checkReplacedStates(t, walk, idx, 0, n)
	if r := reasonsWith(idx, 0, n); r != nil {
		t.Fatalf("node-0 without the blue pod: %q, want it to fit", r)
	}
	if r := reasonsWith(walk, 0, n); r != nil {
		t.Fatalf("node-0 without the blue pod, recounted: %q, want it to fit", r)
	}
}
