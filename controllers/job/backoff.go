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
func newBackoffRecord(old backoffRecord, newSucceeded, newFailed []*api.Pod) backoffRecord {
	rec := old
	byFinish := func(ps []*api.Pod) []time.Time {
		ts := make([]time.Time, len(ps))
		for i, p := range ps {
			ts[i] = finishedTime(p)
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

// finishedTime is kcm's getFinishedTime (backoff_utils.go): when the pod
// finished, looked up in this order:
//
//  1. once every container has terminated — the regular ones and the
//     restartable init containers (sidecars), which stop last — the
//     latest finishedAt among them; a container not terminated, or
//     terminated without finishedAt, makes this step give nothing;
//  2. when the pod's Ready condition turned False;
//  3. its deletion timestamp minus its deletion grace period, the moment
//     the deletion was asked for;
//  4. its creation time.
//
// Every use of a pod's finish time — the order of new finishes and the
// last failure's time in the back-off record, the per-index back-off —
// goes through it.
func finishedTime(p *api.Pod) time.Time {
	if t, ok := finishTimeFromContainers(p); ok {
		return t
	}
	if c, ok := p.Status.GetCondition(api.PodReady); ok && c.Status == api.ConditionFalse && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	if p.DeletionTimestamp != nil {
		return p.DeletionTimestamp.Add(-time.Duration(deref(p.DeletionGracePeriodSeconds, 0)) * time.Second)
	}
	return p.CreationTimestamp.Time
}

// finishTimeFromContainers is step 1 of finishedTime, as kcm composes it:
// the latest finish of the regular containers (none if one has not
// terminated), then carried over the restartable init containers (none
// if one of those has not terminated).
func finishTimeFromContainers(p *api.Pod) (time.Time, bool) {
	sidecars := map[string]bool{}
	for _, c := range p.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == "Always" {
			sidecars[c.Name] = true
		}
	}
	t, ok := latestFinishTime(time.Time{}, false, p.Status.ContainerStatuses, nil)
	return latestFinishTime(t, ok, p.Status.InitContainerStatuses, sidecars)
}

// latestFinishTime is kcm's function of the same name: the latest
// finishedAt of the statuses (only those named in only, if set) and
// prev; nothing (false) when one of them has not terminated or has no
// finishedAt, or when there is neither prev nor a status.
func latestFinishTime(prev time.Time, havePrev bool, statuses []api.ContainerStatus, only map[string]bool) (time.Time, bool) {
	last, ok := prev, havePrev
	for _, cs := range statuses {
		if only != nil && !only[cs.Name] {
			continue
		}
		t := cs.State.Terminated
		if t == nil || t.FinishedAt.IsZero() {
			return time.Time{}, false
		}
		if !ok || last.Before(t.FinishedAt.Time) {
			last, ok = t.FinishedAt.Time, true
		}
	}
	return last, ok
}
