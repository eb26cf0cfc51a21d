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

// terminating counts the pods controlled by the owner with uid that its
// selector picks and that are being deleted but not yet terminal.
func terminating(uid api.UID, sel api.Selector, pods []*api.Pod) int32 {
	var n int32
	for _, p := range pods {
		ref := p.ControllerRef()
		if p.DeletionTimestamp != nil && p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed &&
			ref != nil && ref.UID == uid && sel.Matches(p.Labels) {
			n++
		}
	}
	return n
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
func calculateStatus(prev api.ReplicaSetStatus, sp spec, active []*api.Pod, manageErr error, now time.Time) (st api.ReplicaSetStatus, recheck time.Duration) {
	st = prev
	st.Conditions = append([]api.ReplicaSetCondition(nil), prev.Conditions...)
	st.Replicas = int32(len(active))
	st.FullyLabeledReplicas, st.ReadyReplicas, st.AvailableReplicas = 0, 0, 0
	st.ObservedGeneration = sp.generation
	st.TerminatingReplicas = nil
	var tmplLabels map[string]string
	if sp.template != nil {
		tmplLabels = sp.template.Labels
	}
	// A selector that requires every template label (a Deployment's
	// ReplicaSet: app=…,pod-template-hash=…) leaves no pod to check.
	allLabeled := sp.selector.ImpliesLabels(tmplLabels)
	for _, p := range active {
		if allLabeled || hasLabels(p.Labels, tmplLabels) {
			st.FullyLabeledReplicas++
		}
		if !api.IsPodReady(p) {
			continue
		}
		st.ReadyReplicas++
		at, ok := availableAt(p, sp.minReadySeconds)
		switch {
		case !ok:
		case at.IsZero() || now.After(at):
			st.AvailableReplicas++
		default:
			// Available from the first instant after at.
			if d := at.Sub(now) + time.Nanosecond; recheck == 0 || d < recheck {
				recheck = d
			}
		}
	}

	i := conditionIndex(st.Conditions, ReplicaFailure)
	switch {
	case manageErr != nil && i < 0:
		var reason string
		switch {
		case len(active) < sp.replicas:
			reason = ReasonFailedCreate
		case len(active) > sp.replicas:
			reason = ReasonFailedDelete
		}
		st.Conditions = append(st.Conditions, api.ReplicaSetCondition{
			Type:               ReplicaFailure,
			Status:             api.ConditionTrue,
			LastTransitionTime: api.NewTime(now),
			Reason:             reason,
			Message:            manageErr.Error(),
		})
	case manageErr == nil && i >= 0:
		st.Conditions = append(st.Conditions[:i], st.Conditions[i+1:]...)
	}
	if len(st.Conditions) == 0 {
		st.Conditions = nil
	}
	return st, recheck
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
