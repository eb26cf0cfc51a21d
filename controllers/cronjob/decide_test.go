package cronjob

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

var (
	// The instants of kcm's cronjob_controllerv2_test.go.
	justBeforeThePriorHour = mustTime("2016-05-19T08:59:00Z")
	topOfThePriorHour      = mustTime("2016-05-19T09:00:00Z")
	justBeforeTheHour      = mustTime("2016-05-19T09:59:00Z")
	topOfTheHour           = mustTime("2016-05-19T10:00:00Z")
	justAfterTheHour       = mustTime("2016-05-19T10:01:00Z")
	weekBefore             = mustTime("2016-05-12T10:00:00Z")
)

func hourly(created time.Time) *api.CronJob {
	cj := &api.CronJob{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "hello", UID: "cj-uid",
		CreationTimestamp: api.Time{Time: created}}}
	cj.Spec.Schedule = "0 * * * ?"
	cj.Spec.TimeZone = ptr("UTC") // not time.Local: the rows hold in any machine's zone
	cj.Spec.ConcurrencyPolicy = api.AllowConcurrent
	cj.Spec.JobTemplate.Labels = map[string]string{"app": "hello"}
	cj.Spec.JobTemplate.Spec.Template.Spec.Containers = []api.Container{{Name: "hello", Image: "busybox"}}
	return cj
}

func job(name, uid string, finished api.JobConditionType, start, done time.Time) *api.Job {
	j := &api.Job{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, UID: api.UID(uid)}}
	if !start.IsZero() {
		j.Status.StartTime = &api.Time{Time: start}
	}
	if finished != "" {
		j.Status.Conditions = []api.JobCondition{{Type: finished, Status: api.ConditionTrue}}
		if finished == api.JobComplete {
			j.Status.CompletionTime = &api.Time{Time: done}
		}
	}
	return j
}

func ref(j *api.Job) api.ObjectReference {
	return api.ObjectReference{APIVersion: "batch/v1", Kind: "Job", Namespace: j.Namespace, Name: j.Name, UID: j.UID}
}

// The cases of kcm's TestControllerV2SyncCronJob (cronjob_controllerv2_test.go):
// schedule, concurrency policy, suspension, deadline, a previous run and
// whether it is still active, against now — rewritten as explicit rows.
func TestDecideSchedule(t *testing.T) {
	prior := job(JobName("hello", topOfThePriorHour), "prior", "", topOfThePriorHour, time.Time{})
	priorDone := job(JobName("hello", topOfThePriorHour), "prior", api.JobComplete, topOfThePriorHour, topOfThePriorHour.Add(5*time.Minute))
	tests := []struct {
		name     string
		mod      func(*api.CronJob)
		jobs     []*api.Job
		now      time.Time
		create   string // expected job name, "" none
		deletes  []string
		active   int
		reasons  []string
		requeue  time.Duration
		lastSucc time.Time
	}{
		{name: "never ran, not valid schedule", mod: func(c *api.CronJob) { c.Spec.Schedule = "* * * * * *" },
			now: topOfTheHour, reasons: []string{"UnparseableSchedule"}},
		{name: "never ran, schedule never fires (30 February)", mod: func(c *api.CronJob) { c.Spec.Schedule = "0 0 30 2 *" },
			now: justAfterTheHour, reasons: []string{"InvalidSchedule"}},
		{name: "suspended: an unparseable schedule is not reported", mod: func(c *api.CronJob) {
			c.Spec.Schedule = "* * * * * *"
			c.Spec.Suspend = ptr(true)
		}, now: topOfTheHour},
		{name: "never ran, invalid time zone", mod: func(c *api.CronJob) { c.Spec.TimeZone = ptr("Nowhere/Atlantis") },
			now: topOfTheHour, reasons: []string{"UnknownTimeZone"}},
		{name: "never ran, not time, A", now: justBeforeTheHour.Add(30 * time.Second), requeue: 30*time.Second + nextScheduleDelta},
		{name: "never ran, is time, A", now: justAfterTheHour, create: JobName("hello", topOfTheHour), active: 1,
			reasons: []string{"SuccessfulCreate"}, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "never ran, is time, F", mod: forbid, now: justAfterTheHour, create: JobName("hello", topOfTheHour), active: 1,
			reasons: []string{"SuccessfulCreate"}, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "never ran, is time, suspended", mod: func(c *api.CronJob) { c.Spec.Suspend = ptr(true) }, now: justAfterTheHour},
		{name: "never ran, is time, past deadline", mod: deadline(10), now: justAfterTheHour,
			requeue: 59*time.Minute + nextScheduleDelta},
		{name: "never ran, is time, not past deadline", mod: deadline(3600), now: justAfterTheHour,
			create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"SuccessfulCreate"}, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "prev ran but done, not time", mod: ran(prior), jobs: []*api.Job{priorDone}, now: justBeforeTheHour,
			reasons: []string{"SawCompletedJob"}, requeue: time.Minute + nextScheduleDelta, lastSucc: topOfThePriorHour.Add(5 * time.Minute)},
		{name: "prev ran but done, is time", mod: ran(prior), jobs: []*api.Job{priorDone}, now: justAfterTheHour,
			create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"SawCompletedJob", "SuccessfulCreate"},
			requeue: 59*time.Minute + nextScheduleDelta, lastSucc: topOfThePriorHour.Add(5 * time.Minute)},
		{name: "still active, not time", mod: ran(prior), jobs: []*api.Job{prior}, now: justBeforeTheHour, active: 1,
			requeue: time.Minute + nextScheduleDelta},
		{name: "still active, is time, A", mod: ran(prior), jobs: []*api.Job{prior}, now: justAfterTheHour,
			create: JobName("hello", topOfTheHour), active: 2, reasons: []string{"SuccessfulCreate"}, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "still active, is time, F", mod: both(ran(prior), forbid), jobs: []*api.Job{prior}, now: justAfterTheHour,
			active: 1, reasons: []string{"JobAlreadyActive"}, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "still active, is time, R", mod: both(ran(prior), replace), jobs: []*api.Job{prior}, now: justAfterTheHour,
			create: JobName("hello", topOfTheHour), deletes: []string{prior.Name}, active: 1,
			reasons: []string{"SuccessfulDelete", "SuccessfulCreate"}, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "this schedule already ran", mod: func(c *api.CronJob) { c.Status.LastScheduleTime = &api.Time{Time: topOfTheHour} },
			now: justAfterTheHour, requeue: 59*time.Minute + nextScheduleDelta},
		{name: "active job missing from the lister", mod: ran(prior), now: justAfterTheHour,
			create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"MissingJob", "SuccessfulCreate"},
			requeue: 59*time.Minute + nextScheduleDelta},
		{name: "unexpected job is reported, not adopted", jobs: []*api.Job{prior}, now: justBeforeTheHour.Add(30 * time.Second),
			reasons: []string{"UnexpectedJob"}, requeue: 30*time.Second + nextScheduleDelta},
		{name: "many missed, no deadline: warn, run the most recent once",
			mod: func(c *api.CronJob) { c.Status.LastScheduleTime = &api.Time{Time: weekBefore} }, now: justAfterTheHour,
			create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"TooManyMissedTimes", "SuccessfulCreate"},
			requeue: 59*time.Minute + nextScheduleDelta},
		{name: "many missed, deadline limits the window: no warning",
			mod: both(deadline(200), func(c *api.CronJob) { c.Status.LastScheduleTime = &api.Time{Time: weekBefore} }),
			now: justAfterTheHour, create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"SuccessfulCreate"},
			requeue: 59*time.Minute + nextScheduleDelta},
		{name: "time zone: 19:00 in Tokyo is 10:00 UTC",
			mod: func(c *api.CronJob) { c.Spec.TimeZone = ptr("Asia/Tokyo"); c.Spec.Schedule = "0 19 * * *" },
			now: justAfterTheHour, create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"SuccessfulCreate"},
			requeue: 23*time.Hour + 59*time.Minute + nextScheduleDelta},
		{name: "CRON_TZ prefix: honoured, with a warning", mod: func(c *api.CronJob) { c.Spec.Schedule = "CRON_TZ=Asia/Tokyo 0 19 * * *" },
			now: justAfterTheHour, create: JobName("hello", topOfTheHour), active: 1, reasons: []string{"UnsupportedSchedule", "SuccessfulCreate"},
			requeue: 23*time.Hour + 59*time.Minute + nextScheduleDelta},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cj := hourly(justBeforeTheHour)
			if tc.mod != nil {
				tc.mod(cj)
			}
			d := decide(cj, tc.jobs, nil, tc.now)
			gotCreate := ""
			if d.create != nil {
				gotCreate = d.create.Name
				if got := d.create.Annotations[AnnotationScheduledTimestamp]; got == "" {
					t.Errorf("created job has no %s", AnnotationScheduledTimestamp)
				}
				if r := d.create.ControllerRef(); r == nil || r.UID != cj.UID {
					t.Errorf("created job not controlled by the cron job: %v", d.create.OwnerReferences)
				}
			}
			if gotCreate != tc.create {
				t.Errorf("create = %q, want %q", gotCreate, tc.create)
			}
			var dels []string
			for _, j := range d.deletes {
				dels = append(dels, j.Name)
			}
			if fmt.Sprint(dels) != fmt.Sprint(tc.deletes) {
				t.Errorf("deletes = %v, want %v", dels, tc.deletes)
			}
			if len(d.status.Active) != tc.active {
				t.Errorf("active = %v, want %d", d.status.Active, tc.active)
			}
			var reasons []string
			for _, e := range d.events {
				reasons = append(reasons, e.reason)
			}
			if fmt.Sprint(reasons) != fmt.Sprint(tc.reasons) {
				t.Errorf("events = %v, want %v", d.events, tc.reasons)
			}
			if d.requeueAfter != tc.requeue {
				t.Errorf("requeueAfter = %v, want %v", d.requeueAfter, tc.requeue)
			}
			if tc.create != "" && (d.status.LastScheduleTime == nil || !d.status.LastScheduleTime.Equal(topOfTheHour)) {
				t.Errorf("lastScheduleTime = %v, want %v", d.status.LastScheduleTime, topOfTheHour)
			}
			if !tc.lastSucc.IsZero() && (d.status.LastSuccessfulTime == nil || !d.status.LastSuccessfulTime.Equal(tc.lastSucc)) {
				t.Errorf("lastSuccessfulTime = %v, want %v", d.status.LastSuccessfulTime, tc.lastSucc)
			}
		})
	}
}

// after is topOfTheHour + d: kcm's deltaTimeAfterTopOfTheHour.
func after(d time.Duration) time.Time { return topOfTheHour.Add(d) }

// The cases of kcm's TestMostRecentScheduleTime
// (pkg/controller/cronjob/utils_test.go), with its expectations: the
// earliest time, the most recent activation (nil for "another complex
// schedule", where kcm's estimate finds none) and the missed class.
func TestMostRecentScheduleTime(t *testing.T) {
	tests := []struct {
		name       string
		schedule   string
		created    time.Time
		last       time.Time // zero: no lastScheduleTime
		deadline   *int64
		includeSDS bool
		now        time.Time
		earliest   time.Time
		want       time.Time // zero: none
		missed     missedSchedules
		wantErr    bool
	}{
		{name: "now before next schedule", schedule: "0 * * * *", created: topOfTheHour,
			now: after(30 * time.Second), earliest: topOfTheHour},
		{name: "now just after next schedule", schedule: "0 * * * *", created: topOfTheHour,
			now: after(61 * time.Minute), earliest: topOfTheHour, want: after(60 * time.Minute)},
		{name: "missed 5 schedules", schedule: "0 * * * *", created: after(10 * time.Second),
			now: after(301 * time.Minute), earliest: after(10 * time.Second), want: after(300 * time.Minute), missed: fewMissed},
		{name: "complex schedule", schedule: "30 6-16/4 * * 1-5", created: topOfTheHour, last: after(30 * time.Minute),
			now: after(24*time.Hour + 31*time.Minute), earliest: after(30 * time.Minute), want: after(24*time.Hour + 30*time.Minute), missed: fewMissed},
		{name: "another complex schedule", schedule: "30 10,11,12 * * 1-5", created: topOfTheHour, last: after(30 * time.Minute),
			now: after(30*time.Hour + 30*time.Minute), earliest: after(30 * time.Minute), missed: fewMissed},
		{name: "complex schedule with longer diff between executions", schedule: "30 6-16/4 * * 1-5", created: topOfTheHour,
			last: after(30 * time.Minute), now: after(96*time.Hour + 31*time.Minute), earliest: after(30 * time.Minute),
			want: after(96*time.Hour + 30*time.Minute), missed: fewMissed},
		{name: "complex schedule with shorter diff between executions", schedule: "30 6-16/4 * * 1-5", created: topOfTheHour,
			now: after(24*time.Hour + 31*time.Minute), earliest: topOfTheHour, want: after(24*time.Hour + 30*time.Minute), missed: fewMissed},
		{name: "@every schedule", schedule: "@every 1h", created: after(-59 * time.Minute), last: after(time.Minute), deadline: ptr(int64(10)),
			now: after(7 * 24 * time.Hour), earliest: after(time.Minute), want: after(6*24*time.Hour + 23*time.Hour + time.Minute), missed: manyMissed},
		{name: "rogue cronjob", schedule: "59 23 31 2 *", created: after(10 * time.Second), now: after(time.Hour), wantErr: true},
		{name: "earliestTime being CreationTimestamp and LastScheduleTime", schedule: "0 * * * *", created: topOfTheHour, last: topOfTheHour,
			now: after(30 * time.Second), earliest: topOfTheHour},
		{name: "earliestTime being LastScheduleTime", schedule: "*/5 * * * *", created: topOfTheHour, last: after(30 * time.Minute),
			now: after(31 * time.Minute), earliest: after(30 * time.Minute)},
		{name: "earliestTime being LastScheduleTime (within StartingDeadlineSeconds)", schedule: "*/5 * * * *", created: topOfTheHour,
			last: after(30 * time.Minute), deadline: ptr(int64(60)), now: after(31 * time.Minute), earliest: after(30 * time.Minute)},
		{name: "earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)", schedule: "*/5 * * * *", created: topOfTheHour,
			last: after(30 * time.Minute), deadline: ptr(int64(60)), includeSDS: true, now: after(32 * time.Minute), earliest: after(31 * time.Minute)},
		// Ours: more than 100 missed by the estimate, and Feb 30 (the example).
		{name: "rogue cronjob: 101 missed", schedule: "*/1 * * * *", created: topOfTheHour, now: after(101 * time.Minute),
			earliest: topOfTheHour, want: after(101 * time.Minute), missed: manyMissed},
		{name: "exactly 100 missed is few", schedule: "*/1 * * * *", created: topOfTheHour, now: after(100 * time.Minute),
			earliest: topOfTheHour, want: after(100 * time.Minute), missed: fewMissed},
		{name: "30 February never fires", schedule: "0 0 30 2 *", created: topOfTheHour, now: after(time.Hour), wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cj := hourly(tc.created)
			cj.Spec.Schedule = tc.schedule
			cj.Spec.StartingDeadlineSeconds = tc.deadline
			if !tc.last.IsZero() {
				cj.Status.LastScheduleTime = &api.Time{Time: tc.last}
			}
			s, err := ParseSchedule(tc.schedule)
			if err != nil {
				t.Fatal(err)
			}
			earliest, got, missed, err := mostRecentScheduleTime(cj, tc.now, s, tc.includeSDS)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, got %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !earliest.Equal(tc.earliest) {
				t.Errorf("earliest = %v, want %v", earliest, tc.earliest)
			}
			if (got == nil) != tc.want.IsZero() || (got != nil && !got.Equal(tc.want)) || missed != tc.missed {
				t.Errorf("got %v (missed %d), want %v (%d)", got, missed, tc.want, tc.missed)
			}
		})
	}
}

// The cases of kcm's TestNextScheduleTimeDuration
// (pkg/controller/cronjob/utils_test.go).
func TestNextRequeue(t *testing.T) {
	tests := []struct {
		name     string
		schedule string
		last     time.Time
		now      time.Time
		want     time.Duration
	}{
		{name: "complex schedule skipping weekend", schedule: "30 6-16/4 * * 1-5", last: after(30 * time.Minute),
			now: after(24*time.Hour + 31*time.Minute), want: 3*time.Hour + 59*time.Minute + nextScheduleDelta},
		{name: "another complex schedule skipping weekend", schedule: "30 10,11,12 * * 1-5", last: after(30 * time.Minute),
			now: after(30*time.Hour + 30*time.Minute), want: 66*time.Hour + nextScheduleDelta},
		{name: "once a week cronjob, missed two runs", schedule: "0 12 * * 4", last: after(2 * time.Hour),
			now: after(19*24*time.Hour + time.Hour + 30*time.Minute), want: 48*time.Hour + 30*time.Minute + nextScheduleDelta},
		{name: "no previous run of a cronjob", schedule: "0 12 * * 5", now: after(6 * time.Hour), want: 20*time.Hour + nextScheduleDelta},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cj := hourly(topOfTheHour)
			cj.Spec.Schedule = tc.schedule
			if !tc.last.IsZero() {
				cj.Status.LastScheduleTime = &api.Time{Time: tc.last}
			}
			s, err := ParseSchedule(tc.schedule)
			if err != nil {
				t.Fatal(err)
			}
			if got := nextRequeue(cj, tc.now, s); got != tc.want {
				t.Errorf("nextRequeue = %v, want %v", got, tc.want)
			}
		})
	}
}

// kcm's TestCleanupFinishedJobs / history-limit cases: the oldest finished
// jobs beyond the limits go, by start time; active jobs stay.
func TestDecideHistoryLimits(t *testing.T) {
	cj := hourly(justBeforeThePriorHour)
	cj.Spec.Suspend = ptr(true)
	cj.Spec.SuccessfulJobsHistoryLimit = ptr(int32(3))
	cj.Spec.FailedJobsHistoryLimit = ptr(int32(1))
	var jobs []*api.Job
	for i := range 5 {
		start := topOfThePriorHour.Add(time.Duration(i) * time.Minute)
		jobs = append(jobs, job(fmt.Sprintf("ok-%d", i), fmt.Sprintf("ok-%d", i), api.JobComplete, start, start.Add(time.Second)))
	}
	for i := range 3 {
		start := topOfThePriorHour.Add(time.Duration(i) * time.Minute)
		jobs = append(jobs, job(fmt.Sprintf("bad-%d", i), fmt.Sprintf("bad-%d", i), api.JobFailed, start, time.Time{}))
	}
	jobs = append(jobs, job("running", "running", "", topOfThePriorHour, time.Time{}))
	cj.Status.Active = []api.ObjectReference{ref(jobs[len(jobs)-1])}
	d := decide(cj, jobs, nil, topOfTheHour)
	var dels []string
	for _, j := range d.deletes {
		dels = append(dels, j.Name)
	}
	if want := "[ok-0 ok-1 bad-0 bad-1]"; fmt.Sprint(dels) != want {
		t.Errorf("deletes = %v, want %v", dels, want)
	}
}

func ptr[T any](v T) *T      { return &v }
func forbid(c *api.CronJob)  { c.Spec.ConcurrencyPolicy = api.ForbidConcurrent }
func replace(c *api.CronJob) { c.Spec.ConcurrencyPolicy = api.ReplaceConcurrent }
func deadline(s int64) func(*api.CronJob) {
	return func(c *api.CronJob) { c.Spec.StartingDeadlineSeconds = &s }
}
func ran(j *api.Job) func(*api.CronJob) {
	return func(c *api.CronJob) {
		c.CreationTimestamp = api.Time{Time: justBeforeThePriorHour}
		c.Status.LastScheduleTime = &api.Time{Time: topOfThePriorHour}
		c.Status.Active = []api.ObjectReference{ref(j)}
	}
}
func both(fs ...func(*api.CronJob)) func(*api.CronJob) {
	return func(c *api.CronJob) {
		for _, f := range fs {
			f(c)
		}
	}
}
