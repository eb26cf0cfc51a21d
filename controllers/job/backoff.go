package job

import (
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The pod re-creation back-off of kube-controller-manager (v1.37
// defaults): after n failures since the last success, a new pod waits
// DefaultBackoff × 2^(n−1), at most MaxBackoff, from the last failure.
const (
	DefaultBackoff = 10 * time.Second
	MaxBackoff     = 10 * time.Minute
)

// backoffRecord is kcm's backoffRecord: the failures of a job's pods
// since its last success and when the last of them finished.
type backoffRecord struct {
	failuresAfterLastSuccess int32
	lastFailureTime          *time.Time
}

// newBackoffRecord is kcm's newBackoffRecord: old updated with the pods
// that finished since (each passed once). A success resets the count,
// except for the failures that finished after it.
func newBackoffRecord(old backoffRecord, newSucceeded, newFailed []*api.Pod, now time.Time) backoffRecord {
	rec := old
	byFinish := func(ps []*api.Pod) []time.Time {
		ts := make([]time.Time, len(ps))
		for i, p := range ps {
			ts[i] = finishedTime(p, now)
		}
		slices.SortFunc(ts, time.Time.Compare)
		return ts
	}
	succ, fail := byFinish(newSucceeded), byFinish(newFailed)
	if len(succ) == 0 {
		if len(fail) == 0 {
			return rec
		}
		rec.failuresAfterLastSuccess += int32(len(fail))
		last := fail[len(fail)-1]
		rec.lastFailureTime = &last
		return rec
	}
	rec = backoffRecord{}
	lastSuccess := succ[len(succ)-1]
	for i := len(fail) - 1; i >= 0; i-- {
		if !fail[i].After(lastSuccess) {
			break
		}
		if rec.lastFailureTime == nil {
			t := fail[i]
			rec.lastFailureTime = &t
		}
		rec.failuresAfterLastSuccess++
	}
	return rec
}

// remaining is kcm's getRemainingTime: how long a new pod must still wait
// at now.
func (b backoffRecord) remaining(now time.Time, defaultBackoff, maxBackoff time.Duration) time.Duration {
	if b.failuresAfterLastSuccess == 0 || b.lastFailureTime == nil {
		return 0
	}
	d := defaultBackoff
	for i := 1; i < int(b.failuresAfterLastSuccess); i++ {
		d *= 2
		if d >= maxBackoff {
			d = maxBackoff
			break
		}
	}
	elapsed := now.Sub(*b.lastFailureTime)
	if d < elapsed {
		return 0
	}
	return d - elapsed
}

// finishedTime is kcm's getFinishedTime: the last container finish, else
// when the pod's Ready condition turned False, else its deletion
// timestamp, else now.
func finishedTime(p *api.Pod, now time.Time) time.Time {
	var last time.Time
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(last) {
			last = t.FinishedAt.Time
		}
	}
	if !last.IsZero() {
		return last
	}
	if c, ok := p.Status.GetCondition(api.PodReady); ok && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	if p.DeletionTimestamp != nil {
		return p.DeletionTimestamp.Time
	}
	return now
}
