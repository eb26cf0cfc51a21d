package nodelifecycle

import (
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The NoExecute taints of a node that is not ready or unreachable; pods
// that do not tolerate them are evicted by the taint eviction controller.
var (
	NotReadyTaint    = api.Taint{Key: api.TaintNodeNotReady, Effect: api.TaintEffectNoExecute}
	UnreachableTaint = api.Taint{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoExecute}
)

// conditionTaints maps a node condition and status to the key of the
// NoSchedule taint mirroring it (kcm's nodeConditionToTaintKeyStatusMap).
var conditionTaints = map[api.NodeConditionType]map[api.ConditionStatus]string{
	api.NodeReady:              {api.ConditionFalse: api.TaintNodeNotReady, api.ConditionUnknown: api.TaintNodeUnreachable},
	api.NodeMemoryPressure:     {api.ConditionTrue: api.TaintNodeMemoryPressure},
	api.NodeDiskPressure:       {api.ConditionTrue: api.TaintNodeDiskPressure},
	api.NodeNetworkUnavailable: {api.ConditionTrue: api.TaintNodeNetworkUnavailable},
	api.NodePIDPressure:        {api.ConditionTrue: api.TaintNodePIDPressure},
}

var conditionTaintKeys = []string{api.TaintNodeNotReady, api.TaintNodeUnreachable, api.TaintNodeMemoryPressure,
	api.TaintNodeDiskPressure, api.TaintNodeNetworkUnavailable, api.TaintNodePIDPressure}

// NoScheduleTaints returns the NoSchedule taints to add to and remove
// from node so that they mirror its conditions and spec.unschedulable
// (kcm's doNoScheduleTaintingPass). Taints of other keys or effects are
// never touched.
func NoScheduleTaints(node *api.Node) (add, remove []api.Taint) {
	var want []api.Taint
	for _, c := range node.Status.Conditions {
		if key, ok := conditionTaints[c.Type][c.Status]; ok {
			want = append(want, api.Taint{Key: key, Effect: api.TaintEffectNoSchedule})
		}
	}
	if node.Spec.Unschedulable {
		want = append(want, api.Taint{Key: api.TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule})
	}
	var have []api.Taint
	for _, t := range node.Spec.Taints {
		if t.Effect == api.TaintEffectNoSchedule && (t.Key == api.TaintNodeUnschedulable || slices.Contains(conditionTaintKeys, t.Key)) {
			have = append(have, t)
		}
	}
	return taintSetDiff(want, have)
}

// taintSetDiff is kcm's TaintSetDiff: the taints of want not in have, and
// of have not in want, matched by key and effect.
func taintSetDiff(want, have []api.Taint) (add, remove []api.Taint) {
	for i := range want {
		if !taintExists(have, &want[i]) {
			add = append(add, want[i])
		}
	}
	for i := range have {
		if !taintExists(want, &have[i]) {
			remove = append(remove, have[i])
		}
	}
	return add, remove
}

func taintExists(taints []api.Taint, t *api.Taint) bool {
	for i := range taints {
		if taints[i].MatchTaint(t) {
			return true
		}
	}
	return false
}

// NoExecuteAction is what a monitor pass does about a node's NoExecute
// taints, from NoExecuteDecision.
type NoExecuteAction int

// The NoExecute actions.
const (
	// NoExecuteNone: nothing to do (a node without a Ready condition).
	NoExecuteNone NoExecuteAction = iota
	// SwapToNotReady replaces the unreachable taint with not-ready at
	// once, without waiting for the rate limiter: the node was already
	// judged.
	SwapToNotReady
	// SwapToUnreachable replaces not-ready with unreachable at once.
	SwapToUnreachable
	// QueueNotReady queues the node for the rate-limited not-ready taint.
	QueueNotReady
	// QueueUnreachable queues the node for the rate-limited unreachable
	// taint.
	QueueUnreachable
	// MarkReachable removes both taints and the node from the queue.
	MarkReachable
)

// NoExecuteDecision is kcm's processTaintBaseEviction: from the Ready
// condition a pass observed on the node (before it may have set it
// Unknown) and the node's taints.
func NoExecuteDecision(observed api.ConditionStatus, taints []api.Taint) NoExecuteAction {
	switch observed {
	case api.ConditionFalse:
		if taintExists(taints, &UnreachableTaint) {
			return SwapToNotReady
		}
		return QueueNotReady
	case api.ConditionUnknown:
		if taintExists(taints, &NotReadyTaint) {
			return SwapToUnreachable
		}
		return QueueUnreachable
	case api.ConditionTrue:
		return MarkReachable
	}
	return NoExecuteNone
}

// TaintForReady returns the NoExecute taint a node with Ready status s
// gets from the rate-limited queue and the one it excludes (kcm's
// doNoExecuteTaintingPass), and false for a ready node.
func TaintForReady(s api.ConditionStatus) (add, remove api.Taint, ok bool) {
	switch s {
	case api.ConditionFalse:
		return NotReadyTaint, UnreachableTaint, true
	case api.ConditionUnknown:
		return UnreachableTaint, NotReadyTaint, true
	}
	return api.Taint{}, api.Taint{}, false
}

// applyTaints returns taints with remove taken out and add put in (a
// taint of the same key and effect replaced), and whether that changed
// anything; added NoExecute taints get timeAdded if they have none (the
// API writes it only for NoExecute).
func applyTaints(taints, add, remove []api.Taint, timeAdded api.Time) ([]api.Taint, bool) {
	out := make([]api.Taint, 0, len(taints)+len(add))
	changed := false
	for _, t := range taints {
		if taintExists(remove, &t) || taintExists(add, &t) {
			changed = changed || taintExists(remove, &t)
			if taintExists(add, &t) && !taintExists(remove, &t) {
				out = append(out, t) // already there: keep its timeAdded
			}
			continue
		}
		out = append(out, t)
	}
	for _, t := range add {
		if taintExists(out, &t) {
			continue
		}
		if t.TimeAdded == nil && t.Effect == api.TaintEffectNoExecute {
			ta := timeAdded
			t.TimeAdded = &ta
		}
		out = append(out, t)
		changed = true
	}
	return out, changed
}
