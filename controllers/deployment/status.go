package deployment

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// hasProgressDeadline: progressDeadlineSeconds is set and not MaxInt32.
func hasProgressDeadline(d *api.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

func newCondition(typ string, status api.ConditionStatus, reason, msg string, now time.Time) api.DeploymentCondition {
	t := api.NewTime(now)
	return api.DeploymentCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastUpdateTime: t, LastTransitionTime: t}
}

func getCondition(st *api.DeploymentStatus, typ string) *api.DeploymentCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition is kcm's SetDeploymentCondition: a condition with the same
// status and reason is left as it is; one with the same status keeps its
// lastTransitionTime; the condition moves to the end of the list.
func setCondition(st *api.DeploymentStatus, c api.DeploymentCondition) {
	cur := getCondition(st, c.Type)
	if cur != nil && cur.Status == c.Status && cur.Reason == c.Reason {
		return
	}
	if cur != nil && cur.Status == c.Status {
		c.LastTransitionTime = cur.LastTransitionTime
	}
	removeCondition(st, c.Type)
	st.Conditions = append(st.Conditions, c)
}

func removeCondition(st *api.DeploymentStatus, typ string) {
	st.Conditions = slices.DeleteFunc(slices.Clone(st.Conditions), func(c api.DeploymentCondition) bool { return c.Type == typ })
	if len(st.Conditions) == 0 {
		st.Conditions = nil
	}
}

// pausedConditions is kcm's checkPausedConditions: Progressing Unknown
// DeploymentPaused while paused, DeploymentResumed once resumed — unless
// the deadline was already reported exceeded.
func (s *state) pausedConditions() {
	d := s.d
	if !hasProgressDeadline(d) {
		return
	}
	cond := getCondition(&d.Status, ConditionProgressing)
	if cond != nil && cond.Reason == ReasonProgressDeadlineExceeded {
		return
	}
	pausedExists := cond != nil && cond.Reason == ReasonDeploymentPaused
	switch {
	case d.Spec.Paused && !pausedExists:
		setCondition(&d.Status, newCondition(ConditionProgressing, api.ConditionUnknown, ReasonDeploymentPaused, "Deployment is paused", s.now))
	case !d.Spec.Paused && pausedExists:
		setCondition(&d.Status, newCondition(ConditionProgressing, api.ConditionUnknown, ReasonDeploymentResumed, "Deployment is resumed", s.now))
	}
}

// calculateStatus is kcm's calculateStatus: counts over all ReplicaSets,
// updatedReplicas from the new one, and the Available condition.
func (s *state) calculateStatus(all []*api.ReplicaSet, newRS *api.ReplicaSet) api.DeploymentStatus {
	d := s.d
	avail := statusSum(all, func(st *api.ReplicaSetStatus) int32 { return st.AvailableReplicas })
	unavailable := max(specSum(all)-avail, 0)
	st := api.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            statusSum(all, func(st *api.ReplicaSetStatus) int32 { return st.Replicas }),
		UpdatedReplicas:     statusSum([]*api.ReplicaSet{newRS}, func(st *api.ReplicaSetStatus) int32 { return st.Replicas }),
		ReadyReplicas:       statusSum(all, func(st *api.ReplicaSetStatus) int32 { return st.ReadyReplicas }),
		AvailableReplicas:   avail,
		UnavailableReplicas: unavailable,
		CollisionCount:      d.Status.CollisionCount,
		Conditions:          slices.Clone(d.Status.Conditions),
		// DeploymentReplicaSetTerminatingReplicas is beta and on by
		// default since v1.35: the sum of the ReplicaSets' counts, unset
		// while one of them has none yet.
		TerminatingReplicas: terminatingReplicas(all),
	}
	if avail >= replicas(d)-maxUnavailable(d) {
		setCondition(&st, newCondition(ConditionAvailable, api.ConditionTrue, ReasonMinimumReplicasAvailable, "Deployment has minimum availability.", s.now))
	} else {
		setCondition(&st, newCondition(ConditionAvailable, api.ConditionFalse, ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", s.now))
	}
	return st
}

// status builds the new status into s.d.Status: kcm's
// syncDeploymentStatus, or with rollout set its syncRolloutStatus, which
// also judges progress (complete, progressing, timed out) and mirrors a
// ReplicaSet's ReplicaFailure.
func (s *state) status(newRS *api.ReplicaSet, old []*api.ReplicaSet, rollout bool) {
	d := s.d
	all := append(slices.Clone(old), newRS)
	st := s.calculateStatus(all, newRS)
	if !rollout {
		d.Status = st
		return
	}
	s.rollout = true
	if !hasProgressDeadline(d) {
		removeCondition(&st, ConditionProgressing)
	}
	cur := getCondition(&d.Status, ConditionProgressing)
	complete := st.Replicas == st.UpdatedReplicas && cur != nil && cur.Reason == ReasonNewReplicaSetAvailable
	if hasProgressDeadline(d) && !complete {
		name := fmt.Sprintf("Deployment %q", d.Name)
		if newRS != nil {
			name = fmt.Sprintf("ReplicaSet %q", newRS.Name)
		}
		switch {
		case deploymentComplete(d, &st):
			setCondition(&st, newCondition(ConditionProgressing, api.ConditionTrue, ReasonNewReplicaSetAvailable, name+" has successfully progressed.", s.now))
		case deploymentProgressing(d, &st):
			c := newCondition(ConditionProgressing, api.ConditionTrue, ReasonReplicaSetUpdated, name+" is progressing.", s.now)
			if cur != nil {
				if cur.Status == api.ConditionTrue {
					c.LastTransitionTime = cur.LastTransitionTime
				}
				removeCondition(&st, ConditionProgressing)
			}
			setCondition(&st, c)
		case deploymentTimedOut(d, &st, s.now):
			setCondition(&st, newCondition(ConditionProgressing, api.ConditionFalse, ReasonProgressDeadlineExceeded, name+" has timed out progressing.", s.now))
		}
	}
	if c, ok := replicaFailure(all, newRS); ok {
		setCondition(&st, c)
	} else {
		removeCondition(&st, ConditionReplicaFailure)
	}
	d.Status = st
}

// replicaFailure returns the first ReplicaFailure condition of the new
// ReplicaSet, else of an old one (kcm's getReplicaFailures).
func replicaFailure(all []*api.ReplicaSet, newRS *api.ReplicaSet) (api.DeploymentCondition, bool) {
	find := func(rs *api.ReplicaSet) (api.DeploymentCondition, bool) {
		if rs == nil {
			return api.DeploymentCondition{}, false
		}
		for _, c := range rs.Status.Conditions {
			if c.Type == ConditionReplicaFailure {
				return api.DeploymentCondition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message,
					LastUpdateTime: c.LastTransitionTime, LastTransitionTime: c.LastTransitionTime}, true
			}
		}
		return api.DeploymentCondition{}, false
	}
	if c, ok := find(newRS); ok {
		return c, true
	}
	for _, rs := range all {
		if rs == newRS {
			continue
		}
		if c, ok := find(rs); ok {
			return c, true
		}
	}
	return api.DeploymentCondition{}, false
}

// deploymentComplete is kcm's DeploymentComplete: every replica updated
// and available, no old one left, and the status is of the current
// generation.
func deploymentComplete(d *api.Deployment, st *api.DeploymentStatus) bool {
	n := replicas(d)
	return st.UpdatedReplicas == n && st.Replicas == n && st.AvailableReplicas == n && st.ObservedGeneration >= d.Generation
}

// deploymentProgressing is kcm's DeploymentProgressing: more updated
// pods, fewer old pods, or more ready or available pods than the status
// last written says.
func deploymentProgressing(d *api.Deployment, st *api.DeploymentStatus) bool {
	old := d.Status
	return st.UpdatedReplicas > old.UpdatedReplicas ||
		st.Replicas-st.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		st.ReadyReplicas > old.ReadyReplicas ||
		st.AvailableReplicas > old.AvailableReplicas
}

// deploymentTimedOut is kcm's DeploymentTimedOut: the Progressing
// condition was last updated more than progressDeadlineSeconds ago.
func deploymentTimedOut(d *api.Deployment, st *api.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	c := getCondition(st, ConditionProgressing)
	if c == nil || c.Reason == ReasonNewReplicaSetAvailable {
		return false
	}
	if c.Reason == ReasonProgressDeadlineExceeded {
		return true
	}
	deadline := c.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second)
	return deadline.Before(now)
}

// requeueStuck is kcm's requeueStuckDeployment, judged on the status
// about to be written: when a rollout with a deadline has not completed
// nor timed out, sync again when the deadline passes. kcm requeues
// rate-limited when less than a second is left; this requeues after a
// second.
func (s *state) requeueStuck() time.Duration {
	d := s.d
	cur := getCondition(&d.Status, ConditionProgressing)
	if !s.rollout || !hasProgressDeadline(d) || cur == nil {
		return 0
	}
	if deploymentComplete(d, &d.Status) || cur.Reason == ReasonProgressDeadlineExceeded {
		return 0
	}
	after := cur.LastUpdateTime.Add(time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second).Sub(s.now)
	return max(after, 0) + time.Second
}

// statusEqual compares statuses as the API would, by encoding.
func statusEqual(a, b *api.DeploymentStatus) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// terminatingReplicas is GetTerminatingReplicaCountForReplicaSets: the
// sum of the ReplicaSets' status.terminatingReplicas, nil when one of
// them has it unset.
func terminatingReplicas(all []*api.ReplicaSet) *int32 {
	var n int32
	for _, rs := range all {
		switch {
		case rs == nil:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			n += *rs.Status.TerminatingReplicas
		}
	}
	return &n
}
