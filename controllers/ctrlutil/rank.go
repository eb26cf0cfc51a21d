package ctrlutil

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// PodDeletionCostAnnotation lets a user say which pods of a ReplicaSet to
// delete first when it scales down: lower costs go first. The value is an
// int32; a malformed one counts as 0.
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// RankForDeletion returns pods ordered from the first to delete to the
// last, as kube-controller-manager's ActivePodsWithRanks orders them when
// a ReplicaSet scales down:
//
//  1. not yet scheduled before scheduled;
//  2. Pending before Unknown before Running;
//  3. not ready before ready;
//  4. lower pod-deletion-cost before higher;
//  5. more pods of the same owner on its node (related) before fewer;
//  6. of two ready pods, ready for a shorter time first — compared on a
//     logarithmic scale of the time since now (LogarithmicScaleDown), so
//     that pods of similar age are not told apart by noise, with the UID
//     breaking a tie;
//  7. more container restarts before fewer;
//  8. newer before older (again on the logarithmic scale).
//
// related are the pods counted for rule 5 (typically every active pod of
// the owner); pods itself is not changed.
func RankForDeletion(pods, related []*api.Pod, now time.Time) []*api.Pod {
	onNode := map[string]int{}
	for _, p := range related {
		if p.Spec.NodeName != "" {
			onNode[p.Spec.NodeName]++
		}
	}
	type ranked struct {
		pod  *api.Pod
		rank int
	}
	rs := make([]ranked, len(pods))
	for i, p := range pods {
		rs[i] = ranked{p, onNode[p.Spec.NodeName]}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		switch {
		case deleteFirst(a.pod, b.pod, a.rank, b.rank, now):
			return -1
		case deleteFirst(b.pod, a.pod, b.rank, a.rank, now):
			return 1
		}
		return 0
	})
	out := make([]*api.Pod, len(rs))
	for i, r := range rs {
		out[i] = r.pod
	}
	return out
}

var phaseOrder = map[api.PodPhase]int{api.PodPending: 0, api.PodUnknown: 1, api.PodRunning: 2}

// deleteFirst reports whether pod a goes before pod b (rank is the
// number of related pods on each one's node).
func deleteFirst(a, b *api.Pod, rankA, rankB int, now time.Time) bool {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if pa, pb := phaseOrder[a.Status.Phase], phaseOrder[b.Status.Phase]; pa != pb {
		return pa < pb
	}
	readyA, readyB := api.IsPodReady(a), api.IsPodReady(b)
	if readyA != readyB {
		return !readyA
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if rankA != rankB {
		return rankA > rankB
	}
	if readyA && readyB {
		ta, tb := readySince(a), readySince(b)
		if !ta.Equal(tb) {
			if now.IsZero() || ta.IsZero() || tb.IsZero() {
				return afterOrZero(ta, tb)
			}
			if d := logRank(ta, now) - logRank(tb, now); d != 0 {
				return d < 0
			}
			return a.UID < b.UID
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		if now.IsZero() || ta.IsZero() || tb.IsZero() {
			return afterOrZero(ta, tb)
		}
		if d := logRank(ta, now) - logRank(tb, now); d != 0 {
			return d < 0
		}
		return a.UID < b.UID
	}
	return false
}

// afterOrZero: a zero time first, then the later one.
func afterOrZero(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero()
	}
	return a.After(b)
}

// logRank is ⌊log2(now − t)⌋ in nanoseconds, -1 for t at or after now.
func logRank(t, now time.Time) int {
	d := now.Sub(t)
	if d <= 0 {
		return -1
	}
	return int(math.Log2(float64(d)))
}

func deletionCost(p *api.Pod) int32 {
	v, ok := p.Annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// readySince is when the pod's Ready condition last turned true.
func readySince(p *api.Pod) time.Time {
	if c, ok := p.Status.GetCondition(api.PodReady); ok && c.Status == api.ConditionTrue {
		return c.LastTransitionTime.Time
	}
	return time.Time{}
}

func maxRestarts(p *api.Pod) int32 {
	var n int32
	for _, s := range p.Status.ContainerStatuses {
		n = max(n, s.RestartCount)
	}
	return n
}
