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

// mostRecentScheduleTime is kcm's function of the same name: the earliest
// time a schedule may fall after (lastScheduleTime, else the cron job's
// creation, moved up to now − startingDeadlineSeconds when withDeadline),
// the most recent activation in (earliest, now] if any, and how many
// activations that interval holds.
func mostRecentScheduleTime(cj *api.CronJob, now time.Time, s *Schedule, withDeadline bool) (earliest time.Time, recent *time.Time, missed int) {
	earliest = cj.CreationTimestamp.Time
	if cj.Status.LastScheduleTime != nil {
		earliest = cj.Status.LastScheduleTime.Time
	}
	if withDeadline && cj.Spec.StartingDeadlineSeconds != nil {
		if d := now.Add(-time.Duration(*cj.Spec.StartingDeadlineSeconds) * time.Second); d.After(earliest) {
			earliest = d
		}
	}
	earliest = earliest.In(now.Location())
	for t := s.Next(earliest); !t.IsZero() && !t.After(now); t = s.Next(t) {
		recent = &t
		missed++
	}
	return earliest, recent, missed
}

// nextRequeue is kcm's nextScheduleTimeDuration: how long until just
// after the activation that follows the most recent one (or the earliest
// time, if none passed). Zero if the schedule never fires again.
func nextRequeue(cj *api.CronJob, now time.Time, s *Schedule) time.Duration {
	earliest, recent, _ := mostRecentScheduleTime(cj, now, s, false)
	base := earliest
	if recent != nil {
		base = *recent
	}
	next := s.Next(base)
	if next.IsZero() {
		return 0
	}
	return next.Add(nextScheduleDelta).Sub(now)
}

// decide is one sync of cj, which controls jobs (the jobs of its
// namespace whose controller reference is cj), at now: kcm's
// syncCronJob followed by cleanupFinishedJobs.
//
//  1. The active list is reconciled with the jobs: a finished job leaves
//     it (SawCompletedJob) and, if it completed, moves lastSuccessfulTime;
//     a listed job that is gone leaves it (MissingJob); an unfinished job
//     not listed is reported (UnexpectedJob), as kcm does, not added.
//  2. Nothing is scheduled while the cron job is being deleted, its zone
//     or schedule is invalid (UnknownTimeZone, UnparseableSchedule) or it
//     is suspended.
//  3. The most recent missed activation (only that one: no backfill) is
//     run unless it is past startingDeadlineSeconds (MissSchedule), was
//     already run, or concurrencyPolicy Forbid finds a job active
//     (JobAlreadyActive); Replace deletes the active jobs first. More
//     than 100 missed activations warn (TooManyMissedTimes).
//  4. Finished jobs beyond the history limits are deleted, oldest first.
func decide(cj *api.CronJob, jobs []*api.Job, now time.Time) decision {
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
		if _, ok := byUID[r.UID]; ok {
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

// schedule is step 2 and 3 of decide.
func (d *decision) schedule(cj *api.CronJob, now time.Time) {
	st := &d.status
	loc, err := location(cj)
	if err != nil {
		d.eventf(events.Warning, "UnknownTimeZone", "invalid timeZone: %q: %s", *cj.Spec.TimeZone, err)
		return
	}
	sched, err := ParseSchedule(cj.Spec.Schedule)
	if err != nil {
		d.eventf(events.Warning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return
	}
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return
	}
	now = now.In(loc)
	d.requeueAfter = nextRequeue(cj, now, sched)
	_, recent, missed := mostRecentScheduleTime(cj, now, sched, true)
	if missed > tooManyMissed {
		d.eventf(events.Warning, "TooManyMissedTimes", "too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)
	}
	if recent == nil {
		return
	}
	scheduled := *recent
	if sd := cj.Spec.StartingDeadlineSeconds; sd != nil && scheduled.Add(time.Duration(*sd)*time.Second).Before(now) {
		d.eventf(events.Warning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.Format(time.RFC1123Z))
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
