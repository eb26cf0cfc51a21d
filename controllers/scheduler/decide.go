package scheduler

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"
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
}

// Feasible reports whether the node passed every filter.
func (v NodeVerdict) Feasible() bool { return v.Filter == "" }

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
	// ScoreNames and Weights name and weigh the score plugins, in the
	// order of every NodeVerdict.Scores.
	ScoreNames []string
	Weights    []int64
	// Verdicts has one entry per node, sorted by node name.
	Verdicts []NodeVerdict
	// Bind is the error of the bind, when binding the chosen node failed.
	Bind error
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
	fmt.Fprintf(&b, "pod %s at %s: ", e.Pod, e.Time.UTC().Format(time.RFC3339))
	switch {
	case e.Node != "" && e.Bind != nil:
		fmt.Fprintf(&b, "chose %s, bind failed: %v", e.Node, e.Bind)
	case e.Node != "":
		fmt.Fprintf(&b, "scheduled to %s", e.Node)
	default:
		b.WriteString("unschedulable: " + e.Message)
	}
	fmt.Fprintf(&b, " (%d/%d nodes feasible)\n", e.Feasible, len(e.Verdicts))
	for _, v := range e.Verdicts {
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
	return b.String()
}

// UnschedulableMessage formats the reasons of the rejected nodes as
// kube-scheduler's FitError does: "0/N nodes are available: " and then
// "count reason" for every distinct reason (a node with several reasons
// counts in each), those strings sorted as strings (sort.Strings on the
// formatted "count reason", so "10 X" sorts before "2 Y"), joined by ", "
// and ended with ".". With no nodes at all it is ErrNoNodesMessage.
func UnschedulableMessage(numNodes int, verdicts []NodeVerdict) string {
	if numNodes == 0 {
		return ErrNoNodesMessage
	}
	counts := make(map[string]int)
	for _, v := range verdicts {
		for _, r := range v.Reasons {
			counts[r]++
		}
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

// Decide is the scheduler's pure core: it runs the filters on every node
// for pod, scores the feasible ones with the plugins w enables, and
// chooses the highest weighted total, breaking ties with rng (uniformly
// among the best, by reservoir sampling, as kube-scheduler's selectHost).
// It reads nodes and pi only; the caller assumes the pod on the chosen
// node. Complexity: O(nodes × (filters + scores)).
func Decide(pi *PodInfo, nodes []*NodeInfo, w Weights, rng *rand.Rand, now time.Time) *Explanation {
	pc := newPodCtx(pi)
	ss := w.scorers()
	e := &Explanation{Pod: pi.Key, Time: now, Verdicts: make([]NodeVerdict, len(nodes))}
	e.ScoreNames = make([]string, len(ss))
	e.Weights = make([]int64, len(ss))
	for i, s := range ss {
		e.ScoreNames[i], e.Weights[i] = s.name, s.weight
	}
	feasible := make([]*NodeInfo, 0, len(nodes))
	idx := make([]int, 0, len(nodes)) // verdict index of each feasible node
	for i, n := range nodes {
		v := &e.Verdicts[i]
		v.Node = n.Name
		v.Filter, v.Reasons = runFilters(pc, n)
		if v.Filter == "" {
			feasible = append(feasible, n)
			idx = append(idx, i)
		}
	}
	e.Feasible = len(feasible)
	if len(feasible) == 0 {
		e.Message = UnschedulableMessage(len(nodes), e.Verdicts)
		return e
	}
	// One backing array: scores[s*F+j] while normalizing per plugin, then
	// transposed into per-node rows.
	F := len(feasible)
	col := make([]int64, F)
	rows := make([]int64, F*len(ss))
	for s := range ss {
		for j, n := range feasible {
			col[j] = ss[s].raw(pc, n)
		}
		if ss[s].normalize != nil {
			ss[s].normalize(pc, feasible, col)
		}
		for j := range feasible {
			rows[j*len(ss)+s] = col[j]
		}
	}
	best, ties := -1, 0
	var bestTotal int64
	for j := range feasible {
		v := &e.Verdicts[idx[j]]
		v.Scores = rows[j*len(ss) : (j+1)*len(ss) : (j+1)*len(ss)]
		for s, sc := range v.Scores {
			v.Total += sc * ss[s].weight
		}
		switch {
		case best < 0 || v.Total > bestTotal:
			best, bestTotal, ties = j, v.Total, 1
		case v.Total == bestTotal:
			ties++
			if rng.IntN(ties) == 0 {
				best = j
			}
		}
	}
	e.Node = feasible[best].Name
	return e
}
