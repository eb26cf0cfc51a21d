package deployment

import (
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// rolloutRolling is kcm's rolloutRolling: create the new ReplicaSet if
// needed, scale it up as far as maxSurge allows; if that changed nothing,
// scale old ones down as far as maxUnavailable allows; when the rollout
// is complete, clean up old ReplicaSets; then judge progress.
func (s *state) rolloutRolling() {
	newRS, old := s.syncRevision(true)
	all := append(slices.Clone(old), newRS)
	if s.reconcileNew(all, newRS) {
		s.status(newRS, old, true)
		return
	}
	if s.reconcileOld(all, active(old), newRS) {
		s.status(newRS, old, true)
		return
	}
	if deploymentComplete(s.d, &s.d.Status) {
		s.cleanup(old)
	}
	s.status(newRS, old, true)
}

// reconcileNew is kcm's reconcileNewReplicaSet.
func (s *state) reconcileNew(all []*api.ReplicaSet, newRS *api.ReplicaSet) bool {
	want := replicas(s.d)
	switch n := rsReplicas(newRS); {
	case n == want:
		return false
	case n > want:
		return s.scaleIfNeeded(newRS, want)
	}
	return s.scaleIfNeeded(newRS, newRSNewReplicas(s.d, all, newRS))
}

// reconcileOld is kcm's reconcileOldReplicaSets: first remove old
// replicas that are not available (never more than maxScaledDown, so the
// new ReplicaSet's unavailable pods are accounted for), then scale old
// ReplicaSets down, oldest first, to what minAvailable allows.
func (s *state) reconcileOld(all, oldActive []*api.ReplicaSet, newRS *api.ReplicaSet) bool {
	if specSum(oldActive) == 0 {
		return false
	}
	d := s.d
	allPods := specSum(all)
	minAvail := replicas(d) - maxUnavailable(d)
	newUnavailable := rsReplicas(newRS) - available(newRS)
	maxScaledDown := allPods - minAvail - newUnavailable
	if maxScaledDown <= 0 {
		return false
	}
	cleaned := s.cleanupUnhealthy(oldActive, maxScaledDown)
	scaled := s.scaleDownOld(append(slices.Clone(oldActive), newRS), oldActive)
	return cleaned+scaled > 0
}

// cleanupUnhealthy is kcm's cleanupUnhealthyReplicas: scale old
// ReplicaSets down by their unavailable replicas, oldest first, at most
// maxCleanup in all.
func (s *state) cleanupUnhealthy(old []*api.ReplicaSet, maxCleanup int32) int32 {
	old = slices.Clone(old)
	slices.SortFunc(old, byCreation)
	var total int32
	for _, rs := range old {
		if total >= maxCleanup {
			break
		}
		n := rsReplicas(rs)
		if n == 0 || n == available(rs) {
			continue
		}
		down := min(maxCleanup-total, n-available(rs))
		s.scaleIfNeeded(rs, n-down)
		total += down
	}
	return total
}

// scaleDownOld is kcm's scaleDownOldReplicaSetsForRollingUpdate: scale
// old ReplicaSets down, oldest first, by what is available beyond
// minAvailable.
func (s *state) scaleDownOld(all, old []*api.ReplicaSet) int32 {
	minAvail := replicas(s.d) - maxUnavailable(s.d)
	avail := availableSum(all)
	if avail <= minAvail {
		return 0
	}
	old = slices.Clone(old)
	slices.SortFunc(old, byCreation)
	budget := avail - minAvail
	var total int32
	for _, rs := range old {
		if total >= budget {
			break
		}
		n := rsReplicas(rs)
		if n == 0 {
			continue
		}
		down := min(n, budget-total)
		s.scaleIfNeeded(rs, n-down)
		total += down
	}
	return total
}

// rolloutRecreate is kcm's rolloutRecreate: scale every old ReplicaSet to
// 0; wait until their pods are gone; only then create (or scale up) the
// new ReplicaSet to the full replicas.
func (s *state) rolloutRecreate() {
	newRS, old := s.syncRevision(false)
	scaledDown := false
	for _, rs := range active(old) {
		if s.scaleIfNeeded(rs, 0) {
			scaledDown = true
		}
	}
	if scaledDown || s.oldPodsRunning(newRS, old) {
		s.status(newRS, old, true)
		return
	}
	if newRS == nil {
		newRS, old = s.syncRevision(true)
	}
	s.scaleIfNeeded(newRS, replicas(s.d))
	if deploymentComplete(s.d, &s.d.Status) {
		s.cleanup(old)
	}
	s.status(newRS, old, true)
}

// oldPodsRunning is kcm's oldPodsRunning: an old ReplicaSet still reports
// pods, or a pod owned by an old ReplicaSet is not Succeeded or Failed.
func (s *state) oldPodsRunning(newRS *api.ReplicaSet, old []*api.ReplicaSet) bool {
	if statusSum(old, func(st *api.ReplicaSetStatus) int32 { return st.Replicas }) > 0 {
		return true
	}
	oldUIDs := map[api.UID]bool{}
	for _, rs := range old {
		oldUIDs[rs.UID] = true
	}
	for _, p := range s.pods {
		ref := p.ControllerRef()
		if ref == nil || !oldUIDs[ref.UID] || (newRS != nil && ref.UID == newRS.UID) {
			continue
		}
		if p.Status.Phase != api.PodSucceeded && p.Status.Phase != api.PodFailed {
			return true
		}
	}
	return false
}
