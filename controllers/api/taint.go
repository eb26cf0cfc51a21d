package api

import (
	"slices"
	"strconv"
	"time"
)

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects.
const (
	// TaintEffectNoSchedule keeps new pods off the node.
	TaintEffectNoSchedule TaintEffect = "NoSchedule"
	// TaintEffectPreferNoSchedule steers new pods away from the node.
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	// TaintEffectNoExecute also evicts running pods.
	TaintEffectNoExecute TaintEffect = "NoExecute"
)

// Taint marks a node so that pods without a matching toleration avoid it.
type Taint struct {
	// Key of the taint.
	Key string `json:"key"`
	// Value of the taint.
	Value string `json:"value,omitempty"`
	// Effect of the taint.
	Effect TaintEffect `json:"effect"`
	// TimeAdded is when a NoExecute taint was added.
	TimeAdded *Time `json:"timeAdded,omitempty"`
}

// String returns "key=value:effect" (or "key:effect"), as kubectl prints taints.
func (t Taint) String() string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

// MatchTaint reports whether t and other have the same key and effect,
// which makes them the same taint on a node.
func (t *Taint) MatchTaint(other *Taint) bool {
	return t.Key == other.Key && t.Effect == other.Effect
}

// TolerationOperator is Equal (the default) or Exists, or the numeric Gt and Lt.
type TolerationOperator string

// The toleration operators.
const (
	TolerationOpEqual  TolerationOperator = "Equal"
	TolerationOpExists TolerationOperator = "Exists"
	TolerationOpGt     TolerationOperator = "Gt"
	TolerationOpLt     TolerationOperator = "Lt"
)

// Toleration lets a pod be scheduled onto (and stay on) nodes with
// matching taints.
type Toleration struct {
	// Key of the taints tolerated; empty with Exists tolerates every key.
	Key string `json:"key,omitempty"`
	// Operator is Equal (default), Exists, Gt or Lt.
	Operator TolerationOperator `json:"operator,omitempty"`
	// Value compared with the taint's value for Equal, Gt and Lt.
	Value string `json:"value,omitempty"`
	// Effect tolerated; empty tolerates every effect.
	Effect TaintEffect `json:"effect,omitempty"`
	// TolerationSeconds bounds how long a NoExecute taint is tolerated
	// before eviction; nil means forever.
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// ToleratesTaint reports whether t tolerates taint, with Kubernetes' rules
// (k8s.io/api core/v1 Toleration.ToleratesTaint): an empty effect matches
// every effect; an empty key matches every key (meant to go with Exists);
// Exists matches any value; Equal or "" requires equal values; Gt and Lt
// compare the values as decimal int64s (the taint's value must be greater,
// respectively less, than the toleration's), and fail if either does not
// parse. TolerationSeconds does not affect the result: see
// TolerationDuration.
func (t *Toleration) ToleratesTaint(taint *Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case "", TolerationOpEqual:
		return t.Value == taint.Value
	case TolerationOpExists:
		return true
	case TolerationOpGt, TolerationOpLt:
		tv, ok1 := parseDecimalInt(t.Value)
		nv, ok2 := parseDecimalInt(taint.Value)
		if !ok1 || !ok2 {
			return false
		}
		if t.Operator == TolerationOpGt {
			return nv > tv
		}
		return nv < tv
	}
	return false
}

// parseDecimalInt accepts only canonical decimal integers: no '+', no
// leading zeros.
func parseDecimalInt(s string) (int64, bool) {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if d == "" || (len(d) > 1 && d[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(d); i++ {
		if !isDigit(d[i]) {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// TolerationDuration returns how long t lets a pod stay on a node with a
// NoExecute taint it tolerates, and false when that is forever
// (TolerationSeconds nil). A negative or zero value means evict at once.
func (t *Toleration) TolerationDuration() (time.Duration, bool) {
	if t.TolerationSeconds == nil {
		return 0, false
	}
	return time.Duration(max(*t.TolerationSeconds, 0)) * time.Second, true
}

// TolerationsTolerateTaint reports whether any of tolerations tolerates taint.
func TolerationsTolerateTaint(tolerations []Toleration, taint *Taint) bool {
	for i := range tolerations {
		if tolerations[i].ToleratesTaint(taint) {
			return true
		}
	}
	return false
}

// FindUntoleratedTaint returns the first taint whose effect is one of
// effects (every effect when none are given) that no toleration
// tolerates, as the scheduler's TaintToleration filter does with
// NoSchedule and NoExecute.
func FindUntoleratedTaint(taints []Taint, tolerations []Toleration, effects ...TaintEffect) (Taint, bool) {
	for i := range taints {
		if len(effects) > 0 && !slices.Contains(effects, taints[i].Effect) {
			continue
		}
		if !TolerationsTolerateTaint(tolerations, &taints[i]) {
			return taints[i], true
		}
	}
	return Taint{}, false
}

// TolerationsTolerateTaints reports whether every taint whose effect is
// one of effects (every taint when none are given) is tolerated.
func TolerationsTolerateTaints(taints []Taint, tolerations []Toleration, effects ...TaintEffect) bool {
	_, found := FindUntoleratedTaint(taints, tolerations, effects...)
	return !found
}
