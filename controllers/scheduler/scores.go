package scheduler

import (
	"math"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// MaxNodeScore is the highest score a score plugin gives a node
// (kube-scheduler's framework.MaxNodeScore; the priorities before the
// scheduling framework topped out at 10).
const MaxNodeScore int64 = 100

// The score plugins. LeastAllocated is kube-scheduler's NodeResourcesFit
// score with the LeastAllocated strategy, BalancedAllocation its
// NodeResourcesBalancedAllocation.
const (
	ScoreLeastAllocated     = "LeastAllocated"
	ScoreBalancedAllocation = "BalancedAllocation"
	ScoreSelectorSpread     = "SelectorSpread"
	ScoreNodeAffinity       = "NodeAffinity"
	ScoreTaintToleration    = "TaintToleration"
)

// Weights are the weights of the score plugins in a node's total. Zero
// fields take the defaults of kube-scheduler's default profile
// (LeastAllocated 1, BalancedAllocation 1, PodTopologySpread 2,
// InterPodAffinity 2, NodeAffinity 2, TaintToleration 3, ImageLocality
// 1); a negative
// weight turns the plugin off. SelectorSpread, which PodTopologySpread's
// system default constraints replaced in kube-scheduler's default
// profile, is off unless given a positive weight.
type Weights struct {
	// LeastAllocated weighs ScoreLeastAllocated; default 1.
	LeastAllocated int64
	// BalancedAllocation weighs ScoreBalancedAllocation; default 1.
	BalancedAllocation int64
	// SelectorSpread weighs ScoreSelectorSpread; default 0 (off).
	SelectorSpread int64
	// PodTopologySpread weighs ScorePodTopologySpread; default 2.
	PodTopologySpread int64
	// InterPodAffinity weighs ScoreInterPodAffinity; default 2.
	InterPodAffinity int64
	// NodeAffinity weighs ScoreNodeAffinity; default 2.
	NodeAffinity int64
	// TaintToleration weighs ScoreTaintToleration; default 3.
	TaintToleration int64
	// ImageLocality weighs ScoreImageLocality; default 1.
	ImageLocality int64
}

// scorer is one score plugin: raw gives a node's raw score, normalize (if
// set) maps the raw scores of the feasible nodes into 0..MaxNodeScore.
type scorer struct {
	name      string
	weight    int64
	raw       func(pc *podCtx, n *NodeInfo) int64
	normalize func(pc *podCtx, fs feasibleNodes, scores []int64)
	// skip, if set, is the plugin's PreScore Skip: when it reports true
	// for the attempt, raw and normalize are not run and every feasible
	// node scores 0 for the plugin, as kube's framework leaves a skipped
	// plugin's scores.
	skip func(pc *podCtx) bool
}

// scorers returns the enabled score plugins with their weights.
func (w Weights) scorers() []scorer {
	def := func(v, d int64) int64 {
		if v == 0 {
			return d
		}
		return v
	}
	all := []scorer{
		{ScoreLeastAllocated, def(w.LeastAllocated, 1), scoreLeastAllocated, nil, nil},
		{ScoreBalancedAllocation, def(w.BalancedAllocation, 1), scoreBalancedAllocation, nil, skipBalancedAllocation},
		{ScoreSelectorSpread, w.SelectorSpread, scoreSelectorSpread, normalizeSelectorSpread, nil},
		{ScorePodTopologySpread, def(w.PodTopologySpread, 2), scorePodTopologySpread, normalizePodTopologySpread, skipPodTopologySpread},
		{ScoreInterPodAffinity, def(w.InterPodAffinity, 2), scoreInterPodAffinity, normalizeInterPodAffinity, skipInterPodAffinity},
		{ScoreNodeAffinity, def(w.NodeAffinity, 2), scoreNodeAffinity, normalizeNodeAffinity, skipNodeAffinity},
		{ScoreTaintToleration, def(w.TaintToleration, 3), scoreTaintToleration, normalizeTaintToleration, nil},
		{ScoreImageLocality, def(w.ImageLocality, 1), scoreImageLocality, nil, skipImageLocality},
	}
	out := all[:0]
	for _, s := range all {
		if s.weight > 0 {
			out = append(out, s)
		}
	}
	return out
}

// leastRequestedScore is (capacity − requested) × MaxNodeScore / capacity,
// 0 when nothing is allocatable or the node is over-requested.
func leastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * MaxNodeScore / capacity
}

// scoreLeastAllocated favours nodes with more free cpu and memory: the
// mean of leastRequestedScore over cpu and memory (weights 1 and 1),
// counting the pod and the node's pods with missing requests defaulted
// (NonZero). Resources the node has none of are left out of the mean.
func scoreLeastAllocated(pc *podCtx, n *NodeInfo) int64 {
	req := n.NonZeroRequested.Add(pc.info.NonZero)
	var sum, weights int64
	if n.Allocatable.MilliCPU > 0 {
		sum += leastRequestedScore(req.MilliCPU, n.Allocatable.MilliCPU)
		weights++
	}
	if n.Allocatable.Memory > 0 {
		sum += leastRequestedScore(req.Memory, n.Allocatable.Memory)
		weights++
	}
	if weights == 0 {
		return 0
	}
	return sum / weights
}

// scoreBalancedAllocation favours nodes whose cpu and memory fractions
// (requested / allocatable, capped at 1, with the pod, requests as given)
// are close: (1 − std) × MaxNodeScore, where for two resources std is
// |cpu − memory| / 2.
func scoreBalancedAllocation(pc *podCtx, n *NodeInfo) int64 {
	req := n.Requested.Add(pc.info.Requests)
	var fr [2]float64
	k := 0
	for _, p := range [2][2]int64{{req.MilliCPU, n.Allocatable.MilliCPU}, {req.Memory, n.Allocatable.Memory}} {
		if p[1] == 0 {
			continue
		}
		fr[k] = min(float64(p[0])/float64(p[1]), 1)
		k++
	}
	std := 0.0
	if k == 2 {
		std = math.Abs(fr[0]-fr[1]) / 2
	}
	return int64((1 - std) * float64(MaxNodeScore))
}

// scoreSelectorSpread counts the pods of the pod's spread group on the
// node (normalized by normalizeSelectorSpread).
func scoreSelectorSpread(pc *podCtx, n *NodeInfo) int64 {
	if pc.info.Owner == "" {
		return 0
	}
	return int64(n.GroupCount(pc.info.Owner))
}

// zoneWeighting is the share of the zone score in SelectorSpread's score
// when nodes carry zone labels (kube-scheduler's 2/3).
const zoneWeighting = 2.0 / 3.0

// normalizeSelectorSpread turns the per-node counts into scores as
// kube-scheduler's SelectorSpread did: MaxNodeScore × (maxNode − count)
// / maxNode, blended one third to two thirds with the same formula over
// the zones' counts (summed over the feasible nodes) for nodes with a
// zone. Fewer peers score higher; no peers anywhere scores MaxNodeScore.
// zones[i] is the zone index of scores[i]'s node, −1 for none.
func normalizeSelectorSpread(_ *podCtx, fs feasibleNodes, scores []int64) {
	zones := fs.zones
	var maxNode, maxZone int64
	var byZone []int64 // count per zone index
	haveZones := false
	for i, z := range zones {
		maxNode = max(maxNode, scores[i])
		if z >= 0 {
			if int(z) >= len(byZone) {
				byZone = append(byZone, make([]int64, int(z)+1-len(byZone))...)
			}
			byZone[z] += scores[i]
			haveZones = true
		}
	}
	for _, c := range byZone {
		maxZone = max(maxZone, c)
	}
	m := float64(MaxNodeScore)
	for i, z := range zones {
		f := m
		if maxNode > 0 {
			f = m * float64(maxNode-scores[i]) / float64(maxNode)
		}
		if haveZones && z >= 0 {
			zs := m
			if maxZone > 0 {
				zs = m * float64(maxZone-byZone[z]) / float64(maxZone)
			}
			f = f*(1-zoneWeighting) + zs*zoneWeighting
		}
		scores[i] = int64(f)
	}
}

// scoreNodeAffinity sums the weights of the preferred node affinity terms
// the node matches, the profile's added ones and the pod's.
func scoreNodeAffinity(pc *podCtx, n *NodeInfo) int64 {
	var s int64
	if pc.added != nil {
		for i := range pc.added.preferred {
			t := &pc.added.preferred[i]
			if t.Weight != 0 && t.Preference.Matches(n.Node) {
				s += int64(t.Weight)
			}
		}
	}
	for i := range pc.preferred {
		t := &pc.preferred[i]
		if t.Weight != 0 && t.Preference.Matches(n.Node) {
			s += int64(t.Weight)
		}
	}
	return s
}

// skipNodeAffinity is NodeAffinity's PreScore Skip: neither the pod nor
// the profile's added affinity has preferred terms.
func skipNodeAffinity(pc *podCtx) bool {
	return len(pc.preferred) == 0 && (pc.added == nil || len(pc.added.preferred) == 0)
}

// skipBalancedAllocation is BalancedAllocation's PreScore Skip: a pod
// that requests no cpu and no memory (kube's isBestEffortPod over the
// plugin's resources, requests as given).
func skipBalancedAllocation(pc *podCtx) bool {
	return pc.info.Requests.MilliCPU == 0 && pc.info.Requests.Memory == 0
}

func normalizeNodeAffinity(_ *podCtx, _ feasibleNodes, scores []int64) {
	defaultNormalizeScore(false, scores)
}

// scoreTaintToleration counts the PreferNoSchedule taints of the node
// the pod does not tolerate (with its tolerations of effect "" or
// PreferNoSchedule).
func scoreTaintToleration(pc *podCtx, n *NodeInfo) int64 {
	var c int64
	for i := range n.taints {
		t := &n.taints[i]
		if t.Effect == api.TaintEffectPreferNoSchedule && !api.TolerationsTolerateTaint(pc.preferTolerations, t) {
			c++
		}
	}
	return c
}

func normalizeTaintToleration(_ *podCtx, _ feasibleNodes, scores []int64) {
	defaultNormalizeScore(true, scores)
}

// defaultNormalizeScore is kube-scheduler's helper.DefaultNormalizeScore:
// scale scores so the highest becomes MaxNodeScore, and with reverse
// subtract from MaxNodeScore (all MaxNodeScore when every score is 0).
func defaultNormalizeScore(reverse bool, scores []int64) {
	var hi int64
	for _, s := range scores {
		hi = max(hi, s)
	}
	if hi == 0 {
		if reverse {
			for i := range scores {
				scores[i] = MaxNodeScore
			}
		}
		return
	}
	for i, s := range scores {
		s = MaxNodeScore * s / hi
		if reverse {
			s = MaxNodeScore - s
		}
		scores[i] = s
	}
}
