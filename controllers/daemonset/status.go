package daemonset

import (
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// calculateStatus is kcm's updateDaemonSetStatus without the write: over
// every node, desiredNumberScheduled counts those that should run a
// daemon pod, currentNumberScheduled those of them that have one,
// numberMisscheduled the others that have one; of the nodes that should
// run one, the oldest pod (byCreation) decides numberReady,
// numberAvailable (ready for minReadySeconds) and
// updatedNumberScheduled (of the current revision); numberUnavailable
// is desired minus available. observedGeneration moves to the set's
// generation only when observe is true: a sync that waited for its
// expectations did not act on this generation.
//
// recheck is kcm's last line of defence: with minReadySeconds and ready
// pods not yet available, the set is synced again after
// minReadySeconds (0: no recheck).
func calculateStatus(v view, observe bool) (st api.DaemonSetStatus, recheck time.Duration) {
	st = v.ds.Status
	byNode := podsByNode(v.pods)
	var desired, current, mis, ready, available, updated int32
	for _, node := range v.nodes {
		shouldRun, _ := ShouldRun(v.ds, node)
		pods := byNode[node.Name]
		if !shouldRun {
			if len(pods) > 0 {
				mis++
			}
			continue
		}
		desired++
		if len(pods) == 0 {
			continue
		}
		current++
		pod := pods[0]
		if api.IsPodReady(pod) {
			ready++
			if isAvailable(pod, v.ds.Spec.MinReadySeconds, v.now) {
				available++
			}
		}
		if isUpdated(pod, v.hash) {
			updated++
		}
	}
	st.DesiredNumberScheduled = desired
	st.CurrentNumberScheduled = current
	st.NumberMisscheduled = mis
	st.NumberReady = ready
	st.NumberAvailable = available
	st.UpdatedNumberScheduled = updated
	st.NumberUnavailable = desired - available
	if observe {
		st.ObservedGeneration = v.ds.Generation
	}
	if v.ds.Spec.MinReadySeconds > 0 && ready != available {
		recheck = time.Duration(v.ds.Spec.MinReadySeconds) * time.Second
	}
	return st, recheck
}
