package scheduler

import (
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The reasons of NodeAffinity beyond ReasonNodeAffinity, worded as
// kube-scheduler's nodeaffinity plugin (node_affinity.go) and framework
// (schedule_one.go, framework.go) word them.
const (
	// ReasonNodeAffinityEnforced rejects a node that
	// NodeAffinityArgs.AddedAffinity's required selector does not admit
	// (errReasonEnforced).
	ReasonNodeAffinityEnforced = "node(s) didn't match scheduler-enforced node affinity"
	// ReasonNodeAffinityConflict is NodeAffinity's PreFilter rejection of
	// a pod whose required terms name no node at all through matchFields
	// metadata.name In (errReasonConflict).
	ReasonNodeAffinityConflict = "pod affinity terms conflict"
	// ReasonPreFilterNodeAffinity is the reason of every node left out by
	// NodeAffinity's PreFilter result: findNodesThatFitPod's
	// "node(s) didn't satisfy plugin(s) %v" over the plugins that
	// narrowed the nodes.
	ReasonPreFilterNodeAffinity = "node(s) didn't satisfy plugin(s) [NodeAffinity]"
)

var (
	reasonsAffinityEnforced = []string{ReasonNodeAffinityEnforced}
	reasonsPreFilterAbsent  = []string{ReasonPreFilterNodeAffinity}
)

// NodeAffinityArgs are kube-scheduler's NodeAffinityArgs, the arguments
// of the NodeAffinity plugin of the profile.
type NodeAffinityArgs struct {
	// AddedAffinity is a node affinity every pod of the profile gets in
	// addition to its own: its required selector is ANDed with the
	// pod's nodeSelector and required node affinity (a node it does not
	// admit is rejected with ReasonNodeAffinityEnforced, before the
	// pod's own affinity is checked), and its preferred terms add their
	// weights to the pod's in NodeAffinity's score. It does not narrow
	// the nodes NodeAffinity's PreFilter evaluates (the pod's own terms
	// do), as kube-scheduler's.
	AddedAffinity *api.NodeAffinity
}

// validate checks AddedAffinity as kube's ValidateNodeAffinityArgs does:
// every requirement well formed, matchFields only on metadata.name, and
// preferred weights within 1..100.
func (a NodeAffinityArgs) validate() error {
	aa := a.AddedAffinity
	if aa == nil {
		return nil
	}
	if r := aa.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
		if len(r.NodeSelectorTerms) == 0 {
			return fmt.Errorf("scheduler: NodeAffinityArgs.AddedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term")
		}
		for i := range r.NodeSelectorTerms {
			if err := r.NodeSelectorTerms[i].Validate(); err != nil {
				return fmt.Errorf("scheduler: NodeAffinityArgs.AddedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[%d]: %w", i, err)
			}
		}
	}
	for i, t := range aa.PreferredDuringSchedulingIgnoredDuringExecution {
		if t.Weight < 1 || t.Weight > 100 {
			return fmt.Errorf("scheduler: NodeAffinityArgs.AddedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].weight: Invalid value: %d: must be in the range 1-100", i, t.Weight)
		}
		if err := t.Preference.Validate(); err != nil {
			return fmt.Errorf("scheduler: NodeAffinityArgs.AddedAffinity.preferredDuringSchedulingIgnoredDuringExecution[%d].preference: %w", i, err)
		}
	}
	return nil
}

// addedAffinity is AddedAffinity as the filter and the score read it.
type addedAffinity struct {
	required  *api.NodeSelector // nil: every node
	preferred []api.PreferredSchedulingTerm
}

// newAddedAffinity returns the profile's added affinity, nil for none.
func newAddedAffinity(a NodeAffinityArgs) *addedAffinity {
	aa := a.AddedAffinity
	if aa == nil || aa.RequiredDuringSchedulingIgnoredDuringExecution == nil && len(aa.PreferredDuringSchedulingIgnoredDuringExecution) == 0 {
		return nil
	}
	return &addedAffinity{required: aa.RequiredDuringSchedulingIgnoredDuringExecution, preferred: aa.PreferredDuringSchedulingIgnoredDuringExecution}
}

// nodeAffinityPreFilter is NodeAffinity's PreFilter result: when every
// term of the pod's required node affinity has matchFields requirements
// metadata.name In [...], the names of the nodes they admit (per term the
// intersection of those lists, the union over the terms), sorted and
// distinct; nil when any term has none (every node is a candidate).
// conflict is true when that union is empty: the pod fits nowhere
// (ReasonNodeAffinityConflict, UnschedulableAndUnresolvable).
func nodeAffinityPreFilter(pod *api.Pod) (names []string, conflict bool) {
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return nil, false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return nil, false
	}
	var union []string
	for i := range terms {
		var term []string
		found := false
		for _, r := range terms[i].MatchFields {
			if r.Key != api.NodeFieldName || r.Operator != api.NodeSelectorOpIn {
				continue
			}
			vals := slices.Clone(r.Values)
			slices.Sort(vals)
			vals = slices.Compact(vals)
			if !found {
				term, found = vals, true
				continue
			}
			term = slices.DeleteFunc(term, func(n string) bool { _, ok := slices.BinarySearch(vals, n); return !ok })
		}
		if !found {
			return nil, false
		}
		union = append(union, term...)
	}
	slices.Sort(union)
	union = slices.Compact(union)
	if len(union) == 0 {
		return nil, true
	}
	return union, false
}

// candidateIndexes returns the indexes in names of the nodes in want
// (binary search when names are sorted, as the cache's are); names that are not nodes are dropped, as
// findNodesThatFitPod drops them.
func candidateIndexes(names, want []string) []int {
	out := make([]int, 0, len(want))
	sorted := slices.IsSorted(names)
	for _, w := range want {
		i, ok := 0, false
		if sorted {
			i, ok = slices.BinarySearch(names, w)
		} else if i = slices.Index(names, w); i >= 0 {
			ok = true
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}
