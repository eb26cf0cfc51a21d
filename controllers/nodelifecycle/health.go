package nodelifecycle

import (
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The reasons and messages the controller writes on the conditions of a
// node whose kubelet went silent (kcm's tryUpdateNodeHealth).
const (
	ReasonNodeStatusUnknown      = "NodeStatusUnknown"
	MessageNodeStatusUnknown     = "Kubelet stopped posting node status."
	ReasonNodeStatusNeverUpdated = "NodeStatusNeverUpdated"
	MessageNodeStatusNeverPosted = "Kubelet never posted node status."
)

// monitoredConditions are the conditions set to Unknown when a node goes
// silent. NetworkUnavailable is not: the network plugin, not the kubelet,
// owns it.
var monitoredConditions = []api.NodeConditionType{api.NodeReady, api.NodeMemoryPressure, api.NodeDiskPressure, api.NodePIDPressure}

// Health is what the controller remembers about a node between passes
// (kcm's nodeHealthData). Times are the controller's own clock, when it
// observed a change, never the kubelet's timestamps: clocks across a
// cluster are skewed.
type Health struct {
	// ProbeTime is when a fresh heartbeat (a new Ready lastHeartbeatTime)
	// or a renewed Lease was last observed.
	ProbeTime time.Time
	// ReadyTransitionTime is when a change of the Ready condition was last
	// observed.
	ReadyTransitionTime time.Time
	// Ready is the Ready condition last observed; nil if the node had none.
	Ready *api.NodeCondition
	// LeaseRenewTime is the renewTime of the Lease last observed; HasLease
	// says whether one was.
	LeaseRenewTime time.Time
	// HasLease reports whether a Lease was observed.
	HasLease bool
}

// Graces are the grace periods ObserveHealth applies.
type Graces struct {
	// Monitor is how long a node with a Ready condition may stay silent
	// (--node-monitor-grace-period).
	Monitor time.Duration
	// Startup is how long a node that never posted a Ready condition may
	// (--node-startup-grace-period).
	Startup time.Duration
}

// Observation is the result of ObserveHealth.
type Observation struct {
	// Health is what to remember if Status is nil or cannot be written.
	Health Health
	// Observed is the Ready condition as the node carried it (a fake
	// Unknown one stamped with its creation time if it had none).
	Observed api.NodeCondition
	// Current is the Ready condition after this pass: the node's, or the
	// Unknown one in Status; nil if the node has none and is not stale.
	Current *api.NodeCondition
	// Status, when non-nil, is the node's status with the monitored
	// conditions set to Unknown, to write with UpdateStatus.
	Status *api.NodeStatus
	// AfterWrite is what to remember once Status is written: the
	// Unknown Ready condition, observed now.
	AfterWrite Health
}

// ObserveHealth is kcm's tryUpdateNodeHealth as a pure function of the
// node, its Lease in kube-node-lease (nil if none), what was remembered
// (nil for a node not seen before) and the time.
//
// A node is healthy while a heartbeat or a lease renewal was observed
// within the grace period: either signal moves ProbeTime to now, so
// whichever is newer counts. A node without a Ready condition gets the
// startup grace, counted from its creation. Past the grace, Ready,
// MemoryPressure, DiskPressure and PIDPressure become Unknown (reason
// NodeStatusUnknown, "Kubelet stopped posting node status."; a condition
// never posted is added with NodeStatusNeverUpdated); the status is
// written only if that changed the Ready condition.
func ObserveHealth(node *api.Node, lease *api.Lease, saved *Health, g Graces, now time.Time) Observation {
	var (
		obs   Observation
		grace time.Duration
		h     Health
	)
	ready, hasReady := node.Status.GetCondition(api.NodeReady)
	if !hasReady {
		obs.Observed = api.NodeCondition{Type: api.NodeReady, Status: api.ConditionUnknown,
			LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: node.CreationTimestamp}
		grace = g.Startup
		if saved != nil {
			h = *saved
			h.Ready = nil
		} else {
			h = Health{ProbeTime: node.CreationTimestamp.Time, ReadyTransitionTime: node.CreationTimestamp.Time}
		}
	} else {
		obs.Observed = *ready
		grace = g.Monitor
		if saved != nil {
			h = *saved
		}
	}
	// kcm overwrites the remembered status of a node without a Ready
	// condition before comparing, so a removed Ready condition is not a
	// change; neither is it here.
	switch {
	case saved == nil && hasReady:
		h = Health{ProbeTime: now, ReadyTransitionTime: now}
	case saved != nil && saved.Ready == nil && hasReady:
		// a Ready condition observed for the first time
		h = Health{ProbeTime: now, ReadyTransitionTime: now, LeaseRenewTime: saved.LeaseRenewTime, HasLease: saved.HasLease}
	case saved != nil && saved.Ready != nil && hasReady && !saved.Ready.LastHeartbeatTime.Equal(ready.LastHeartbeatTime.Time):
		transition := saved.ReadyTransitionTime
		if !saved.Ready.LastTransitionTime.Equal(ready.LastTransitionTime.Time) {
			transition = now
		}
		h = Health{ProbeTime: now, ReadyTransitionTime: transition, LeaseRenewTime: saved.LeaseRenewTime, HasLease: saved.HasLease}
	}
	if hasReady {
		c := *ready
		h.Ready = &c
	}
	// Always move the probe time when the lease was renewed.
	if lease != nil && lease.Spec.RenewTime != nil {
		if renew := lease.Spec.RenewTime.Time; !h.HasLease || h.LeaseRenewTime.Before(renew) {
			h.LeaseRenewTime, h.HasLease = renew, true
			h.ProbeTime = now
		}
	}
	obs.Health = h
	if hasReady {
		obs.Current = ready
	}
	if !now.After(h.ProbeTime.Add(grace)) {
		return obs
	}
	status := node.Status
	status.Conditions = append([]api.NodeCondition(nil), node.Status.Conditions...)
	for _, t := range monitoredConditions {
		c, ok := status.GetCondition(t)
		switch {
		case !ok:
			status.Conditions = append(status.Conditions, api.NodeCondition{Type: t, Status: api.ConditionUnknown,
				Reason: ReasonNodeStatusNeverUpdated, Message: MessageNodeStatusNeverPosted,
				LastHeartbeatTime: node.CreationTimestamp, LastTransitionTime: api.NewTime(now)})
		case c.Status != api.ConditionUnknown:
			c.Status, c.Reason, c.Message = api.ConditionUnknown, ReasonNodeStatusUnknown, MessageNodeStatusUnknown
			c.LastTransitionTime = api.NewTime(now)
		}
	}
	cur, _ := status.GetCondition(api.NodeReady)
	obs.Current = cur
	if conditionEqual(*cur, obs.Observed) {
		return obs
	}
	obs.Status = &status
	after := h
	c := *cur
	after.Ready, after.ReadyTransitionTime = &c, now
	obs.AfterWrite = after
	return obs
}

func conditionEqual(a, b api.NodeCondition) bool {
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastHeartbeatTime.Equal(b.LastHeartbeatTime.Time) && a.LastTransitionTime.Equal(b.LastTransitionTime.Time)
}
