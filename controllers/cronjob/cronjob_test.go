package cronjob_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
	"github.com/ctrlkit/ctrlkit/source"
)

// The hello CronJob of Kubernetes' documentation (manifests/) ("*/1 * * * *") over ten virtual minutes: ten
// jobs, each completing, of which the three newest are kept
// (successfulJobsHistoryLimit 3).
func TestHelloCronJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		start := time.Now()
		_, err := e.c.CronJobs().Create(e.ctx, hello(t))
		require.NoError(t, err)
		time.Sleep(10*time.Minute + 30*time.Second)
		synctest.Wait()

		require.Equal(t, 10, e.count("SuccessfulCreate"), "one job a minute")
		jobs := e.jobs()
		require.Len(t, jobs, 3, "history limit 3")
		for _, j := range jobs {
			require.Contains(t, j.Name, "hello-")
			require.NotNil(t, j.Status.CompletionTime, "%s completed", j.Name)
			require.NotEmpty(t, j.Annotations[cronjob.AnnotationScheduledTimestamp])
		}
		cj := e.cronJob()
		require.Empty(t, cj.Status.Active)
		require.True(t, cj.Status.LastScheduleTime.Equal(start.Truncate(time.Minute).Add(10*time.Minute)))
		require.NotNil(t, cj.Status.LastSuccessfulTime)
		require.Equal(t, 7, e.count("SuccessfulDelete"), "the seven oldest jobs deleted")
	})
}

// concurrencyPolicy Forbid with a job that never ends: one job, every
// later schedule skipped.
func TestForbidLongRunningJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		cj := hello(t)
		cj.Spec.ConcurrencyPolicy = api.ForbidConcurrent
		cj.Spec.JobTemplate.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "forever"}
		_, err := e.c.CronJobs().Create(e.ctx, cj)
		require.NoError(t, err)
		time.Sleep(5*time.Minute + 30*time.Second)
		synctest.Wait()
		require.Len(t, e.jobs(), 1)
		require.Len(t, e.cronJob().Status.Active, 1)
		require.Equal(t, 1, e.count("SuccessfulCreate"))
		require.Equal(t, 4, e.count("JobAlreadyActive"))
	})
}

// concurrencyPolicy Replace with a job that never ends: each schedule
// deletes the running job and starts a new one.
func TestReplaceLongRunningJob(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		cj := hello(t)
		cj.Spec.ConcurrencyPolicy = api.ReplaceConcurrent
		cj.Spec.JobTemplate.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "forever"}
		_, err := e.c.CronJobs().Create(e.ctx, cj)
		require.NoError(t, err)
		time.Sleep(5*time.Minute + 30*time.Second)
		synctest.Wait()
		require.Equal(t, 5, e.count("SuccessfulCreate"))
		require.Equal(t, 4, e.count("SuccessfulDelete"))
		active := e.cronJob().Status.Active
		require.Len(t, active, 1)
		jobs := e.jobs()
		require.Len(t, jobs, 1, "the replaced jobs are gone")
		require.Equal(t, active[0].UID, jobs[0].UID)
	})
}

// A controller paused for ten minutes runs only the most recent missed
// schedule when it comes back: one job, not ten.
func TestMissedScheduleAfterPauseRunsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		_, err := e.c.CronJobs().Create(e.ctx, hello(t))
		require.NoError(t, err)
		time.Sleep(time.Minute + 30*time.Second)
		synctest.Wait()
		require.Equal(t, 1, e.count("SuccessfulCreate"))

		e.stop()
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		require.Equal(t, 1, e.count("SuccessfulCreate"), "nothing while paused")

		e.resume()
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, 2, e.count("SuccessfulCreate"), "the most recent missed schedule, once")
		last := e.cronJob().Status.LastScheduleTime.Time
		require.Equal(t, 0, last.Second())
		require.True(t, time.Since(last) < time.Minute, "the most recent schedule (%v)", last)
	})
}

// An invalid schedule is rejected by the cluster's validation (which
// runs api.ValidateCronSchedule, before any admission plugin) as 422
// Invalid with the field at fault.
func TestInvalidScheduleRejected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		for _, s := range []string{"*/1 * * *", "61 * * * *", "0 9-17 * * MON-FOO"} {
			cj := hello(t)
			cj.Spec.Schedule = s
			_, err := e.c.CronJobs().Create(e.ctx, cj)
			requireFieldInvalid(t, err, "spec.schedule", s)
		}
		cj := hello(t)
		cj.Spec.TimeZone = new("Mars/Olympus_Mons")
		_, err := e.c.CronJobs().Create(e.ctx, cj)
		requireFieldInvalid(t, err, "spec.timeZone", "Mars/Olympus_Mons")
	})
}

// The cluster validates schedules without the admission plugin: the
// check lives in controllers/api (issue 29 item 7), not only in
// cronjob.Admission.
func TestClusterValidatesScheduleWithoutAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		cj := hello(t)
		cj.Spec.Schedule = "0 25 * * *"
		_, err = c.CronJobs().Create(ctx, cj)
		requireFieldInvalid(t, err, "spec.schedule", "0 25 * * *")
		cj = hello(t)
		cj.Spec.TimeZone = new("Mars/Olympus_Mons")
		_, err = c.CronJobs().Create(ctx, cj)
		requireFieldInvalid(t, err, "spec.timeZone", "Mars/Olympus_Mons")
		_, err = c.CronJobs().Create(ctx, hello(t))
		require.NoError(t, err)
	})
}

// Admission, for servers that do not validate schedules themselves,
// refuses the same schedules with an InvalidError that also wraps
// ErrInvalidSchedule.
func TestAdmissionRejectsInvalidSchedule(t *testing.T) {
	attrs := func(cj *api.CronJob) admission.Attributes {
		return admission.Attributes{Operation: admission.Create, Resource: "cronjobs", Object: cj}
	}
	for _, s := range []string{"*/1 * * *", "61 * * * *", "0 9-17 * * MON-FOO"} {
		cj := hello(t)
		cj.Spec.Schedule = s
		err := cronjob.Admission(context.Background(), attrs(cj))
		require.True(t, errors.Is(err, cronjob.ErrInvalidSchedule), "%q: %v", s, err)
		requireFieldInvalid(t, err, "spec.schedule", s)
	}
	cj := hello(t)
	cj.Spec.TimeZone = new("Mars/Olympus_Mons")
	err := cronjob.Admission(context.Background(), attrs(cj))
	require.ErrorIs(t, err, cronjob.ErrInvalidSchedule)
	requireFieldInvalid(t, err, "spec.timeZone", "Mars/Olympus_Mons")
	require.NoError(t, cronjob.Admission(context.Background(), attrs(hello(t))))
}

func requireFieldInvalid(t *testing.T, err error, field, value string) {
	t.Helper()
	require.True(t, client.IsInvalid(err), "%s %q: %v", field, value, err)
	var inv *client.InvalidError
	require.ErrorAs(t, err, &inv)
	fe, ok := inv.Field(field)
	require.True(t, ok, "no error at %s: %v", field, err)
	require.Equal(t, client.FieldInvalid, fe.Type)
	require.Equal(t, value, fe.Value)
}

// kube-apiserver's TZ-in-schedule rule, the cases of
// TestValidateCronJobScheduleTZ (pkg/apis/batch/validation/validation_test.go):
// refused on create; an update may keep a stored prefix or drop it, but
// not add spec.timeZone beside it, nor add a prefix to a schedule without.
func TestAdmissionTZInSchedule(t *testing.T) {
	const withTZ, plain = "TZ=UTC 0 * * * *", "0 * * * *"
	mk := func(schedule string, tz *string) *api.CronJob {
		cj := hello(t)
		cj.Spec.Schedule, cj.Spec.TimeZone = schedule, tz
		return cj
	}
	cases := []struct {
		name     string
		old, obj *api.CronJob
		msg      string // "" accepted
	}{
		{"create with TZ", nil, mk(withTZ, nil), "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
		{"create with CRON_TZ", nil, mk("CRON_TZ=UTC 0 * * * *", nil), "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
		{"create with timeZone", nil, mk(plain, new("UTC")), ""},
		{"update removing TZ should work", mk(withTZ, nil), mk(plain, nil), ""},
		{"update not modifying TZ should work", mk(withTZ, nil), mk(withTZ, nil), ""},
		{"update not modifying TZ but adding .spec.timeZone should fail", mk(withTZ, nil), mk(withTZ, new("Asia/Tokyo")),
			"cannot use both timeZone field and TZ or CRON_TZ in schedule"},
		{"update adding TZ should fail", mk(plain, nil), mk(withTZ, nil), "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := admission.Attributes{Operation: admission.Create, Resource: "cronjobs", Object: tc.obj}
			if tc.old != nil {
				a.Operation, a.OldObject = admission.Update, tc.old
			}
			err := cronjob.Admission(context.Background(), a)
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, cronjob.ErrInvalidSchedule)
			requireFieldInvalid(t, err, "spec.schedule", tc.obj.Spec.Schedule)
			require.Contains(t, err.Error(), tc.msg)
		})
	}
}

// A schedule that parses but never fires (30 February) is accepted by the
// cluster, as kube-apiserver accepts it, and the controller records kcm's
// Warning InvalidSchedule once and creates no job.
func TestScheduleThatNeverFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		cj := hello(t)
		cj.Spec.Schedule = "0 0 30 2 *"
		_, err := e.c.CronJobs().Create(e.ctx, cj)
		require.NoError(t, err)
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		require.Empty(t, e.jobs())
		require.Equal(t, 1, e.count("InvalidSchedule"), "one event: the sync is not requeued")
		var msg string
		for _, ev := range e.rec.Events() {
			if ev.Reason == "InvalidSchedule" {
				msg = ev.Message
				require.Equal(t, "Warning", string(ev.Type))
			}
		}
		require.Equal(t, "invalid schedule: 0 0 30 2 * : time difference between two schedules is less than 1 second", msg)
	})
}

// A restarted controller whose jobs cache lags (its first list of jobs
// served from before the running job was created, its watch catching up
// a second later) keeps the running job in status.active: kcm's
// syncCronJob reads an active job the lister lacks from the API server
// and drops it (MissingJob) only when that read is NotFound. The harness's
// stale@1 view of the CronJob scenario found the controller dropping it,
// and once its cache caught up the job ran on unlisted (UnexpectedJob).
func TestActiveJobMissingFromALaggingCacheIsKept(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t)
		before, err := e.c.Jobs().List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		cj := hello(t)
		cj.Spec.ConcurrencyPolicy = api.ForbidConcurrent
		cj.Spec.JobTemplate.Spec.Template.Annotations = map[string]string{"sim.ctrlkit.io/run-for": "forever"}
		_, err = e.c.CronJobs().Create(e.ctx, cj)
		require.NoError(t, err)
		time.Sleep(time.Minute + 30*time.Second)
		synctest.Wait()
		require.Len(t, e.jobs(), 1)
		require.Len(t, e.cronJob().Status.Active, 1)

		e.stop()
		var listed atomic.Bool
		lagging := client.Intercept(e.c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
			if call.Resource != "jobs" {
				return next(ctx)
			}
			switch call.Verb {
			case "list":
				if !listed.Swap(true) {
					ctx = client.WithListOptions(ctx, source.ListOptions{ResourceVersion: before.ResourceVersion, ResourceVersionMatch: source.Exact})
				}
			case "watch":
				select {
				case <-time.After(time.Second):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return next(ctx)
		})
		e.resumeWith(lagging)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		require.Len(t, e.cronJob().Status.Active, 1, "the running job stays active")
		require.Zero(t, e.count("MissingJob"))
		require.Zero(t, e.count("UnexpectedJob"))
		require.Len(t, e.jobs(), 1)
	})
}
