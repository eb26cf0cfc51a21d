package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// refSpreadScores is PodTopologySpread's PreScore, Score and
// NormalizeScore written out plainly over label values, as kube-
// scheduler's plugin computes them: the reference the scored domain ids
// of normalizePodTopologySpread are checked against. feasible are the
// nodes scored, all every candidate node. With groupZones, a system
// default zone constraint counts the pods of the nodes carrying the zone
// label only, as the cache's per-group zone counts do.
func refSpreadScores(pc *podCtx, all, feasible []*NodeInfo, groupZones bool) []int64 {
	scores := make([]int64, len(feasible))
	cs := spreadConstraints(pc.info, ScheduleAnyway)
	if len(cs) == 0 {
		return scores
	}
	requireAll := len(pc.pod.Spec.TopologySpreadConstraints) > 0
	carriesAll := func(n *NodeInfo) bool {
		for _, c := range cs {
			if _, ok := n.Node.Labels[c.key]; !ok {
				return false
			}
		}
		return true
	}
	ignored := make([]bool, len(feasible))
	domains := make([]map[string]int64, len(cs))
	for i := range cs {
		domains[i] = map[string]int64{}
	}
	scored := 0
	for j, n := range feasible {
		if requireAll && !carriesAll(n) {
			ignored[j] = true
			continue
		}
		scored++
		for i, c := range cs {
			domains[i][n.Node.Labels[c.key]] = 0
		}
	}
	weights := make([]float64, len(cs))
	for i, c := range cs {
		size := len(domains[i])
		if c.key == api.LabelHostname {
			size = scored
		}
		weights[i] = math.Log(float64(size + 2))
	}
	for _, n := range all {
		if requireAll && !carriesAll(n) {
			continue
		}
		for i := range cs {
			c := &cs[i]
			if c.key == api.LabelHostname || !c.includes(pc, n) {
				continue
			}
			v, has := n.Node.Labels[c.key]
			if groupZones && !requireAll && c.owner != "" && c.key == api.LabelTopologyZone && admitsEveryNode(pc, c) && !has {
				continue
			}
			if _, ok := domains[i][v]; ok {
				domains[i][v] += c.countOn(pc, n)
			}
		}
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for j, n := range feasible {
		if ignored[j] {
			continue
		}
		var f float64
		for i := range cs {
			c := &cs[i]
			v, ok := n.Node.Labels[c.key]
			if !ok {
				continue
			}
			cnt := domains[i][v]
			if c.key == api.LabelHostname {
				cnt = c.countOn(pc, n)
			}
			f += float64(cnt)*weights[i] + float64(c.maxSkew-1)
		}
		scores[j] = int64(math.Round(f))
		lo, hi = min(lo, scores[j]), max(hi, scores[j])
	}
	for j := range scores {
		switch {
		case ignored[j]:
			scores[j] = 0
		case hi == 0:
			scores[j] = MaxNodeScore
		default:
			scores[j] = MaxNodeScore * (hi + lo - scores[j]) / hi
		}
	}
	return scores
}

// spreadScoreNode is a random node: a zone of three (or none, or the
// empty value), a rack of two or none, sometimes no hostname label,
// sometimes tainted.
func spreadScoreNode(r *rand.Rand, i int) *api.Node {
	n := mkNode(fmt.Sprint("node-", i), "8", "16Gi", 50)
	switch z := r.IntN(6); {
	case z < 3:
		n.Labels[api.LabelTopologyZone] = fmt.Sprint("z", z)
	case z == 3:
		n.Labels[api.LabelTopologyZone] = ""
	}
	if r.IntN(3) > 0 {
		n.Labels["rack"] = fmt.Sprint("r", r.IntN(2))
	}
	if r.IntN(8) == 0 {
		delete(n.Labels, api.LabelHostname)
	}
	if r.IntN(5) == 0 {
		n.Spec.Taints = []api.Taint{{Key: "dedicated", Effect: api.TaintEffectNoSchedule}}
	}
	return n
}

// spreadScorePod is a random pod to score: system default constraints
// (its ReplicaSet), or ScheduleAnyway constraints over hostname, zone or
// rack with inclusion policies, beside a DoNotSchedule one, sometimes
// with a node selector.
func spreadScorePod(r *rand.Rand, k int) *api.Pod {
	blue := &api.LabelSelector{MatchLabels: map[string]string{"color": "blue"}}
	keys := []string{api.LabelHostname, api.LabelTopologyZone, "rack"}
	var opts []podOpt
	switch r.IntN(3) {
	case 0:
		opts = append(opts, withOwner("ReplicaSet", fmt.Sprint("rs-", r.IntN(3))))
	default:
		for range 1 + r.IntN(3) {
			honorTaints := r.IntN(2) == 0
			opts = append(opts, withSpread(int32(1+r.IntN(3)), keys[r.IntN(len(keys))], ScheduleAnyway, blue, func(c *api.TopologySpreadConstraint) {
				if honorTaints {
					h := policyHonor
					c.NodeTaintsPolicy = &h
				}
			}))
		}
		if r.IntN(3) == 0 {
			opts = append(opts, withSpread(1, "rack", DoNotSchedule, blue))
		}
	}
	if r.IntN(4) == 0 {
		opts = append(opts, withSelector(api.LabelTopologyZone, fmt.Sprint("z", r.IntN(3))))
	}
	p := mkPod(fmt.Sprint("new-", k), "100m", "100Mi", opts...)
	p.Labels = map[string]string{"color": "blue"}
	return p
}

// TestSpreadScoreMatchesReference checks normalizePodTopologySpread on
// random clusters (nodes lacking labels, tainted, relabelled after their
// pods were placed) and random subsets of feasible nodes against
// refSpreadScores: walking the nodes (no cache) and reading the cache's
// zone ids and per-group zone counts, with one scratch reused across the
// attempts (a constraint's state must not leak into the next attempt's:
// a hostname constraint once made the same index of a later pod's
// constraints score per node, whatever its key).
func TestSpreadScoreMatchesReference(t *testing.T) {
	varied := 0
	for seed := range uint64(40) {
		r := rngSeed(seed)
		c := NewCache(0)
		const nodes = 30
		for i := range nodes {
			c.SetNode(spreadScoreNode(r, i))
		}
		for i := range 150 {
			p := spreadIndexPod(r, i)
			p.Spec.NodeName = fmt.Sprint("node-", r.IntN(nodes+2)) // some on ghost nodes
			c.AddPod(p)
		}
		for range 8 {
			c.SetNode(spreadScoreNode(r, r.IntN(nodes)))
		}
		all := c.Nodes()
		sc := &scratch{}
		for k := range 12 {
			pi := NewPodInfo(spreadScorePod(r, k))
			var idx []int32
			var feasible []*NodeInfo
			for i, n := range all {
				if r.IntN(3) > 0 {
					idx = append(idx, int32(i))
					feasible = append(feasible, n)
				}
			}
			if len(idx) == 0 {
				continue
			}
			fs := feasibleNodes{all: all, idx: idx}
			for _, cached := range []bool{false, true} {
				pc := newPodCtx(pi)
				pc.nodes, pc.sc = all, sc
				if cached {
					pc.cache, pc.groupZones = c, c.groupZones
				}
				got := make([]int64, len(idx))
				normalizePodTopologySpread(pc, fs, got)
				want := refSpreadScores(pc, all, feasible, cached)
				if !slices.Equal(got, want) {
					t.Fatalf("seed %d pod %d cached %v: scores %v, reference %v", seed, k, cached, got, want)
				}
				if slices.Min(got) != slices.Max(got) {
					varied++
				}
			}
		}
	}
	if varied == 0 {
		t.Fatal("no attempt scored nodes differently: the test exercises nothing")
	}
}
