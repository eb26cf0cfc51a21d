package nodelifecycle

import (
	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ZoneKey returns the key of node's zone: region and zone joined by
// ":\x00:", or "" for a node with neither label (as kcm's
// nodetopology.GetZoneKey, without the deprecated failure-domain labels).
func ZoneKey(node *api.Node) string {
	region, zone := node.Labels[api.LabelTopologyRegion], node.Labels[api.LabelTopologyZone]
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// ZoneState is the health of a zone.
type ZoneState string

// The zone states.
const (
	StateInitial           ZoneState = "Initial"
	StateNormal            ZoneState = "Normal"
	StateFullDisruption    ZoneState = "FullDisruption"
	StatePartialDisruption ZoneState = "PartialDisruption"
)

// ComputeZoneState returns how many of a zone's nodes are not ready and
// the zone's state (kcm's ComputeZoneState): FullDisruption when none is
// ready, PartialDisruption when more than two and at least threshold of
// them are not ready, Normal otherwise. A nil condition counts as not
// ready.
func ComputeZoneState(ready []*api.NodeCondition, threshold float64) (int, ZoneState) {
	readyNodes, notReady := 0, 0
	for _, c := range ready {
		if c != nil && c.Status == api.ConditionTrue {
			readyNodes++
		} else {
			notReady++
		}
	}
	switch {
	case readyNodes == 0 && notReady > 0:
		return notReady, StateFullDisruption
	case notReady > 2 && float64(notReady)/float64(notReady+readyNodes) >= threshold:
		return notReady, StatePartialDisruption
	}
	return notReady, StateNormal
}

// Rates are the tainting rates of the zone states.
type Rates struct {
	// Eviction is the rate of a healthy zone, nodes per second
	// (--node-eviction-rate).
	Eviction float64
	// Secondary is the rate of a partially disrupted zone of more than
	// LargeCluster nodes (--secondary-node-eviction-rate); a smaller one
	// gets 0.
	Secondary float64
	// LargeCluster is --large-cluster-size-threshold.
	LargeCluster int
}

// RateFor returns the tainting rate of a zone of size nodes in state s
// (kcm's setLimiterInZone with HealthyQPSFunc and ReducedQPSFunc): a fully
// disrupted zone keeps the normal rate, unless every zone is, which
// Disruption handles.
func (r Rates) RateFor(s ZoneState, size int) float64 {
	if s == StatePartialDisruption {
		if size > r.LargeCluster {
			return r.Secondary
		}
		return 0
	}
	return r.Eviction
}

// DisruptionResult is what Disruption decides.
type DisruptionResult struct {
	// States are the zones' states from now on.
	States map[string]ZoneState
	// Rates holds the new tainting rate of each zone whose rate changes.
	Rates map[string]float64
	// MarkAllReachable: every zone just became fully disrupted; remove
	// the NoExecute taints from every node (the problem is more likely
	// the control plane's network than every node at once).
	MarkAllReachable bool
	// ResetProbes: the cluster leaves full disruption; treat every node
	// as just heard from, so none is judged on the silence.
	ResetProbes bool
}

// Disruption is kcm's handleDisruption as a pure function of the zones'
// previous states and the Ready conditions (after this pass) of their
// nodes.
func Disruption(prev map[string]ZoneState, zones map[string][]*api.NodeCondition, threshold float64, r Rates) DisruptionResult {
	res := DisruptionResult{States: map[string]ZoneState{}, Rates: map[string]float64{}}
	newStates := map[string]ZoneState{}
	allAre := true
	for k, conds := range zones {
		_, s := ComputeZoneState(conds, threshold)
		if s != StateFullDisruption {
			allAre = false
		}
		newStates[k] = s
	}
	states := map[string]ZoneState{}
	for k, s := range prev {
		if _, ok := zones[k]; ok {
			states[k] = s
		}
	}
	for k := range zones {
		if _, ok := states[k]; !ok {
			states[k] = StateInitial
		}
	}
	allWere := true
	for _, s := range states {
		if s != StateFullDisruption {
			allWere = false
			break
		}
	}
	res.States = states
	if allAre && allWere {
		return res
	}
	switch {
	case allAre:
		res.MarkAllReachable = true
		for k := range states {
			res.Rates[k] = 0
			states[k] = StateFullDisruption
		}
	case allWere:
		res.ResetProbes = true
		for k := range states {
			res.Rates[k] = r.RateFor(newStates[k], len(zones[k]))
			states[k] = newStates[k]
		}
	default:
		for k, s := range states {
			if s == newStates[k] {
				continue
			}
			res.Rates[k] = r.RateFor(newStates[k], len(zones[k]))
			states[k] = newStates[k]
		}
	}
	return res
}
