package job

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/events"
)

// FinalizerTracking is the finalizer every pod of a job carries until the
// job's status has counted it (kcm's batch.kubernetes.io/job-tracking).
const FinalizerTracking = "batch.kubernetes.io/job-tracking"

// ControllerName is the value of spec.managedBy that names this
// controller (kube's batch/v1 JobControllerName); a job whose managedBy
// is set to anything else belongs to another controller.
const ControllerName = "kubernetes.io/job-controller"

// managedByOther is kcm's managedByExternalController: whether job's
// spec.managedBy names a controller other than this one, in which case
// the controller leaves the job and its pods entirely alone.
func managedByOther(job *api.Job) bool {
	return job.Spec.ManagedBy != nil && *job.Spec.ManagedBy != ControllerName
}

// The reasons of the job conditions and events.
const (
	ReasonBackoffLimitExceeded = "BackoffLimitExceeded"
	ReasonDeadlineExceeded     = "DeadlineExceeded"
	ReasonPodFailurePolicy     = "PodFailurePolicy"
	ReasonCompletionsReached   = "CompletionsReached"
	// ReasonSuccessPolicy: a successPolicy rule was met.
	ReasonSuccessPolicy = "SuccessPolicy"
	// ReasonFailedIndexes: with backoffLimitPerIndex, every index
	// finished and some failed.
	ReasonFailedIndexes = "FailedIndexes"
	// ReasonMaxFailedIndexesExceeded: more indexes failed than
	// maxFailedIndexes allows.
	ReasonMaxFailedIndexesExceeded = "MaxFailedIndexesExceeded"
)

type event struct {
	typ     events.Type
	reason  string
	message string
}

// plan is what one sync of a job does, as data: kcm's syncJob with
// trackJobStatusAndRemoveFinalizers and manageJob.
type plan struct {
	// flush, when set, is written before finalizers are removed: the
	// status recording the newly finished pods as uncounted (and, for an
	// Indexed job, their completed indexes), so that none is lost if the
	// controller stops between the two steps.
	flush *api.JobStatus
	// removeFinalizers are the pods to take FinalizerTracking from.
	removeFinalizers []*api.Pod
	// status is the status once those finalizers are gone: every
	// uncounted pod counted, conditions, active/ready/terminating.
	status  api.JobStatus
	creates []*api.Pod
	deletes []*api.Pod
	// releaseDeletes takes FinalizerTracking from each pod of deletes
	// before deleting it, as kcm's deleteJobPods does for the pods
	// manageJob stops (surplus, a duplicate index, a suspended job's):
	// such a pod is not counted as failed. A finishing job's pods are
	// deleted with the finalizer on (kcm's deleteActivePods) and counted.
	releaseDeletes bool
	backoff        backoffRecord
	events         []event
	// requeueAfter, when positive, is the next instant the decision may
	// change by time alone (deadline, back-off, TTL).
	requeueAfter time.Duration
}

func (p *plan) eventf(typ events.Type, reason, format string, args ...any) {
	p.events = append(p.events, event{typ, reason, fmt.Sprintf(format, args...)})
}

func (p *plan) requeue(d time.Duration) {
	if d > 0 && (p.requeueAfter == 0 || d < p.requeueAfter) {
		p.requeueAfter = d
	}
}

// backoffs are the re-creation back-off parameters.
type backoffs struct{ base, max time.Duration }

func condition(st *api.JobStatus, t api.JobConditionType) *api.JobCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == t && st.Conditions[i].Status == api.ConditionTrue {
			return &st.Conditions[i]
		}
	}
	return nil
}

// setCondition sets condition t to status, moving lastTransitionTime only
// on a change, and reports whether it changed.
func setCondition(st *api.JobStatus, t api.JobConditionType, status api.ConditionStatus, reason, msg string, now time.Time) bool {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == msg {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = api.Time{Time: now}
		}
		c.Status, c.Reason, c.Message, c.LastProbeTime = status, reason, msg, api.Time{Time: now}
		return true
	}
	if status == api.ConditionFalse {
		return false // a missing condition is False already
	}
	st.Conditions = append(st.Conditions, api.JobCondition{Type: t, Status: status, Reason: reason, Message: msg,
		LastProbeTime: api.Time{Time: now}, LastTransitionTime: api.Time{Time: now}})
	return true
}

func isTerminal(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

// finished returns the job's terminal condition, Complete or Failed.
func finished(j *api.Job) *api.JobCondition {
	if c := condition(&j.Status, api.JobComplete); c != nil {
		return c
	}
	return condition(&j.Status, api.JobFailed)
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// decide is one sync of job over the pods it controls, at now, with the
// back-off record of its earlier failures. See the package documentation
// for the algorithm. It runs the named steps in order: a finished job
// only releases its pods (decideFinished); otherwise finished pods are
// counted (countFinished), the verdict is reached or carried out
// (verdict, finish), and a running job is suspended or managed.
func decide(job *api.Job, pods []*api.Pod, rec backoffRecord, now time.Time, bo backoffs) plan {
	p := plan{backoff: rec}
	st := job.Status.DeepCopy()
	if st.UncountedTerminatedPods == nil {
		st.UncountedTerminatedPods = &api.UncountedTerminatedPods{}
	}
	if done := finished(job); done != nil || job.DeletionTimestamp != nil {
		p.decideFinished(job, pods, st, done, now)
		return p
	}

	v := jobView{
		indexed:     deref(job.Spec.CompletionMode, api.NonIndexedCompletion) == api.IndexedCompletion,
		completions: -1, // nil completions
		suspended:   deref(job.Spec.Suspend, false),
		onlyFailed:  job.Spec.PodFailurePolicy != nil || deref(job.Spec.PodReplacementPolicy, "") == "Failed",
	}
	if job.Spec.Completions != nil {
		v.completions = int(*job.Spec.Completions)
	}
	v.completed = parseIndexes(st.CompletedIndexes, v.completions)
	var active, terminating []*api.Pod
	for _, pod := range pods {
		switch {
		case isTerminal(pod):
		case pod.DeletionTimestamp != nil:
			terminating = append(terminating, pod)
		default:
			active = append(active, pod)
		}
	}
	if v.indexed && job.Spec.BackoffLimitPerIndex != nil {
		v.perIndex = true
		v.failed = failedIndexes(job, st, pods, v)
		if condition(st, api.JobFailureTarget) == nil && condition(st, api.JobSuccessCriteriaMet) == nil {
			v.delayed = delayedPerIndex(pods, active, v)
		}
	}

	failJobMsg, rec := p.countFinished(job, pods, st, v, rec, now)

	if pending := verdict(job, st, v, active, failJobMsg, now); pending != nil {
		p.finish(job, st, pending, active, terminating, len(v.delayed) > 0, now)
		return p
	}

	// 3. Suspension, then the arithmetic of active pods.
	if v.suspended {
		p.deletes, p.releaseDeletes = active, true
		if setCondition(st, api.JobSuspended, api.ConditionTrue, "JobSuspended", "Job suspended", now) {
			p.eventf(events.Normal, "Suspended", "Job suspended")
		}
		p.status = *st
		p.setCounts(active, terminating)
		return p
	}
	if c := condition(st, api.JobSuspended); c != nil {
		setCondition(st, api.JobSuspended, api.ConditionFalse, "JobResumed", "Job resumed", now)
		st.StartTime = &api.Time{Time: now} // the deadline counts from the resumption
		p.eventf(events.Normal, "Resumed", "Job resumed")
	}
	if st.StartTime == nil {
		st.StartTime = &api.Time{Time: now}
	}
	if ads := job.Spec.ActiveDeadlineSeconds; ads != nil {
		p.requeue(st.StartTime.Add(time.Duration(*ads) * time.Second).Sub(now))
	}
	p.status = *st
	p.manage(job, active, terminating, v, rec, now, bo)
	p.setCounts(active, terminating)
	return p
}

// jobView is what decide reads of a running job's spec once.
type jobView struct {
	indexed     bool         // completionMode Indexed
	completions int          // spec.completions, -1 when nil
	suspended   bool         // spec.suspend
	onlyFailed  bool         // pods are replaced only once Failed (podFailurePolicy or podReplacementPolicy Failed)
	completed   map[int]bool // the completed indexes of an Indexed job; countFinished adds to it
	// perIndex: an Indexed job with backoffLimitPerIndex.
	perIndex bool
	// failed are its failed indexes, status.failedIndexes and the new ones.
	failed map[int]bool
	// delayed holds, per index to be retried, the failed pod whose
	// finalizer (and counting) waits until its replacement exists: the
	// replacement takes its failure counts from it (kcm's
	// podsWithDelayedDeletionPerIndex).
	delayed map[int]*api.Pod
}

// failedIndexes is kcm's calculateFailedIndexes: status.failedIndexes and
// the indexes whose not yet counted pod fails them.
func failedIndexes(job *api.Job, st *api.JobStatus, pods []*api.Pod, v jobView) map[int]bool {
	failed := parseIndexes(deref(st.FailedIndexes, ""), v.completions)
	for _, pod := range pods {
		ix := completionIndex(pod)
		if ix >= 0 && ix < v.completions && ctrlutil.HasFinalizer(pod, FinalizerTracking) && isIndexFailed(job, pod, v.onlyFailed) {
			failed[ix] = true
		}
	}
	return failed
}

// delayedPerIndex is kcm's getPodsWithDelayedDeletionPerIndex: for each
// index neither succeeded, failed nor running, its failed pod (not yet
// counted) with the most failures before it, the latest to finish among
// equals.
func delayedPerIndex(pods, active []*api.Pod, v jobView) map[int]*api.Pod {
	running := map[int]bool{}
	for _, pod := range active {
		running[completionIndex(pod)] = true
	}
	out := map[int]*api.Pod{}
	for _, pod := range pods {
		ix := completionIndex(pod)
		if ix < 0 || ix >= v.completions || !ctrlutil.HasFinalizer(pod, FinalizerTracking) || !podFailed(pod, v.onlyFailed) ||
			v.completed[ix] || v.failed[ix] || running[ix] {
			continue
		}
		if last, ok := out[ix]; !ok || (absoluteFailureCount(last) <= absoluteFailureCount(pod) && !finishedTime(pod).Before(finishedTime(last))) {
			out[ix] = pod
		}
	}
	return out
}

// decideFinished is the sync of a finished (or deleted) job: it keeps no
// pod — every finalizer goes — folds the uncounted pods into the counts,
// and deletes the job once its TTL after finishing has passed.
func (p *plan) decideFinished(job *api.Job, pods []*api.Pod, st *api.JobStatus, done *api.JobCondition, now time.Time) {
	unc := st.UncountedTerminatedPods
	for _, pod := range pods {
		if ctrlutil.HasFinalizer(pod, FinalizerTracking) {
			p.removeFinalizers = append(p.removeFinalizers, pod)
		}
	}
	st.Succeeded += int32(len(unc.Succeeded))
	st.Failed += int32(len(unc.Failed))
	unc.Succeeded, unc.Failed = nil, nil
	p.status = *st
}

// countFinished is step 1: it counts finished pods exactly once. A pod
// with the finalizer that is not yet uncounted becomes uncounted (or, for
// an Indexed job's success, its index completed), and loses the
// finalizer afterwards; the status to write first is p.flush. It returns
// the message of a pod failure policy's FailJob rule, if one matched, and
// the back-off record the rest of the sync uses.
func (p *plan) countFinished(job *api.Job, pods []*api.Pod, st *api.JobStatus, v jobView, rec backoffRecord, now time.Time) (string, backoffRecord) {
	unc := st.UncountedTerminatedPods
	inUnc := map[api.UID]bool{}
	for _, u := range slices.Concat(unc.Succeeded, unc.Failed) {
		inUnc[u] = true
	}
	var newSucc, newFail []*api.Pod
	failJobMsg := ""
	flush := false
	for _, pod := range pods {
		if !ctrlutil.HasFinalizer(pod, FinalizerTracking) {
			continue // counted already
		}
		if inUnc[pod.UID] {
			p.removeFinalizers = append(p.removeFinalizers, pod)
			continue
		}
		ix := completionIndex(pod)
		if d := v.delayed[ix]; d != nil && d.UID == pod.UID {
			continue // counted once its replacement exists
		}
		inRange := !v.indexed || (ix >= 0 && ix < v.completions)
		switch {
		case pod.Status.Phase == api.PodSucceeded:
			p.removeFinalizers = append(p.removeFinalizers, pod)
			switch {
			case v.indexed && inRange && !v.completed[ix]:
				v.completed[ix] = true
				newSucc = append(newSucc, pod)
				flush = true
			case !v.indexed:
				unc.Succeeded = append(unc.Succeeded, pod.UID)
				newSucc = append(newSucc, pod)
				flush = true
			}
		case pod.Status.Phase == api.PodFailed || (!v.onlyFailed && pod.DeletionTimestamp != nil):
			p.removeFinalizers = append(p.removeFinalizers, pod)
			if v.suspended && pod.Status.Phase != api.PodFailed {
				continue // deleted for the suspension: no failure
			}
			count := true
			if pod.Status.Phase == api.PodFailed {
				var msg string
				msg, count, _ = matchPodFailurePolicy(job.Spec.PodFailurePolicy, pod)
				if msg != "" && failJobMsg == "" {
					failJobMsg = msg
				}
			}
			if count && inRange {
				unc.Failed = append(unc.Failed, pod.UID)
				newFail = append(newFail, pod)
				flush = true
			}
		}
	}
	if v.indexed {
		st.CompletedIndexes = formatIndexes(v.completed)
		st.Succeeded = int32(len(v.completed))
	}
	if v.perIndex {
		if f := formatIndexes(v.failed); st.FailedIndexes == nil || *st.FailedIndexes != f {
			st.FailedIndexes = &f
			flush = true
		}
	}
	if flush {
		f := *st.DeepCopy()
		p.flush = &f
	}
	p.backoff = newBackoffRecord(rec, newSucc, newFail)
	if len(newFail) > 0 || len(newSucc) > 0 {
		rec = p.backoff
	}
	st.Succeeded += int32(len(unc.Succeeded))
	st.Failed += int32(len(unc.Failed))
	unc.Succeeded, unc.Failed = nil, nil
	return failJobMsg, rec
}

// verdict is step 2: is the job done? A pending verdict (FailureTarget,
// SuccessCriteriaMet) comes first, then kcm's order of checks; a new
// verdict is set on st. It returns the verdict's condition, or nil while
// the job runs on.
func verdict(job *api.Job, st *api.JobStatus, v jobView, active []*api.Pod, failJobMsg string, now time.Time) *api.JobCondition {
	pending := condition(st, api.JobFailureTarget)
	if pending == nil {
		pending = condition(st, api.JobSuccessCriteriaMet)
	}
	if pending != nil {
		return pending
	}
	var typ api.JobConditionType
	var reason, msg string
	succeeded := int(st.Succeeded)
	switch {
	case failJobMsg != "":
		typ, reason, msg = api.JobFailureTarget, ReasonPodFailurePolicy, failJobMsg
	case st.Failed > deref(job.Spec.BackoffLimit, 6) || pastBackoffLimitOnFailure(job, active):
		typ, reason, msg = api.JobFailureTarget, ReasonBackoffLimitExceeded, "Job has reached the specified backoff limit"
	case !v.suspended && pastDeadline(job, now):
		typ, reason, msg = api.JobFailureTarget, ReasonDeadlineExceeded, "Job was active longer than specified deadline"
	case v.perIndex && job.Spec.MaxFailedIndexes != nil && len(v.failed) > int(*job.Spec.MaxFailedIndexes):
		typ, reason, msg = api.JobFailureTarget, ReasonMaxFailedIndexesExceeded, "Job has exceeded the specified maximal number of failed indexes"
	case v.perIndex && len(v.failed) > 0 && len(v.failed)+len(v.completed) >= v.completions:
		typ, reason, msg = api.JobFailureTarget, ReasonFailedIndexes, "Job has failed indexes"
	case v.indexed && successPolicyMet(job, v):
		typ, reason = api.JobSuccessCriteriaMet, ReasonSuccessPolicy
		msg, _ = matchSuccessPolicy(job.Spec.SuccessPolicy, v.completions, v.completed)
	case (v.completions >= 0 && succeeded >= v.completions) || (v.completions < 0 && succeeded > 0 && len(active) == 0):
		typ, reason, msg = api.JobSuccessCriteriaMet, ReasonCompletionsReached, "Reached expected number of succeeded pods"
	}
	if typ == "" {
		return nil
	}
	setCondition(st, typ, api.ConditionTrue, reason, msg, now)
	return condition(st, typ)
}

func successPolicyMet(job *api.Job, v jobView) bool {
	_, ok := matchSuccessPolicy(job.Spec.SuccessPolicy, v.completions, v.completed)
	return ok
}

// finish carries a verdict out: stop every pod, then, once none runs or
// terminates and no failed pod waits to be counted (delayed), set Failed
// or Complete with the verdict's reason and message.
func (p *plan) finish(job *api.Job, st *api.JobStatus, pending *api.JobCondition, active, terminating []*api.Pod, delayed bool, now time.Time) {
	p.deletes = active
	if len(active) == 0 && len(terminating) == 0 && !delayed {
		if pending.Type == api.JobFailureTarget {
			setCondition(st, api.JobFailed, api.ConditionTrue, pending.Reason, pending.Message, now)
			p.eventf(events.Warning, pending.Reason, "%s", pending.Message)
		} else {
			setCondition(st, api.JobComplete, api.ConditionTrue, pending.Reason, pending.Message, now)
			st.CompletionTime = &api.Time{Time: now}
			p.eventf(events.Normal, "Completed", "Job completed")
		}
	}
	p.status = *st
	p.setCounts(active, terminating)
}

// manage is kcm's manageJob for a running job: wanted active pods =
// min(parallelism, completions − succeeded) — parallelism until one
// succeeds when completions is nil — and creates (after the back-off) or
// deletes to match.
func (p *plan) manage(job *api.Job, active, terminating []*api.Pod, v jobView, rec backoffRecord, now time.Time, bo backoffs) {
	completed, indexed, completions, onlyFailed := v.completed, v.indexed, v.completions, v.onlyFailed
	parallelism := int(deref(job.Spec.Parallelism, 1))
	succeeded := int(p.status.Succeeded)
	var want int
	switch {
	case completions < 0 && succeeded > 0:
		want = len(active)
	case completions < 0:
		want = parallelism
	default:
		want = max(0, min(parallelism, completions-succeeded))
	}
	p.releaseDeletes = true
	held := map[int]bool{} // indexes with a pod running (or terminating, if only failed pods are replaced)
	if indexed {
		var keep []*api.Pod
		for _, pod := range active {
			ix := completionIndex(pod)
			if ix < 0 || ix >= completions || completed[ix] || v.failed[ix] || held[ix] {
				p.deletes = append(p.deletes, pod) // out of range, done, failed or a duplicate
				continue
			}
			held[ix] = true
			keep = append(keep, pod)
		}
		active = keep
		if onlyFailed {
			for _, pod := range terminating {
				if ix := completionIndex(pod); ix >= 0 {
					held[ix] = true
				}
			}
		}
	}
	count := len(active)
	if onlyFailed {
		count += len(terminating)
	}
	switch {
	case len(active) > want:
		ranked := ctrlutil.RankForDeletion(active, active, now)
		p.deletes = append(p.deletes, ranked[:len(active)-want]...)
	case want > count:
		if v.perIndex {
			p.createPerIndex(job, want-count, held, v, now, bo)
			return
		}
		if wait := rec.remaining(now, bo.base, bo.max); wait > 0 {
			p.requeue(wait)
			return
		}
		n := want - count
		if !indexed {
			for range n {
				p.creates = append(p.creates, podForJob(job, -1))
			}
			return
		}
		for ix := 0; ix < completions && n > 0; ix++ {
			if !completed[ix] && !held[ix] {
				p.creates = append(p.creates, podForJob(job, ix))
				n--
			}
		}
	}
}

// createPerIndex creates up to n pods for the lowest indexes neither
// completed, failed nor held whose own back-off has passed (kcm's
// getPodCreationInfoForIndependentIndexes over firstPendingIndexes): an
// index's back-off counts its failures so far from its last failed pod's
// finish. Each pod carries its index's failure counts. If no index may
// start yet the sync requeues for the earliest.
func (p *plan) createPerIndex(job *api.Job, n int, held map[int]bool, v jobView, now time.Time, bo backoffs) {
	var wait time.Duration
	created := false
	for ix := 0; ix < v.completions && n > 0; ix++ {
		if v.completed[ix] || v.failed[ix] || held[ix] {
			continue
		}
		n--
		last := v.delayed[ix]
		if last != nil {
			t := finishedTime(last)
			rec := backoffRecord{failuresAfterLastSuccess: absoluteFailureCount(last) + 1, lastFailureTime: &t}
			if d := rec.remaining(now, bo.base, bo.max); d > 0 {
				if wait == 0 || d < wait {
					wait = d
				}
				continue
			}
		}
		pod := podForJob(job, ix)
		count, ignored := newIndexFailureCounts(job, last)
		pod.Annotations[AnnotationIndexFailureCount] = strconv.Itoa(int(count))
		if ignored > 0 {
			pod.Annotations[AnnotationIndexIgnoredFailureCount] = strconv.Itoa(int(ignored))
		}
		p.creates = append(p.creates, pod)
		created = true
	}
	if !created {
		p.requeue(wait)
	}
}

// setCounts fills active, ready and terminating as they will be once the
// plan's creates and deletes are done.
func (p *plan) setCounts(active, terminating []*api.Pod) {
	deleted := map[api.UID]bool{}
	for _, d := range p.deletes {
		deleted[d.UID] = true
	}
	ready := 0
	for _, pod := range active {
		if !deleted[pod.UID] && api.IsPodReady(pod) {
			ready++
		}
	}
	p.status.Active = int32(len(active) - len(p.deletes) + len(p.creates))
	r, t := int32(ready), int32(len(terminating)+len(p.deletes))
	p.status.Ready, p.status.Terminating = &r, &t
}

// pastBackoffLimitOnFailure is kcm's function of the same name: with
// restartPolicy OnFailure the container restarts of running pods count
// as failures.
func pastBackoffLimitOnFailure(job *api.Job, active []*api.Pod) bool {
	if job.Spec.Template.Spec.RestartPolicy != api.RestartPolicyOnFailure {
		return false
	}
	var restarts int32
	for _, pod := range active {
		if pod.Status.Phase != api.PodRunning && pod.Status.Phase != api.PodPending {
			continue
		}
		for _, cs := range slices.Concat(pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses) {
			restarts += cs.RestartCount
		}
	}
	limit := deref(job.Spec.BackoffLimit, 6)
	if limit == 0 {
		return restarts > 0
	}
	return restarts >= limit
}

// pastDeadline is kcm's pastActiveDeadline.
func pastDeadline(job *api.Job, now time.Time) bool {
	ads, start := job.Spec.ActiveDeadlineSeconds, job.Status.StartTime
	if ads == nil || start == nil {
		return false
	}
	return !now.Before(start.Add(time.Duration(*ads) * time.Second))
}

// podForJob is the pod kcm creates for job (index ≥ 0 for an Indexed
// job): the template's, controlled by the job, with the tracking
// finalizer; an Indexed pod carries its index as annotation, label and
// JOB_COMPLETION_INDEX, and the hostname <job>-<index>.
func podForJob(job *api.Job, index int) *api.Pod {
	pod := ctrlutil.PodFromTemplate(&job.Spec.Template, job)
	ctrlutil.AddFinalizer(pod, FinalizerTracking)
	if index < 0 {
		return pod
	}
	ix := strconv.Itoa(index)
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Annotations[api.LabelJobCompletionIndex] = ix
	pod.Labels[api.LabelJobCompletionIndex] = ix
	pod.GenerateName = fmt.Sprintf("%s-%d-", job.Name, index)
	if pod.Spec.Hostname == "" {
		pod.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, index)
	}
	for _, cs := range []([]api.Container){pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			cs[i].Env = append(cs[i].Env, api.EnvVar{Name: "JOB_COMPLETION_INDEX", ValueFrom: &api.EnvVarSource{
				FieldRef: &api.ObjectFieldSelector{FieldPath: "metadata.annotations['" + api.LabelJobCompletionIndex + "']"}}})
		}
	}
	return pod
}
