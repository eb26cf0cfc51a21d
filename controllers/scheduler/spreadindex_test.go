package scheduler

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
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

// spreadIndexNode is a node of zone z0..z2, or without a zone label.
func spreadIndexNode(r *rand.Rand, i int) *api.Node {
	n := mkNode(fmt.Sprint("node-", i), "8", "16Gi", 50)
	if z := r.IntN(4); z < 3 {
		n.Labels[api.LabelTopologyZone] = fmt.Sprint("z", z)
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
	return mkPod(fmt.Sprint("pod-", i), "100m", "100Mi", opts...)
}

// TestGroupZonesIncremental checks the cache's per-group zone counts
// against a recount after every step of random sequences of node adds,
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
		for step := range 400 {
			switch op := r.IntN(9); op {
			case 0, 1: // add or relabel a node
				c.SetNode(spreadIndexNode(r, r.IntN(nodes)))
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
