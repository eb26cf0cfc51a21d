package tainteviction

import (
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Pending is an eviction scheduled for a pod: first decided at CreatedAt,
// due at FireAt.
type Pending struct {
	// CreatedAt is when the pod was first found on a tainted node; a later
	// decision keeps it, so re-evaluations never postpone an eviction.
	CreatedAt time.Time
	// FireAt is when the pod is deleted.
	FireAt time.Time
}

// Decision is what to do about one pod, returned by Decide.
type Decision struct {
	// Cancel drops the pod's pending eviction, if any.
	Cancel bool
	// Schedule, when non-nil, is the pod's eviction from now on (it
	// replaces a pending one). Its FireAt may be now: evict at once.
	Schedule *Pending
}

// NoExecuteTaints returns the taints with effect NoExecute (kcm's
// getNoExecuteTaints); nil when there are none.
func NoExecuteTaints(taints []api.Taint) []api.Taint {
	var out []api.Taint
	for _, t := range taints {
		if t.Effect == api.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// MatchingTolerations reports whether every taint is tolerated and returns,
// per taint, the first toleration that tolerates it (kcm's
// v1helper.GetMatchingTolerations).
func MatchingTolerations(taints []api.Taint, tolerations []api.Toleration) (bool, []api.Toleration) {
	used := make([]api.Toleration, 0, len(taints))
	for i := range taints {
		tolerated := false
		for j := range tolerations {
			if tolerations[j].ToleratesTaint(&taints[i]) {
				used = append(used, tolerations[j])
				tolerated = true
				break
			}
		}
		if !tolerated {
			return false, nil
		}
	}
	return true, used
}

// MinTolerationTime returns the shortest tolerationSeconds of used, and
// false when none sets one (tolerated forever). No tolerations, or one of
// zero or negative seconds, gives 0: evict at once (kcm's
// getMinTolerationTime).
func MinTolerationTime(used []api.Toleration) (time.Duration, bool) {
	if len(used) == 0 {
		return 0, true
	}
	var (
		least time.Duration
		found bool
	)
	for i := range used {
		d, bounded := used[i].TolerationDuration()
		if !bounded {
			continue
		}
		if d <= 0 {
			return 0, true
		}
		if !found || d < least {
			least, found = d, true
		}
	}
	return least, found
}

// IsDaemonSetPod reports whether pod is controlled by a DaemonSet. Such
// pods are never evicted: the DaemonSet would put them straight back on
// the node (Kubernetes' old node controller skipped them for that reason).
func IsDaemonSetPod(pod *api.Pod) bool {
	ref := pod.ControllerRef()
	return ref != nil && ref.Kind == "DaemonSet"
}

// Decide is the taint eviction policy for one pod, given the NoExecute
// taints of its node (taints), its pending eviction (nil if none) and the
// time: kcm's processPodOnNode, plus the DaemonSet and terminating-pod
// skips.
//
//   - No taints, a DaemonSet pod or a pod already being deleted: cancel.
//   - A taint the pod does not tolerate: evict now.
//   - Every taint tolerated forever (no tolerationSeconds on the
//     tolerations used): cancel.
//   - Otherwise evict at the first observation plus the shortest
//     tolerationSeconds of the tolerations used; a pending eviction that
//     is due no later than now plus that time stays as it is.
func Decide(pod *api.Pod, taints []api.Taint, pending *Pending, now time.Time) Decision {
	if len(taints) == 0 || IsDaemonSetPod(pod) || pod.DeletionTimestamp != nil {
		return Decision{Cancel: pending != nil}
	}
	ok, used := MatchingTolerations(taints, pod.Spec.Tolerations)
	if !ok {
		return Decision{Cancel: pending != nil, Schedule: &Pending{CreatedAt: now, FireAt: now}}
	}
	least, bounded := MinTolerationTime(used)
	if !bounded {
		return Decision{Cancel: pending != nil}
	}
	start, trigger := now, now.Add(least)
	if pending != nil {
		start = pending.CreatedAt
		if start.Add(least).Before(trigger) || pending.FireAt.Equal(trigger) {
			return Decision{}
		}
	}
	return Decision{Cancel: pending != nil, Schedule: &Pending{CreatedAt: start, FireAt: trigger}}
}
