package api

import (
	"fmt"
	"slices"
	"strconv"
)

// NodeFieldName is the only node field a NodeSelectorTerm's MatchFields
// may name.
const NodeFieldName = "metadata.name"

// Matches reports whether labels satisfy r: In/NotIn/Exists/DoesNotExist
// as for label selectors, Gt/Lt comparing the label's value and r's single
// value as integers. A malformed requirement (wrong number of values, a
// non-integer for Gt/Lt, an unknown operator) matches nothing.
func (r *NodeSelectorRequirement) Matches(labels map[string]string) bool {
	ok, err := r.matches(labels)
	return err == nil && ok
}

func (r *NodeSelectorRequirement) matches(labels map[string]string) (bool, error) {
	v, has := labels[r.Key]
	switch r.Operator {
	case NodeSelectorOpIn, NodeSelectorOpNotIn:
		if len(r.Values) == 0 {
			return false, fmt.Errorf("api: node selector %q %s: values must be non-empty", r.Key, r.Operator)
		}
		in := has && slices.Contains(r.Values, v)
		return in == (r.Operator == NodeSelectorOpIn), nil
	case NodeSelectorOpExists, NodeSelectorOpDoesNotExist:
		if len(r.Values) != 0 {
			return false, fmt.Errorf("api: node selector %q %s: values must be empty", r.Key, r.Operator)
		}
		return has == (r.Operator == NodeSelectorOpExists), nil
	case NodeSelectorOpGt, NodeSelectorOpLt:
		if len(r.Values) != 1 {
			return false, fmt.Errorf("api: node selector %q %s: exactly one value required", r.Key, r.Operator)
		}
		want, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return false, fmt.Errorf("api: node selector %q %s: %q is not an integer", r.Key, r.Operator, r.Values[0])
		}
		if !has {
			return false, nil
		}
		got, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false, nil
		}
		if r.Operator == NodeSelectorOpGt {
			return got > want, nil
		}
		return got < want, nil
	}
	return false, fmt.Errorf("api: node selector %q: unknown operator %q", r.Key, r.Operator)
}

// Validate reports the first malformed requirement of t, or nil.
func (t *NodeSelectorTerm) Validate() error {
	for i := range t.MatchExpressions {
		if _, err := t.MatchExpressions[i].matches(nil); err != nil {
			return err
		}
	}
	for _, f := range t.MatchFields {
		if f.Key != NodeFieldName {
			return fmt.Errorf("api: node selector field %q: only %s is supported", f.Key, NodeFieldName)
		}
		if _, err := f.matches(nil); err != nil {
			return err
		}
	}
	return nil
}

// Matches reports whether node satisfies every requirement of t, as the
// scheduler's node affinity does: MatchExpressions against the node's
// labels, MatchFields against its metadata.name. A term with no
// requirements, or a malformed one, matches no node.
func (t *NodeSelectorTerm) Matches(node *Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	if t.Validate() != nil {
		return false
	}
	for i := range t.MatchExpressions {
		if !t.MatchExpressions[i].Matches(node.Labels) {
			return false
		}
	}
	fields := map[string]string{NodeFieldName: node.Name}
	for i := range t.MatchFields {
		if !t.MatchFields[i].Matches(fields) {
			return false
		}
	}
	return true
}

// Matches reports whether node satisfies any term of s. A nil selector
// matches every node; a selector with no terms matches none.
func (s *NodeSelector) Matches(node *Node) bool {
	if s == nil {
		return true
	}
	for i := range s.NodeSelectorTerms {
		if s.NodeSelectorTerms[i].Matches(node) {
			return true
		}
	}
	return false
}

// PodMatchesNode reports whether pod's spec.nodeSelector and its required
// node affinity both admit node — the scheduler's NodeAffinity filter and
// the daemon set controller's node check. Taints are not considered (see
// FindUntoleratedTaint).
func PodMatchesNode(pod *Pod, node *Node) bool {
	for k, v := range pod.Spec.NodeSelector {
		if nv, ok := node.Labels[k]; !ok || nv != v {
			return false
		}
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil {
		return a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.Matches(node)
	}
	return true
}
