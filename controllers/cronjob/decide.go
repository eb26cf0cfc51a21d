package cronjob

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
)

// AnnotationScheduledTimestamp is set on every job a cron job creates:
// the scheduled time it runs for, in RFC 3339 in the cron job's zone.
const AnnotationScheduledTimestamp = "batch.kubernetes.io/cronjob-scheduled-timestamp"

// tooManyMissed is how many missed schedules make kube-controller-manager
// warn (TooManyMissedTimes).
const tooManyMissed = 100

// nextScheduleDelta is added to a requeue for the next schedule, so that
// the sync runs just after it: kcm's nextScheduleDelta.
const nextScheduleDelta = 100 * time.Millisecond

// event is one event a decision records on the cron job.
type event struct {
	typ     events.Type
	reason  string
	message string
}

// decision is what one sync of a cron job does: kcm's syncCronJob and
// cleanupFinishedJobs, as data.
type decision struct {
	status  api.CronJobStatus // the new status
	create  *api.Job          // the job to create, or nil
	deletes []*api.Job        // jobs to delete (Replace, history limits), in order
	events  []event
	// requeueAfter, when positive, is when the next schedule is due.
	requeueAfter time.Duration
}

func (d *decision) eventf(typ events.Type, reason, format string, args ...any) {
	d.events = append(d.events, event{typ, reason, fmt.Sprintf(format, args...)})
}

// jobFinished returns the type of a job's terminal condition (Complete or
// Failed), or "".
func jobFinished(j *api.Job) api.JobConditionType {
	for _, c := range j.Status.Conditions {
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// JobName is the name of the job a cron job creates for a scheduled time:
// "<cronjob>-<minutes since the epoch>", so that a retried sync creates
// the same job, never a second one (kcm's getJobName).
func JobName(cronJob string, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cronJob, scheduled.Unix()/60)
}

// location returns the zone spec.timeZone names, else time.Local.
func location(cj *api.CronJob) (*time.Location, error) {
	if cj.Spec.TimeZone == nil {
		return time.Local, nil
	}
	return time.LoadLocation(*cj.Spec.TimeZone)
}

// missedSchedules is kcm's missedSchedulesType: how many activations
// mostRecentScheduleTime estimates were missed.
type missedSchedules int

const (
	noneMissed missedSchedules = iota
	fewMissed
	manyMissed // more than tooManyMissed
)

// errScheduleNeverFires is mostRecentScheduleTime's error for a schedule
// that parses but never (or no longer) activates, such as "0 0 30 2 *":
// kcm's wording, which the InvalidSchedule event carries.
var errScheduleNeverFires = fmt.Errorf("time difference between two schedules is less than 1 second")

// mostRecentScheduleTime is kcm's function of the same name
// (pkg/controller/cronjob/utils.go). earliest is lastScheduleTime, else
// the creation time, moved up to now − startingDeadlineSeconds when
// withDeadline. With t1 and t2 the two activations after earliest:
// before t1 nothing is due; before t2, t1 is. Otherwise the number of
// missed activations is estimated as kcm does, (now − t1) / (t2 − t1) + 1,
// and the most recent activation is searched from two intervals before
// that estimate; for an irregular schedule ("30 10,11,12 * * 1-5") the
// search may find none, as kcm's. A schedule whose t1 and t2 are less
// than a second apart (it never fires) is errScheduleNeverFires.
func mostRecentScheduleTime(cj *api.CronJob, now time.Time, s *Schedule, withDeadline bool) (earliest time.Time, recent *time.Time, missed missedSchedules, err error) {
	earliest = cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if withDeadline && cj.Spec.StartingDeadlineSeconds != nil {
		if d := now.Add(-time.Duration(*cj.Spec.StartingDeadlineSeconds) * time.Second); d.After(earliest) {
			earliest = d
		}
	}
	// The schedule runs in now's zone (the cron job's), as kcm's TZ= prefix.
	earliest = earliest.In(now.Location())
	t1 := s.Next(earliest)
	t2 := s.Next(t1)
	if now.Before(t1) {
		return earliest, nil, noneMissed, nil
	}
	if now.Before(t2) {
		return earliest, &t1, noneMissed, nil
	}
	interval := int64(t2.Sub(t1).Round(time.Second).Seconds())
	if interval < 1 {
		return earliest, nil, noneMissed, errScheduleNeverFires
	}
	elapsed := int64(now.Sub(t1).Seconds())
	n := elapsed/interval + 1
	var mostRecent time.Time
	from := t1.Add(time.Duration((n-2)*interval) * time.Second)
	for t := s.Next(from); !t.IsZero() && !t.After(now); t = s.Next(t) {
		mostRecent = t
	}
	switch {
	case n > tooManyMissed:
		missed = manyMissed
	case n > 0:
		missed = fewMissed
	}
	if mostRecent.IsZero() {
		return earliest, nil, missed, nil
	}
	return earliest, &mostRecent, missed, nil
}

// nextRequeue is kcm's nextScheduleTimeDuration: how long until just
// after the activation that follows the most recent one — or follows
// earliest, if none is due and none was missed, or follows now, if the
// estimate found missed activations but no most recent one, or the
// schedule never fires. Zero if the schedule never fires again.
func nextRequeue(cj *api.CronJob, now time.Time, s *Schedule) time.Duration {
	earliest, recent, missed, err := mostRecentScheduleTime(cj, now, s, false)
	base := now
	switch {
	case err != nil:
	case recent != nil:
		base = *recent
	case missed == noneMissed:
		base = earliest
	}
	next := s.Next(base)
	if next.IsZero() {
		return 0
	}
	return next.Add(nextScheduleDelta).Sub(now)
}

// decide is one sync of cj, which controls jobs (the jobs of its
// namespace whose controller reference is cj, as cached), at now: kcm's
// syncCronJob followed by cleanupFinishedJobs. kept are the UIDs of
// active jobs not among jobs that the API server still has.
//
//  1. The active list is reconciled with the jobs: a finished job leaves
//     it (SawCompletedJob) and, if it completed, moves lastSuccessfulTime;
//     a listed job that is gone (neither among jobs nor kept) leaves it
//     (MissingJob); an unfinished job not listed is reported
//     (UnexpectedJob), as kcm does, not added.
//  2. Nothing is scheduled while the cron job is being deleted, its zone
//     is unknown (UnknownTimeZone), it is suspended, or its schedule is
//     unparseable (UnparseableSchedule) or never fires (InvalidSchedule);
//     a TZ= or CRON_TZ= prefix warns (UnsupportedSchedule) and is honoured.
//  3. The most recent missed activation (only that one: no backfill) is
//     run unless it is past startingDeadlineSeconds (MissSchedule), was
//     already run, or concurrencyPolicy Forbid finds a job active
//     (JobAlreadyActive); Replace deletes the active jobs first. More
//     than 100 missed activations, as mostRecentScheduleTime estimates
//     them, warn (TooManyMissedTimes).
//  4. Finished jobs beyond the history limits are deleted, oldest first.
func decide(cj *api.CronJob, jobs []*api.Job, kept map[api.UID]bool, now time.Time) decision {
	d := decision{status: *cj.Status.DeepCopy()}
	st := &d.status
	byUID := map[api.UID]*api.Job{}
	for _, j := range jobs {
		byUID[j.UID] = j
	}
	inActive := func(uid api.UID) bool {
		return slices.ContainsFunc(st.Active, func(r api.ObjectReference) bool { return r.UID == uid })
	}
	for _, j := range jobs {
		fin := jobFinished(j)
		switch found := inActive(j.UID); {
		case !found && fin == "":
			d.eventf(events.Warning, "UnexpectedJob", "Saw a job that the controller did not create or forgot: %s", j.Name)
		case found && fin != "":
			st.Active = slices.DeleteFunc(st.Active, func(r api.ObjectReference) bool { return r.UID == j.UID })
			d.eventf(events.Normal, "SawCompletedJob", "Saw completed job: %s, condition: %v", j.Name, fin)
		}
		if fin == api.JobComplete && j.Status.CompletionTime != nil &&
			(st.LastSuccessfulTime == nil || j.Status.CompletionTime.After(st.LastSuccessfulTime.Time)) {
			t := *j.Status.CompletionTime
			st.LastSuccessfulTime = &t
		}
	}
	st.Active = slices.DeleteFunc(st.Active, func(r api.ObjectReference) bool {
		if _, ok := byUID[r.UID]; ok || kept[r.UID] {
			return false
		}
		d.eventf(events.Normal, "MissingJob", "Active job went missing: %v", r.Name)
		return true
	})

	if cj.DeletionTimestamp != nil {
		return d
	}
	d.schedule(cj, now)
	d.cleanup(cj, jobs)
	return d
}

// schedule is step 2 and 3 of decide, in kcm's syncCronJob order.
func (d *decision) schedule(cj *api.CronJob, now time.Time) {
	st := &d.status
	loc, err := location(cj)
	if err != nil {
		d.eventf(events.Warning, "UnknownTimeZone", "invalid timeZone: %q: %s", *cj.Spec.TimeZone, err)
		return
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return
	}
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		d.eventf(events.Warning, "UnsupportedSchedule", "CRON_TZ or TZ used in schedule %q is not officially supported, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", cj.Spec.Schedule)
	}
	sched, err := ParseSchedule(cj.Spec.Schedule)
	if err != nil {
		d.eventf(events.Warning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return
	}
	now = now.In(loc)
	// requeue is computed from the status as this sync leaves it (kcm
	// computes it after moving lastScheduleTime); a schedule that never
	// fires is not requeued: kcm waits for the cron job to change.
	invalid := false
	defer func() {
		if invalid {
			return
		}
		after := *cj
		after.Status = *st
		d.requeueAfter = nextRequeue(&after, now, sched)
	}()
	_, recent, missed, err := mostRecentScheduleTime(cj, now, sched, true)
	if recent == nil || recent.After(now) {
		if err != nil {
			d.eventf(events.Warning, "InvalidSchedule", "invalid schedule: %s : %s", cj.Spec.Schedule, err)
			invalid = true
		}
		return
	}
	if missed == manyMissed {
		d.eventf(events.Warning, "TooManyMissedTimes", "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check clock skew")
	}
	scheduled := *recent
	if sd := cj.Spec.StartingDeadlineSeconds; sd != nil && scheduled.Add(time.Duration(*sd)*time.Second).Before(now) {
		d.eventf(events.Warning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return
	}
	name := JobName(cj.Name, scheduled)
	if slices.ContainsFunc(st.Active, func(r api.ObjectReference) bool { return r.Name == name }) ||
		(st.LastScheduleTime != nil && st.LastScheduleTime.Equal(scheduled)) {
		return // already run
	}
	switch cj.Spec.ConcurrencyPolicy {
	case api.ForbidConcurrent:
		if len(st.Active) > 0 {
			d.eventf(events.Normal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
			return
		}
	case api.ReplaceConcurrent:
		for _, r := range st.Active {
			d.deletes = append(d.deletes, &api.Job{ObjectMeta: api.ObjectMeta{Namespace: r.Namespace, Name: r.Name, UID: r.UID}})
			d.eventf(events.Normal, "SuccessfulDelete", "Deleted job %v", r.Name)
		}
		st.Active = nil
	}
	d.create = jobFromTemplate(cj, name, scheduled)
	d.eventf(events.Normal, "SuccessfulCreate", "Created job %v", name)
	st.Active = append(st.Active, api.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: cj.Namespace, Name: name})
	t := api.Time{Time: scheduled}
	st.LastScheduleTime = &t
}

// jobFromTemplate is kcm's getJobFromTemplate2: the template's labels,
// annotations and spec, the scheduled-timestamp annotation, controlled by
// cj.
func jobFromTemplate(cj *api.CronJob, name string, scheduled time.Time) *api.Job {
	t := cj.Spec.JobTemplate.DeepCopy()
	j := &api.Job{
		TypeMeta: api.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: api.ObjectMeta{
			Namespace:       cj.Namespace,
			Name:            name,
			Labels:          t.Labels,
			Annotations:     t.Annotations,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(cj)},
		},
		Spec: t.Spec,
	}
	if j.Annotations == nil {
		j.Annotations = map[string]string{}
	}
	j.Annotations[AnnotationScheduledTimestamp] = scheduled.Format(time.RFC3339)
	return j
}

// cleanup is kcm's cleanupFinishedJobs: of the finished jobs, the oldest
// beyond successfulJobsHistoryLimit (Complete) and failedJobsHistoryLimit
// (Failed) are deleted, ordered by start time (a job without one last),
// then name. A nil limit keeps every job.
func (d *decision) cleanup(cj *api.CronJob, jobs []*api.Job) {
	var ok, failed []*api.Job
	for _, j := range jobs {
		switch jobFinished(j) {
		case api.JobComplete:
			ok = append(ok, j)
		case api.JobFailed:
			failed = append(failed, j)
		}
	}
	d.trim(ok, cj.Spec.SuccessfulJobsHistoryLimit)
	d.trim(failed, cj.Spec.FailedJobsHistoryLimit)
}

func (d *decision) trim(jobs []*api.Job, limit *int32) {
	if limit == nil || len(jobs) <= int(*limit) {
		return
	}
	slices.SortFunc(jobs, func(a, b *api.Job) int {
		switch {
		case a.Status.StartTime == nil && b.Status.StartTime != nil:
			return 1
		case a.Status.StartTime != nil && b.Status.StartTime == nil:
			return -1
		case a.Status.StartTime != nil && !a.Status.StartTime.Equal(b.Status.StartTime.Time):
			return a.Status.StartTime.Compare(b.Status.StartTime.Time)
		}
		return strings.Compare(a.Name, b.Name)
	})
	for _, j := range jobs[:len(jobs)-int(*limit)] {
		d.deletes = append(d.deletes, j)
		d.eventf(events.Normal, "SuccessfulDelete", "Deleted job %v", j.Name)
	}
}
