package api

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// LabelSelector selects objects by labels: every MatchLabels pair and every
// MatchExpressions requirement must hold. A nil *LabelSelector selects
// nothing; an empty one selects everything (metav1.LabelSelector).
type LabelSelector struct {
	// MatchLabels pairs are each an "In (value)" requirement.
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions are ANDed.
	MatchExpressions []LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// LabelSelectorOperator is In, NotIn, Exists or DoesNotExist.
type LabelSelectorOperator string

// The label selector operators.
const (
	LabelSelectorOpIn           LabelSelectorOperator = "In"
	LabelSelectorOpNotIn        LabelSelectorOperator = "NotIn"
	LabelSelectorOpExists       LabelSelectorOperator = "Exists"
	LabelSelectorOpDoesNotExist LabelSelectorOperator = "DoesNotExist"
)

// LabelSelectorRequirement is one requirement of a LabelSelector.
type LabelSelectorRequirement struct {
	// Key is the label key.
	Key string `json:"key"`
	// Operator relates Key to Values.
	Operator LabelSelectorOperator `json:"operator"`
	// Values: non-empty for In and NotIn, empty for Exists and DoesNotExist.
	Values []string `json:"values,omitempty"`
}

// AsSelector converts ls to a Selector (metav1.LabelSelectorAsSelector): nil
// gives Nothing, an empty selector gives Everything. Invalid keys, values
// or operators are errors.
func (ls *LabelSelector) AsSelector() (Selector, error) {
	if ls == nil {
		return Nothing(), nil
	}
	var reqs []Requirement
	for k, v := range ls.MatchLabels {
		r, err := NewRequirement(k, SelectionEquals, v)
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	for _, e := range ls.MatchExpressions {
		var op SelectionOperator
		switch e.Operator {
		case LabelSelectorOpIn:
			op = SelectionIn
		case LabelSelectorOpNotIn:
			op = SelectionNotIn
		case LabelSelectorOpExists:
			op = SelectionExists
		case LabelSelectorOpDoesNotExist:
			op = SelectionDoesNotExist
		default:
			return Selector{}, fmt.Errorf("api: label selector: %q is not a valid operator", e.Operator)
		}
		r, err := NewRequirement(e.Key, op, e.Values...)
		if err != nil {
			return Selector{}, err
		}
		reqs = append(reqs, r)
	}
	return Everything().Add(reqs...), nil
}

// SelectionOperator is the operator of a selector Requirement, spelled as in the
// string form.
type SelectionOperator string

// The selector operators.
const (
	SelectionEquals       SelectionOperator = "="
	SelectionDoubleEquals SelectionOperator = "==" // matches as =, prints as ==
	SelectionNotEquals    SelectionOperator = "!="
	SelectionIn           SelectionOperator = "in"
	SelectionNotIn        SelectionOperator = "notin"
	SelectionExists       SelectionOperator = "exists"
	SelectionDoesNotExist SelectionOperator = "!"
	SelectionGreaterThan  SelectionOperator = "gt"
	SelectionLessThan     SelectionOperator = "lt"
)

// Requirement is one condition on one label key. Build it with
// NewRequirement, which validates it and sorts its values.
type Requirement struct {
	key    string
	op     SelectionOperator
	values []string
}

// Key returns the label key.
func (r Requirement) Key() string { return r.key }

// Operator returns the operator.
func (r Requirement) Operator() SelectionOperator { return r.op }

// Values returns a copy of the (sorted) values.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

var (
	labelNameRe  = regexp.MustCompile(`^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

func validateLabelKey(k string) error {
	name := k
	if i := strings.IndexByte(k, '/'); i >= 0 {
		prefix := k[:i]
		name = k[i+1:]
		if prefix == "" || len(prefix) > 253 || !dnsSubdomain.MatchString(prefix) {
			return fmt.Errorf("api: invalid label key %q: prefix must be a DNS subdomain", k)
		}
	}
	if name == "" || len(name) > 63 || !labelNameRe.MatchString(name) {
		return fmt.Errorf("api: invalid label key %q: name must be 1-63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric", k)
	}
	return nil
}

func validateLabelValue(v string) error {
	if v == "" {
		return nil
	}
	if len(v) > 63 || !labelNameRe.MatchString(v) {
		return fmt.Errorf("api: invalid label value %q: must be at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric", v)
	}
	return nil
}

// NewRequirement returns a validated requirement: =, == and != take exactly one
// value, in and notin at least one, exists and ! none, gt and lt one
// integer. Keys and values must be valid label keys and values.
func NewRequirement(key string, op SelectionOperator, values ...string) (Requirement, error) {
	if err := validateLabelKey(key); err != nil {
		return Requirement{}, err
	}
	n := len(values)
	switch op {
	case SelectionEquals, SelectionDoubleEquals, SelectionNotEquals:
		if n != 1 {
			return Requirement{}, fmt.Errorf("api: requirement %q %s: exactly one value required, got %d", key, op, n)
		}
	case SelectionIn, SelectionNotIn:
		if n == 0 {
			return Requirement{}, fmt.Errorf("api: requirement %q %s: at least one value required", key, op)
		}
	case SelectionExists, SelectionDoesNotExist:
		if n != 0 {
			return Requirement{}, fmt.Errorf("api: requirement %q %s: no values allowed, got %d", key, op, n)
		}
	case SelectionGreaterThan, SelectionLessThan:
		if n != 1 {
			return Requirement{}, fmt.Errorf("api: requirement %q %s: exactly one value required, got %d", key, op, n)
		}
		if _, err := strconv.ParseInt(values[0], 10, 64); err != nil {
			return Requirement{}, fmt.Errorf("api: requirement %q %s: value %q is not an integer", key, op, values[0])
		}
		return Requirement{key: key, op: op, values: []string{values[0]}}, nil
	default:
		return Requirement{}, fmt.Errorf("api: requirement %q: unknown operator %q", key, op)
	}
	for _, v := range values {
		if err := validateLabelValue(v); err != nil {
			return Requirement{}, err
		}
	}
	vs := slices.Clone(values)
	slices.Sort(vs)
	vs = slices.Compact(vs)
	return Requirement{key: key, op: op, values: vs}, nil
}

// Matches reports whether labels satisfy r. A missing key satisfies only
// notin, != and !; gt and lt need a label value that parses as an integer.
func (r Requirement) Matches(labels map[string]string) bool {
	v, ok := labels[r.key]
	switch r.op {
	case SelectionEquals, SelectionDoubleEquals, SelectionIn:
		return ok && slices.Contains(r.values, v)
	case SelectionNotEquals, SelectionNotIn:
		return !ok || !slices.Contains(r.values, v)
	case SelectionExists:
		return ok
	case SelectionDoesNotExist:
		return !ok
	case SelectionGreaterThan, SelectionLessThan:
		if !ok {
			return false
		}
		lv, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		rv, _ := strconv.ParseInt(r.values[0], 10, 64)
		if r.op == SelectionGreaterThan {
			return lv > rv
		}
		return lv < rv
	}
	return false
}

// String returns r in the string form ParseSelector reads, as
// apimachinery's Requirement.String: "x=a", "x==a", "x!=a",
// "x in (a,b)", "x notin ()", "x", "!x", "x>1", "x<1".
func (r Requirement) String() string {
	switch r.op {
	case SelectionExists:
		return r.key
	case SelectionDoesNotExist:
		return "!" + r.key
	case SelectionEquals, SelectionDoubleEquals, SelectionNotEquals:
		return r.key + string(r.op) + r.values[0]
	case SelectionGreaterThan:
		return r.key + ">" + r.values[0]
	case SelectionLessThan:
		return r.key + "<" + r.values[0]
	}
	return r.key + " " + string(r.op) + " (" + strings.Join(r.values, ",") + ")"
}

// Selector is a conjunction of requirements on labels (labels.Selector).
// It is an immutable value; the zero value is Everything.
type Selector struct {
	reqs    []Requirement // sorted by key
	nothing bool
}

// Everything returns the selector that matches every label set.
func Everything() Selector { return Selector{} }

// Nothing returns the selector that matches no label set.
func Nothing() Selector { return Selector{nothing: true} }

// SelectorFromSet returns the equality selector of a Service's or
// ReplicationController's map selector. An empty map gives Everything
// (callers that treat an empty service selector as "no pods" check that
// first). Keys and values are not validated.
func SelectorFromSet(set map[string]string) Selector {
	reqs := make([]Requirement, 0, len(set))
	for k, v := range set {
		reqs = append(reqs, Requirement{key: k, op: SelectionEquals, values: []string{v}})
	}
	return Everything().Add(reqs...)
}

// Add returns a selector that also requires reqs. Adding to Nothing
// still gives Nothing.
func (s Selector) Add(reqs ...Requirement) Selector {
	if s.nothing {
		return s
	}
	out := Selector{reqs: make([]Requirement, 0, len(s.reqs)+len(reqs))}
	out.reqs = append(append(out.reqs, s.reqs...), reqs...)
	slices.SortStableFunc(out.reqs, func(a, b Requirement) int { return strings.Compare(a.key, b.key) })
	return out
}

// Matches reports whether labels satisfy every requirement.
func (s Selector) Matches(labels map[string]string) bool {
	if s.nothing {
		return false
	}
	for _, r := range s.reqs {
		if !r.Matches(labels) {
			return false
		}
	}
	return true
}

// ImpliesLabels reports whether every label set s matches carries every
// pair of set, because each pair is an equality requirement of s ("k=v",
// "k==v" or "k in (v)"); Nothing implies every set. A caller that holds
// only objects s picks can then skip checking their labels for set. It
// does not look at any object, so it is no Matches over them: false
// means only that s alone does not imply set.
func (s Selector) ImpliesLabels(set map[string]string) bool {
	if s.nothing {
		return true
	}
	for k, v := range set {
		i, ok := slices.BinarySearchFunc(s.reqs, k, func(r Requirement, k string) int { return strings.Compare(r.key, k) })
		if !ok {
			return false
		}
		implied := false
		for ; i < len(s.reqs) && s.reqs[i].key == k; i++ {
			r := s.reqs[i]
			switch r.op {
			case SelectionEquals, SelectionDoubleEquals, SelectionIn:
				if len(r.values) == 1 && r.values[0] == v {
					implied = true
				}
			}
		}
		if !implied {
			return false
		}
	}
	return true
}

// Empty reports whether s is Everything.
func (s Selector) Empty() bool { return !s.nothing && len(s.reqs) == 0 }

// Requirements returns a copy of s's requirements, sorted by key.
func (s Selector) Requirements() []Requirement { return slices.Clone(s.reqs) }

// String returns s in the string form ParseSelector reads, requirements
// sorted by key: "app=nginx,env in (a,b),!canary". Everything is "";
// Nothing has no string form and prints as "<none>".
func (s Selector) String() string {
	if s.nothing {
		return "<none>"
	}
	parts := make([]string, len(s.reqs))
	for i, r := range s.reqs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}
