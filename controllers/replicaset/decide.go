package replicaset

import (
	"reflect"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

// DefaultBurstReplicas is how many pods one sync creates or deletes at
// most: kube-controller-manager's BurstReplicas.
const DefaultBurstReplicas = 500

// ReplicaFailure is the condition type set while creates or deletes fail.
const ReplicaFailure = "ReplicaFailure"

// The reasons of the ReplicaFailure condition, as kube-controller-manager
// gives them.
const (
	ReasonFailedCreate = "FailedCreate"
	ReasonFailedDelete = "FailedDelete"
)

// spec is what the controller reads of a ReplicaSet or a
// ReplicationController: the part the two kinds share.
type spec struct {
	replicas        int
	minReadySeconds int32
	selector        api.Selector
	template        *api.PodTemplateSpec
	generation      int64
}

// manage decides how many pods to create and which to delete so that
// active (the owner's pods not terminating) number replicas, at most
// burst of either per sync — kube-controller-manager's manageReplicas.
// The pods to delete are the first RankForDeletion puts first, related
// returning the pods of the owner and its siblings
// (getIndirectlyRelatedPods): called only to rank deletions, as kube
// lists them only then. A nil related means none.
func manage(replicas int, active []*api.Pod, related func() []*api.Pod, burst int, now time.Time) (create int, del []*api.Pod) {
	diff := len(active) - replicas
	switch {
	case diff < 0:
		return min(-diff, burst), nil
	case diff > 0:
		n := min(diff, burst)
		if n == len(active) {
			return 0, active // all of them: no ranking needed
		}
		var rel []*api.Pod
		if related != nil {
			rel = related()
		}
		return 0, ctrlutil.RankForDeletion(active, rel, now)[:n]
	}
	return 0, nil
}

// isTerminating reports whether p is being deleted but not yet terminal:
// it counts toward status.terminatingReplicas (FilterTerminatingPods)
// when its owner's selector picks it.
func isTerminating(p *api.Pod) bool {
	return p.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed
}

// isActive reports whether p counts toward the replicas: not Succeeded,
// not Failed, and not being deleted (FilterActivePods).
func isActive(p *api.Pod) bool {
	return p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed && p.DeletionTimestamp == nil
}

// availableAt returns when the ready pod p becomes available given
// minReadySeconds: kube-controller-manager's IsPodAvailable holds once
// now is strictly after the Ready condition's lastTransitionTime plus
// minReadySeconds. ok is false for a pod that is not ready, or that is
// ready with no transition time while minReadySeconds > 0 (never
// available).
func availableAt(p *api.Pod, minReadySeconds int32) (at time.Time, ok bool) {
	if !api.IsPodReady(p) {
		return time.Time{}, false
	}
	if minReadySeconds == 0 {
		return time.Time{}, true
	}
	c, _ := p.Status.GetCondition(api.PodReady)
	if c.LastTransitionTime.IsZero() {
		return time.Time{}, false
	}
	return c.LastTransitionTime.Add(time.Duration(minReadySeconds) * time.Second), true
}

// calculateStatus computes the owner's status from its active pods, the
// ones sp.selector picks (calculateStatus of kube-controller-manager): replicas,
// fullyLabeledReplicas (pods carrying every label of the template),
// readyReplicas, availableReplicas and observedGeneration, with the
// ReplicaFailure condition set when manageErr is not nil (and not set
// already: its first message stays), removed when manageErr is nil.
// The reason tells whether pods were missing (FailedCreate) or too many
// (FailedDelete) before the sync.
//
// recheck is how long until the next ready pod becomes available (0 if
// none is waiting): the sync requeues then so that availableReplicas
// does not wait for an unrelated event.
//
// The sync counts its pods with a statusCounter as it claims them;
// calculateStatus is the same count over a slice.
func calculateStatus(prev api.ReplicaSetStatus, sp spec, active []*api.Pod, manageErr error, now time.Time) (st api.ReplicaSetStatus, recheck time.Duration) {
	c := newStatusCounter(sp, now)
	for _, p := range active {
		c.add(p)
	}
	return c.status(prev, manageErr)
}

// statusCounter counts active pods into a status as calculateStatus
// does, one pod at a time.
type statusCounter struct {
	sp         spec
	now        time.Time
	tmplLabels map[string]string
	allLabeled bool // the selector implies every template label

	replicas, fullyLabeled, ready, available int32
	recheck                                  time.Duration // until the next ready pod is available; 0: none waits
}

func newStatusCounter(sp spec, now time.Time) *statusCounter {
	c := &statusCounter{sp: sp, now: now}
	if sp.template != nil {
		c.tmplLabels = sp.template.Labels
	}
	// A selector that requires every template label (a Deployment's
	// ReplicaSet: app=…,pod-template-hash=…) leaves no pod to check.
	c.allLabeled = sp.selector.ImpliesLabels(c.tmplLabels)
	return c
}

// add counts the active pod p, which the owner's selector picks.
func (c *statusCounter) add(p *api.Pod) {
	c.replicas++
	if c.allLabeled || hasLabels(p.Labels, c.tmplLabels) {
		c.fullyLabeled++
	}
	if !api.IsPodReady(p) {
		return
	}
	c.ready++
	at, ok := availableAt(p, c.sp.minReadySeconds)
	switch {
	case !ok:
	case at.IsZero() || c.now.After(at):
		c.available++
	default:
		// Available from the first instant after at.
		if d := at.Sub(c.now) + time.Nanosecond; c.recheck == 0 || d < c.recheck {
			c.recheck = d
		}
	}
}

// status returns prev updated with the counts and the ReplicaFailure
// condition, and the recheck delay: see calculateStatus.
func (c *statusCounter) status(prev api.ReplicaSetStatus, manageErr error) (st api.ReplicaSetStatus, recheck time.Duration) {
	st = prev
	st.Conditions = append([]api.ReplicaSetCondition(nil), prev.Conditions...)
	st.Replicas = c.replicas
	st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas = c.fullyLabeled, c.ready, c.available
	st.ObservedGeneration = c.sp.generation
	st.TerminatingReplicas = nil

	i := conditionIndex(st.Conditions, ReplicaFailure)
	switch {
	case manageErr != nil && i < 0:
		var reason string
		switch {
		case int(c.replicas) < c.sp.replicas:
			reason = ReasonFailedCreate
		case int(c.replicas) > c.sp.replicas:
			reason = ReasonFailedDelete
		}
		st.Conditions = append(st.Conditions, api.ReplicaSetCondition{
			Type:               ReplicaFailure,
			Status:             api.ConditionTrue,
			LastTransitionTime: api.NewTime(c.now),
			Reason:             reason,
			Message:            manageErr.Error(),
		})
	case manageErr == nil && i >= 0:
		st.Conditions = append(st.Conditions[:i], st.Conditions[i+1:]...)
	}
	if len(st.Conditions) == 0 {
		st.Conditions = nil
	}
	return st, c.recheck
}

// statusEqual reports whether writing b over a would change nothing the
// controller owns (updateReplicaSetStatus's check).
func statusEqual(a, b api.ReplicaSetStatus) bool {
	return a.Replicas == b.Replicas &&
		a.FullyLabeledReplicas == b.FullyLabeledReplicas &&
		a.ReadyReplicas == b.ReadyReplicas &&
		a.AvailableReplicas == b.AvailableReplicas &&
		a.ObservedGeneration == b.ObservedGeneration &&
		reflect.DeepEqual(a.TerminatingReplicas, b.TerminatingReplicas) &&
		reflect.DeepEqual(a.Conditions, b.Conditions)
}

func conditionIndex(cs []api.ReplicaSetCondition, t string) int {
	for i, c := range cs {
		if c.Type == t {
			return i
		}
	}
	return -1
}

// hasLabels reports whether labels include every pair of want.
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if got, ok := labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}
