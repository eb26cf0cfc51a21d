// Package cronjob is the CronJob controller: kube-controller-manager's
// pkg/controller/cronjob (cronjob_controllerv2.go) rebuilt on ctrlkit,
// with its own cron parser and an admission function for schedules.
//
// # Usage
//
//	c, err := cluster.New(ctx, cluster.Options{Admission: []admission.ValidatingFunc{cronjob.Admission}})
//	f := informer.NewFactory(informer.FactoryOptions{})
//	cc, err := cronjob.New(c, f, cronjob.Options{}) // c is any client.Client
//	f.Start(ctx)
//	go cc.Run(ctx)
//
// The controller depends on the client contract (package
// controllers/client) and informers only: it reads cron jobs and jobs
// from the factory's shared informers ("cronjobs", "jobs") and writes
// through the client's resources, so it runs the same on the in-process
// cluster, a real API server and the recording fake. The jobs it creates
// are run by the Job controller (controllers/job).
//
// # Schedules
//
// The parser lives in controllers/api (api.ParseCronSchedule,
// api.ValidateCronSchedule), which the in-process cluster's validation
// runs too; ParseSchedule and ValidateSchedule are its forms here.
// ParseSchedule reads the five fields minute, hour, day of month, month,
// day of week with "*", "?", values, ranges "a-b", steps "/n" and lists,
// three-letter month and weekday names, the descriptors @yearly
// (@annually), @monthly, @weekly, @daily (@midnight), @hourly, and
// @every <duration>, optionally after CRON_TZ=<zone> or TZ=<zone> — the
// grammar of robfig/cron v3's standard parser, which kcm uses.
// spec.timeZone (time.LoadLocation; the system's tz database) sets the
// zone the schedule runs in, else the controller's local zone; a CRON_TZ
// prefix wins over it. The cluster's validation rejects an invalid
// schedule or zone at create and update as 422 Invalid (field
// spec.schedule or spec.timeZone); Admission does the same, also wrapping
// ErrInvalidSchedule, for a server that does not validate schedules.
//
// # One sync
//
// decide is a pure function of the cron job, the jobs it controls and
// now (kcm's syncCronJob and cleanupFinishedJobs):
//
//  1. status.active is reconciled with the jobs: a finished job leaves it
//     (event SawCompletedJob) and a completed one moves
//     lastSuccessfulTime; a listed job that no longer exists leaves it
//     (MissingJob) — one the jobs cache lacks is read from the API server
//     first and stays while it exists, as kcm does, so that a lagging
//     cache (a restarted controller's first list) does not drop it; an
//     unfinished job it controls that is not listed is reported
//     (UnexpectedJob), not adopted into the list, unless the live cron
//     job (read then, as kcm does) lists it: its status is used instead.
//  2. Nothing is scheduled for a cron job being deleted, with an unknown
//     zone (UnknownTimeZone), suspended, or with a schedule that does not
//     parse (UnparseableSchedule) or never fires, such as "0 0 30 2 *"
//     (InvalidSchedule "invalid schedule: 0 0 30 2 * : time difference
//     between two schedules is less than 1 second"; not requeued until the
//     cron job changes). A TZ= or CRON_TZ= prefix is honoured with a
//     warning (UnsupportedSchedule), as kcm does.
//  3. The activations since lastScheduleTime (else the creation time),
//     but not before now − startingDeadlineSeconds, are estimated as kcm's
//     mostRecentScheduleTime does (from the interval between the next two
//     activations, then a search for the most recent one): more than 100
//     warn (TooManyMissedTimes), and only the most recent is run — there
//     is no backfill. For an irregular schedule the estimate may find
//     none to run, as kcm's. It is skipped when already run (its job is
//     active, or lastScheduleTime equals it), or when concurrencyPolicy
//     Forbid finds a job active (JobAlreadyActive; it runs when that job
//     ends, if still the most recent); Replace deletes the active jobs
//     first (background propagation). The job is
//     <cronjob>-<scheduled time in minutes since the epoch>, so a retried
//     sync never creates two; it carries the template's labels and
//     annotations, batch.kubernetes.io/cronjob-scheduled-timestamp, and
//     the cron job as controller. lastScheduleTime becomes that time.
//  4. Finished jobs beyond successfulJobsHistoryLimit (default 3) and
//     failedJobsHistoryLimit (default 1) are deleted, oldest start first.
//
// The sync requeues itself for 100 ms after the next activation instead
// of polling (kcm's nextScheduleDelta).
//
// # Differences from kcm
//
// A job found by name at create time that this cron job controls (a sync
// that created it and failed to write the status) is recorded as created;
// kcm leaves the status and waits for the next schedule. kube-apiserver since 1.27 rejects TZ=/CRON_TZ= in new cron
// jobs' schedules in favour of spec.timeZone; Admission does too, the
// in-process cluster's own validation (api.ValidateCronSchedule) does not.
// Metrics are left out.
//
// # Wiring and Run
//
// Its informers are wired with reconcile.Watch: a cron job's events
// enqueue it (reconcile.ByKey), a job's the cron job its controller
// reference names (ctrlutil.ControllerKey). Run returns once every
// worker has exited: ctx's error after a clean drain, or the error of a
// drain that did not end cleanly (it wraps reconcile.ErrShutdownTimeout
// or workqueue.ErrDrainAborted), never reduced to ctx's error.
package cronjob
