package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ErrNoNodesMessage is kube-scheduler's message when the cluster has no node.
const ErrNoNodesMessage = "no nodes available to schedule pods"

// NodeVerdict is what one attempt found of one node.
type NodeVerdict struct {
	// Node is the node's name.
	Node string
	// Filter is the filter that rejected the node; "" when it is feasible.
	Filter string
	// Reasons are that filter's reasons (shared: do not modify).
	Reasons []string
	// Scores are the normalized scores (0..MaxNodeScore) of a feasible
	// node, one per Explanation.ScoreNames entry; nil when filtered out.
	Scores []int64
	// Total is the weighted sum of Scores.
	Total int64
	// Skipped is true when the attempt did not evaluate the node: it had
	// found enough feasible nodes first (see NumFeasibleNodesToFind).
	Skipped bool
	// Unresolvable is true when the rejection is kube's
	// UnschedulableAndUnresolvable status: preempting pods on the node
	// could not make the pod fit (see PreemptionMessage).
	Unresolvable bool
}

// Feasible reports whether the node was evaluated and passed every filter.
func (v NodeVerdict) Feasible() bool { return !v.Skipped && v.Filter == "" }

// Explanation is one scheduling attempt of one pod: every node's verdict,
// the scores of the feasible ones, the choice, or why there was none.
type Explanation struct {
	// Pod is the pod's key.
	Pod string
	// Time is when the attempt was made.
	Time time.Time
	// Node is the chosen node; "" when the pod is unschedulable.
	Node string
	// Message is the Unschedulable condition's message ("" when a node was
	// chosen), in kube-scheduler's shape.
	Message string
	// Feasible is how many nodes passed the filters.
	Feasible int
	// ScoreNames name the score plugins, in the order of every
	// NodeVerdict.Scores.
	ScoreNames []string
	// Weights are the plugins' weights, in the same order.
	Weights []int64
	// Verdicts has one entry per node, sorted by node name.
	Verdicts []NodeVerdict
	// Bind is the error of the bind, when binding the chosen node failed.
	Bind error
	// NominatedNode is the node DefaultPreemption chose for a pod that
	// fits nowhere ("" when it found none), and Victims the keys of the
	// pods it evicts there, most important first.
	NominatedNode string
	Victims       []string
}

// Verdict returns the verdict on the node called name.
func (e *Explanation) Verdict(name string) (NodeVerdict, bool) {
	i := sort.Search(len(e.Verdicts), func(i int) bool { return e.Verdicts[i].Node >= name })
	if i < len(e.Verdicts) && e.Verdicts[i].Node == name {
		return e.Verdicts[i], true
	}
	return NodeVerdict{}, false
}

// String renders the explanation for a person: the outcome, then one line
// per node with its rejecting filter or its score breakdown.
func (e *Explanation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pod %s: ", e.Pod)
	switch {
	case e.Node != "" && e.Bind != nil:
		fmt.Fprintf(&b, "chose %s, bind failed: %v", e.Node, e.Bind)
	case e.Node != "":
		fmt.Fprintf(&b, "scheduled to %s", e.Node)
	default:
		b.WriteString("unschedulable: " + e.Message)
		if e.NominatedNode != "" {
			fmt.Fprintf(&b, "; preempting %s on %s", strings.Join(e.Victims, ", "), e.NominatedNode)
		}
	}
	fmt.Fprintf(&b, " (%d/%d nodes feasible)\n", e.Feasible, len(e.Verdicts))
	skipped := 0
	for _, v := range e.Verdicts {
		if v.Skipped {
			skipped++
			continue
		}
		if !v.Feasible() {
			fmt.Fprintf(&b, "  %s: filtered by %s: %s\n", v.Node, v.Filter, strings.Join(v.Reasons, ", "))
			continue
		}
		fmt.Fprintf(&b, "  %s: score %d =", v.Node, v.Total)
		for i, s := range v.Scores {
			if i > 0 {
				b.WriteString(" +")
			}
			fmt.Fprintf(&b, " %s %d×%d", e.ScoreNames[i], s, e.Weights[i])
		}
		if v.Node == e.Node {
			b.WriteString("  <- chosen")
		}
		b.WriteByte('\n')
	}
	if skipped > 0 {
		fmt.Fprintf(&b, "  (%d nodes not evaluated: enough feasible nodes were found)\n", skipped)
	}
	return b.String()
}

// formatReasons is the tail of kube-scheduler's FitError message: for
// every distinct reason "count reason", sorted as strings (sort.Strings
// on the formatted text, so "10 X" sorts before "2 Y").
func formatReasons(numNodes int, counts map[string]int) string {
	if numNodes == 0 {
		return ErrNoNodesMessage
	}
	parts := make([]string, 0, len(counts))
	for r, c := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", c, r))
	}
	sort.Strings(parts)
	msg := fmt.Sprintf("0/%d nodes are available:", numNodes)
	if len(parts) > 0 {
		msg += " " + strings.Join(parts, ", ") + "."
	}
	return msg
}

// preFilterMessage is kube-scheduler's FitError text when a PreFilter
// plugin rejected the pod: its reason once, not counted per node — "0/N
// nodes are available: reason." (ErrNoNodesMessage with no nodes, which
// kube-scheduler checks before running any plugin).
func preFilterMessage(numNodes int, reason string) string {
	if numNodes == 0 {
		return ErrNoNodesMessage
	}
	return fmt.Sprintf("0/%d nodes are available: %s.", numNodes, reason)
}

// UnschedulableMessage formats the reasons of the rejected nodes as
// kube-scheduler's FitError does: "0/N nodes are available: " and then
// "count reason" for every distinct reason (a node with several reasons
// counts in each), those strings sorted as strings (so "10 X" sorts
// before "2 Y"), joined by ", " and ended with ".". With no nodes at all
// it is ErrNoNodesMessage. It is the filters' part of the message;
// Explanation.Message follows it with a space and PreemptionMessage.
func UnschedulableMessage(numNodes int, verdicts []NodeVerdict) string {
	counts := make(map[string]int)
	for _, v := range verdicts {
		for _, r := range v.Reasons {
			counts[r]++
		}
	}
	return formatReasons(numNodes, counts)
}

// The texts of kube-scheduler's DefaultPreemption PostFilter
// (pkg/scheduler/framework/preemption) for a pod no preemption helps.
const (
	// PreemptionNotHelpful is a node's reason when its rejection is
	// unresolvable.
	PreemptionNotHelpful = "Preemption is not helpful for scheduling"
	// PreemptionNoVictims is a node's reason when no pod on it has a
	// lower priority than the pod.
	PreemptionNoVictims = "No preemption victims found for incoming pod"
	// PreemptionNever is the message for a pod whose preemptionPolicy
	// is Never.
	PreemptionNever = "not eligible due to preemptionPolicy=Never."
)

// preemptNever is the preemptionPolicy of a pod that never preempts.
const preemptNever api.PreemptionPolicy = "Never"

// PreemptionMessage is what kube-scheduler's DefaultPreemption PostFilter
// adds to the FailedScheduling message of pod after no node fit it:
// "preemption: " and either PreemptionNever or a FitError over the
// nodes — "0/N nodes are available: " with PreemptionNotHelpful counted
// for the nodes whose rejection is Unresolvable (or not evaluated) and
// PreemptionNoVictims for the others, sorted as UnschedulableMessage
// sorts. It is the message of a scheduler without Options.Preempt:
// every node preemption might help is taken to hold no pod of a lower
// priority, as in a cluster without PriorityClasses.
func PreemptionMessage(pod *api.Pod, numNodes int, verdicts []NodeVerdict) string {
	helpless := numNodes
	for _, v := range verdicts {
		if !v.Skipped && !v.Unresolvable {
			helpless--
		}
	}
	return preemptionMessage(pod, numNodes, helpless)
}

// preemptionMessage is PreemptionMessage with the count of nodes where
// preemption is not helpful.
func preemptionMessage(pod *api.Pod, numNodes, helpless int) string {
	if p := pod.Spec.PreemptionPolicy; p != nil && *p == preemptNever {
		return "preemption: " + PreemptionNever
	}
	counts := map[string]int{}
	if helpless > 0 {
		counts[PreemptionNotHelpful] = helpless
	}
	if numNodes > helpless {
		counts[PreemptionNoVictims] = numNodes - helpless
	}
	return "preemption: " + formatReasons(numNodes, counts)
}

// decision is an attempt in the compact form the scheduler keeps: no
// pointers per node, so that a history of attempts over thousands of
// nodes costs little memory and no GC scanning. Explanation expands it.
type decision struct {
	pod     string
	time    time.Time
	node    string // chosen; "" when none
	message string
	names   []string // node names, shared with the cache's node list
	// verdict is per node, from node vstart on, wrapping around, for
	// the len(verdict) nodes the attempt evaluated (the nodes past them
	// are not evaluated): 0 not evaluated, feasibleBit|j for the j-th
	// feasible node, else filter index<<16 | reason index+1. An attempt
	// that found a node keeps only its window, so that it allocates
	// nothing per node it did not evaluate; any other covers every node
	// from vstart 0 (what the message and preemption read).
	verdict  []uint32
	vstart   int
	reasons  [][]string // the distinct reason lists, shared
	scorers  []scorer
	scores   []uint8 // feasible nodes × scorers, in node order
	feasible int
	bindErr  error
	// claimWait: VolumeBinding rejected the pod (PreFilter) or a node;
	// the pod is retried on its backoff, there being no claim watch.
	claimWait bool
	// podWait: PodTopologySpread or InterPodAffinity rejected a node;
	// the pod is retried when a pod is placed or relabelled.
	podWait bool
	// nominate is the node preemption chose ("" for none) and victims
	// the pods to evict there, most important first.
	nominate string
	victims  []*api.Pod
	// volumes is what VolumeBinding's PreBind writes for the chosen
	// node; nil when the pod has no claim of delayed binding.
	volumes *volumePlan
	// bytes is decisionBytes(d) when the scheduler recorded d.
	bytes int
}

// DefaultExplainBytes is the default of Options.ExplainBytes.
const DefaultExplainBytes = 1 << 20

// decisionOverhead is what a kept decision costs besides its buffers and
// message: the struct, its history element and its Explain map entry.
const decisionOverhead = int(unsafe.Sizeof(decision{})) + 48 + 64

// decisionBytes is what d costs the history (Options.ExplainBytes): its
// buffers by capacity (a recycled buffer may be larger than needed), its
// message, its victims' pointers and decisionOverhead. The node names and
// reason lists it shares are not counted.
func decisionBytes(d *decision) int {
	return decisionOverhead + 4*cap(d.verdict) + cap(d.scores) + len(d.message) + 8*len(d.victims)
}

// feasibleBit marks the verdict of a feasible node; unresolvableBit
// the verdict of a node whose rejection is unresolvable.
const (
	feasibleBit     = 1 << 31
	unresolvableBit = 1 << 30
)

// The bounds of kube-scheduler's adaptive percentageOfNodesToScore.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// NumFeasibleNodesToFind is how many feasible nodes an attempt looks for
// before it stops filtering, as kube-scheduler's numFeasibleNodesToFind:
// every node in clusters under 100 nodes or with percentage ≥ 100;
// otherwise percentage of the nodes (0: the adaptive 50 − nodes/125, at
// least 5), at least 100.
func NumFeasibleNodesToFind(percentage, numNodes int) int {
	if numNodes < minFeasibleNodesToFind || percentage >= 100 {
		return numNodes
	}
	if percentage <= 0 {
		percentage = max(50-numNodes/125, minFeasibleNodesPercentageToFind)
	}
	return max(numNodes*percentage/100, minFeasibleNodesToFind)
}

// feasibleNodes are the nodes that passed the filters, as the score
// plugins' normalization sees them: the j-th is all[idx[j]], in zone
// zones[j] (the cache's zone index, −1 for none).
type feasibleNodes struct {
	all   []*NodeInfo
	idx   []int32
	zones []int32
}

// node returns the j-th feasible node.
func (fs feasibleNodes) node(j int) *NodeInfo { return fs.all[fs.idx[j]] }

// scratch holds the buffers of one decider, reused across attempts.
type scratch struct {
	idx   []int32   // verdict index of each feasible node
	zones []int32   // zone index of each feasible node
	raw   [][]int64 // per scorer, the raw scores of the feasible nodes
	win   []uint32  // the verdicts of the nodes evaluated, in evaluation order
	skip  []bool    // per scorer, its PreScore Skip
	// PodTopologySpread's score: per feasible node whether it is
	// ignored, per constraint its weight, and the nodes' domains.
	ignored []bool
	weights []float64
	spread  spreadDomains
	// spareVerdict and spareScores are the buffers of a decision the
	// scheduler dropped from its history (see recycle), reused by the
	// next decision that finds a node.
	spareVerdict []uint32
	spareScores  []uint8
}

// verdicts returns n zeroed verdicts for a decision, in the spare buffer
// when it is large enough.
func (sc *scratch) verdicts(n int) []uint32 {
	if cap(sc.spareVerdict) < n {
		return make([]uint32, n)
	}
	v := sc.spareVerdict[:n]
	sc.spareVerdict = nil
	clear(v)
	return v
}

// recycle keeps the buffers of d, which nothing references any more
// (dropped from the history; a bind in flight reads none of them), for
// the next decisions.
func (sc *scratch) recycle(d *decision) {
	if cap(d.verdict) > cap(sc.spareVerdict) {
		sc.spareVerdict = d.verdict[:0]
	}
	if cap(d.scores) > cap(sc.spareScores) {
		sc.spareScores = d.scores[:0]
	}
	d.verdict, d.scores = nil, nil
}

// decide is Decide in compact form; names are the nodes' names (nil: made
// from nodes) and sc the reusable buffers (nil: fresh ones). It evaluates
// nodes from index start on, wrapping around, until it has found limit
// feasible ones, and returns the index to start from next time (kube-
// scheduler's nextStartNodeIndex, so that successive pods see different
// nodes first).
//
// vs is the volume plugins' pre-filter state (see volumeStateFor): when
// VolumeBinding's PreFilter rejected the pod, no node is filtered, every
// verdict is that rejection and the message is kube-scheduler's for a
// PreFilter failure, "0/N nodes are available: <reason>.".
func decide(pi *PodInfo, nodes []*NodeInfo, names []string, ss []scorer, rng *rand.Rand, now time.Time, sc *scratch, start, limit int, vs volumeState, env pluginEnv) (*decision, int) {
	if names == nil {
		names = make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name
		}
	}
	if sc == nil {
		sc = &scratch{}
	}
	pc := newPodCtxGated(pi, env.comparisonOperators)
	pc.volumes = vs
	pc.added = env.added
	pc.nodes, pc.anyAffinity, pc.namespaces = nodes, env.anyAffinity, env.namespaces
	pc.groupZones, pc.cache, pc.sc = env.groupZones, env.cache, sc
	pc.nominated, pc.nominatedPods = env.nominatedNode, env.nominated
	d := &decision{pod: pi.Key, time: now, names: names, scorers: ss}
	// The PreFilters in kube-scheduler's order: NodeAffinity's (a
	// conflict rejects the pod, a result narrows the nodes), then
	// VolumeBinding's and VolumeZone's (vs).
	narrowed, conflict := nodeAffinityPreFilter(pi.Pod)
	if conflict || vs.reject != "" {
		reason, by := vs.reject, vs.rejectBy
		if conflict {
			reason, by = ReasonNodeAffinityConflict, nodeAffinityIndex
		} else {
			d.claimWait = true
		}
		d.message = preFilterMessage(len(nodes), reason)
		if len(nodes) > 0 {
			// These PreFilter rejections are all
			// UnschedulableAndUnresolvable.
			d.message += " " + preemptionMessage(pi.Pod, len(nodes), len(nodes))
			d.reasons = [][]string{{reason}}
			d.verdict = sc.verdicts(len(nodes))
			for i := range d.verdict {
				d.verdict[i] = uint32(by)<<16 | unresolvableBit | 1
			}
		}
		return d, start
	}
	pc.spread = newSpreadState(pc)
	if len(env.images) > 0 {
		pc.images = newImageLocalityState(pi.Pod, env.images, len(nodes))
	}
	pc.affinity = newAffinityState(pc)
	setActiveFilters(pc)
	sc.idx, sc.zones = sc.idx[:0], sc.zones[:0]
	if cap(sc.win) < len(nodes) {
		sc.win = make([]uint32, len(nodes))
	}
	if len(sc.raw) < len(ss) {
		sc.raw = make([][]int64, len(ss))
	}
	for s := range ss {
		sc.raw[s] = sc.raw[s][:0]
	}
	// PreScore: a plugin that skips does no work per node.
	sc.skip = slices.Grow(sc.skip[:0], len(ss))[:len(ss)]
	skip := sc.skip
	for s := range ss {
		skip[s] = ss[s].skip != nil && ss[s].skip(pc)
	}
	// One pass: filters, then the raw scores of a feasible node while it
	// is in cache.
	if start >= len(nodes) {
		start = 0
	}
	// A nominated pod tries its nominated node first, and takes it
	// alone when it fits (kube's evaluateNominatedNode, which runs before
	// the PreFilter result narrows the nodes).
	if nom := pc.nominated; nom != "" {
		if i, ok := slices.BinarySearch(names, nom); ok && nodes[i].Name == nom {
			if _, r := runFiltersNominated(pc, nodes[i]); r == nil {
				start, limit, narrowed = i, 1, nil
			}
		}
	}
	processed, helpless := 0, 0
	count := len(nodes)
	var cand []int // the nodes to evaluate when narrowed, in name order
	// vw are the verdicts being written: the window of sc.win by
	// evaluation order, or, when narrowed, d.verdict by node.
	vw := sc.win[:cap(sc.win)]
	if narrowed != nil {
		d.verdict = sc.verdicts(len(nodes))
		vw = d.verdict
		// NodeAffinity's PreFilter result: only its nodes are
		// evaluated; every other node is UnschedulableAndUnresolvable
		// with the framework's reason, counted in the message.
		cand = candidateIndexes(names, narrowed)
		count = len(cand)
		if len(cand) < len(nodes) {
			d.reasons = append(d.reasons, reasonsPreFilterAbsent)
			for i := range d.verdict {
				d.verdict[i] = uint32(nodeAffinityIndex)<<16 | unresolvableBit | 1
			}
			for _, i := range cand {
				d.verdict[i] = 0 // not evaluated yet
			}
			helpless = len(nodes) - len(cand)
		}
	}
	for k := range count {
		if len(sc.idx) >= limit {
			break
		}
		processed++
		i := (start + k) % max(len(nodes), 1)
		if cand != nil {
			i = cand[k]
		}
		n := nodes[i]
		at := k // where the verdict goes in vw
		if cand != nil {
			at = i
		}
		f, r := runFiltersNominated(pc, n)
		if r == nil {
			vw[at] = feasibleBit | uint32(len(sc.idx))
			sc.idx = append(sc.idx, int32(i))
			sc.zones = append(sc.zones, n.zoneID)
			for s := range ss {
				var v int64
				if !skip[s] {
					v = ss[s].raw(pc, n)
				}
				sc.raw[s] = append(sc.raw[s], v)
			}
			continue
		}
		ri := -1
		for j, known := range d.reasons {
			if &known[0] == &r[0] && len(known) == len(r) {
				ri = j
				break
			}
		}
		if ri < 0 {
			ri = len(d.reasons)
			d.reasons = append(d.reasons, r)
		}
		vw[at] = uint32(f)<<16 | uint32(ri+1)
		if rejectionUnresolvable(f, pc, n, r) {
			vw[at] |= unresolvableBit
			helpless++
		}
		if f == volumeBindingIndex || f == volumeZoneIndex {
			d.claimWait = true
		}
		if f == podTopologySpreadIndex || f == interPodAffinityIndex {
			d.podWait = true
		}
	}
	next := 0
	if len(nodes) > 0 {
		next = (start + processed) % len(nodes)
	}
	F := len(sc.idx)
	d.feasible = F
	switch {
	case cand != nil: // d.verdict covers every node already
	case F == 0: // every node was evaluated; by node, for the message and preemption
		d.verdict = sc.verdicts(len(nodes))
		for k := range processed {
			d.verdict[(start+k)%len(nodes)] = vw[k]
		}
	default:
		d.verdict, d.vstart = append(sc.spareVerdict[:0], vw[:processed]...), start
		sc.spareVerdict = nil
	}
	if F == 0 {
		counts := make(map[string]int)
		perList := make([]int, len(d.reasons))
		for _, v := range d.verdict {
			perList[v&0xffff-1]++
		}
		for j, r := range d.reasons {
			for _, reason := range r {
				counts[reason] += perList[j]
			}
		}
		d.message = formatReasons(len(nodes), counts)
		switch {
		case len(nodes) == 0:
		case env.preempt != nil:
			c, msg := postFilter(pc, d, *env.preempt)
			if c != nil {
				d.nominate = names[c.node]
				for _, v := range c.victims {
					d.victims = append(d.victims, v.Pod)
				}
			} else {
				d.message += " " + msg
			}
		default:
			d.message += " " + preemptionMessage(pi.Pod, len(nodes), helpless)
		}
		return d, next
	}
	for s := range ss {
		if ss[s].normalize != nil && !skip[s] {
			ss[s].normalize(pc, feasibleNodes{all: nodes, idx: sc.idx, zones: sc.zones}, sc.raw[s])
		}
	}
	if n := F * len(ss); cap(sc.spareScores) >= n {
		d.scores, sc.spareScores = sc.spareScores[:n], nil
	} else {
		d.scores = make([]uint8, n)
	}
	best, ties := -1, 0
	var bestTotal int64
	for j := range F {
		var total int64
		for s := range ss {
			v := min(max(sc.raw[s][j], 0), MaxNodeScore)
			d.scores[j*len(ss)+s] = uint8(v)
			total += v * ss[s].weight
		}
		switch {
		case best < 0 || total > bestTotal:
			best, bestTotal, ties = j, total, 1
		case total == bestTotal:
			ties++
			if rng.IntN(ties) == 0 {
				best = j
			}
		}
	}
	d.node = names[sc.idx[best]]
	if len(vs.delayed) > 0 {
		// Reserve: the volumes and provisions of the chosen node.
		d.volumes = &volumePlan{}
		findDelayed(pc, nodes[sc.idx[best]], d.volumes)
	}
	return d, next
}

// verdictAt returns the verdict on node i (0: not evaluated).
func (d *decision) verdictAt(i int) uint32 {
	k := i - d.vstart
	if k < 0 {
		k += len(d.names)
	}
	if k < len(d.verdict) {
		return d.verdict[k]
	}
	return 0
}

// explain expands d.
func (d *decision) explain() Explanation {
	e := Explanation{Pod: d.pod, Time: d.time, Node: d.node, Message: d.message, Feasible: d.feasible, Bind: d.bindErr,
		NominatedNode: d.nominate,
		ScoreNames:    make([]string, len(d.scorers)), Weights: make([]int64, len(d.scorers)),
		Verdicts: make([]NodeVerdict, len(d.names))}
	for s, sc := range d.scorers {
		e.ScoreNames[s], e.Weights[s] = sc.name, sc.weight
	}
	for _, v := range d.victims {
		e.Victims = append(e.Victims, api.Key(v))
	}
	all := make([]int64, len(d.scores))
	S := len(d.scorers)
	for i := range d.names {
		v := d.verdictAt(i)
		nv := &e.Verdicts[i]
		nv.Node = d.names[i]
		switch {
		case v == 0:
			nv.Skipped = true
		case v&feasibleBit == 0:
			nv.Filter = filters[v&^unresolvableBit>>16].name
			nv.Reasons = d.reasons[v&0xffff-1]
			nv.Unresolvable = v&unresolvableBit != 0
		default:
			j := int(v &^ feasibleBit)
			nv.Scores = all[j*S : (j+1)*S : (j+1)*S]
			for s := range d.scorers {
				nv.Scores[s] = int64(d.scores[j*S+s])
				nv.Total += nv.Scores[s] * d.scorers[s].weight
			}
		}
	}
	return e
}

// Decide is the scheduler's pure core: it runs the filters on every node
// for pod, scores the feasible ones with the plugins w enables, and
// chooses the highest weighted total, breaking ties with rng (uniformly
// among the best, by reservoir sampling, as kube-scheduler's selectHost).
// It evaluates every node (the Scheduler may stop early, see
// Options.PercentageOfNodesToScore), reads nodes and pi only (so claims
// are not checked: VolumeRestrictions and VolumeBinding need the
// Scheduler's Options.Claims and Options.Volumes, and a namespaceSelector
// sees every namespace without labels, there being no
// Options.Namespaces), and leaves assuming the pod on the chosen node to
// the caller. PodTopologySpread and InterPodAffinity count the pods of
// every node in nodes. When no node fits, it runs DefaultPreemption's
// dry run (without budgets or nominated pods) and reports its choice in
// NominatedNode and Victims, evicting nothing. Complexity: O(nodes × (filters + scores)), plus
// O(placed pods) for a pod with spread constraints or pod (anti-)affinity
// terms, or when a placed pod has such terms.
func Decide(pi *PodInfo, nodes []*NodeInfo, w Weights, rng *rand.Rand, now time.Time) *Explanation {
	env := envFor(nodes)
	env.preempt = &preemptEnv{now: now}
	d, _ := decide(pi, nodes, nil, w.scorers(), rng, now, nil, 0, len(nodes), volumeState{}, env)
	e := d.explain()
	return &e
}
