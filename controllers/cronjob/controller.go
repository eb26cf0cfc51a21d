package cronjob

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is the default number of cron jobs synced concurrently:
// kube-controller-manager's --concurrent-cron-job-syncs.
const DefaultWorkers = 5

// Options configure New. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of cron jobs synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Recorder receives the controller's events (SuccessfulCreate,
	// SuccessfulDelete, SawCompletedJob, MissingJob, UnexpectedJob,
	// JobAlreadyActive, MissSchedule, TooManyMissedTimes,
	// UnparseableSchedule, UnknownTimeZone). Default: events.NewLog over
	// Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate() error {
	if o.Workers < 0 {
		return fmt.Errorf("cronjob: Workers %d is negative", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Recorder == nil {
		o.Recorder = events.NewLog(o.Logger, "cronjob-controller")
	}
	return nil
}

// Controller is the CronJob controller. See the package documentation.
type Controller struct {
	cjClient  client.Resource[*api.CronJob]
	jobClient client.Resource[*api.Job]
	opts      Options
	cronJobs  *informer.Informer[*api.CronJob]
	jobs      *informer.Informer[*api.Job]
	jobGate   *reconcile.Consistency[string]
	cjGate    *reconcile.Consistency[string]
	jobWriter source.Writer[*api.Job]
	ctl       *reconcile.Controller[string]
}

// New returns the CronJob controller writing through client c over the
// shared informers of f ("cronjobs", "jobs"). Start f after New, then
// Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("cronjob: client and factory are required")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	ctl := &Controller{opts: opts}
	var err error
	wrap := func(err error) error { return fmt.Errorf("cronjob: %w", err) }
	if ctl.cjClient, err = client.For[*api.CronJob](c); err != nil {
		return nil, wrap(err)
	}
	if ctl.jobClient, err = client.For[*api.Job](c); err != nil {
		return nil, wrap(err)
	}
	if ctl.cronJobs, err = informer.Shared(f, ctl.cjClient.Resource(), source.ListWatcher[*api.CronJob](ctl.cjClient), api.Key[*api.CronJob],
		informer.Options[*api.CronJob]{Logger: opts.Logger}); err != nil {
		return nil, wrap(err)
	}
	if ctl.jobs, err = informer.Shared(f, ctl.jobClient.Resource(), source.ListWatcher[*api.Job](ctl.jobClient), api.Key[*api.Job],
		informer.Options[*api.Job]{Logger: opts.Logger}); err != nil {
		return nil, wrap(err)
	}
	if ctl.jobGate, err = reconcile.NewConsistency[string](ctl.jobs, ctl.jobs); err != nil {
		return nil, wrap(err)
	}
	if ctl.cjGate, err = reconcile.NewConsistency[string](ctl.cronJobs, ctl.cronJobs); err != nil {
		return nil, wrap(err)
	}
	if ctl.jobWriter, err = reconcile.GatedWriter[*api.Job](ctl.jobGate, ctl.jobClient, api.Key[*api.Job]); err != nil {
		return nil, wrap(err)
	}
	if ctl.ctl, err = reconcile.New("cronjob-controller", reconcile.Func[string](ctl.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers,
		Logger:       opts.Logger,
		Consistency:  []*reconcile.Consistency[string]{ctl.jobGate, ctl.cjGate},
	}); err != nil {
		return nil, wrap(err)
	}
	if err := ctl.register(); err != nil {
		return nil, wrap(err)
	}
	return ctl, nil
}

// Run syncs cron jobs until ctx ends, once the informers have synced, and
// returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted) if reconciles in flight had to be cancelled.
func (ctl *Controller) Run(ctx context.Context) error { return ctl.ctl.Run(ctx) }

// register: a cron job's events enqueue it; a job's events enqueue the
// cron job its controller reference names (the old one too, when an
// update changed it).
func (ctl *Controller) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: ctl.ctl.Name()}}
	if _, err := reconcile.Watch(ctl.ctl, ctl.cronJobs, reconcile.ByKey(api.Key[*api.CronJob]), opts); err != nil {
		return err
	}
	_, err := reconcile.Watch(ctl.ctl, ctl.jobs, ctrlutil.ControllerKey[*api.Job]("CronJob"), opts)
	return err
}

// sync reads the cron job and the jobs it controls from the informers,
// lets decide choose, and carries the decision out: deletes, the create,
// the status, the events, and the requeue for the next schedule.
func (ctl *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	cj, ok := ctl.cronJobs.Lister().Get(key)
	if !ok {
		ctl.jobGate.Forget(key)
		ctl.cjGate.Forget(key)
		return reconcile.Result{}, nil
	}
	jobs := ctl.jobs.Lister().Namespace(cj.Namespace).List(func(j *api.Job) bool {
		r := j.ControllerRef()
		return r != nil && r.UID == cj.UID
	})
	cj, kept, err := ctl.readLive(ctx, cj, jobs)
	if err != nil {
		return reconcile.Result{}, err
	}
	d := decide(cj, jobs, kept, time.Now())
	ref := events.Ref{APIVersion: "batch/v1", Kind: "CronJob", Namespace: cj.Namespace, Name: cj.Name, UID: string(cj.UID)}
	for _, e := range d.events {
		ctl.opts.Recorder.Eventf(ref, e.typ, e.reason, "%s", e.message)
	}
	var errs []error
	for _, j := range d.deletes {
		// kcm deletes with background propagation: the job's pods follow.
		rv, err := ctl.jobClient.DeleteWith(ctx, api.Key(j), client.DeleteOptions{
			PropagationPolicy: client.DeletePropagationBackground, Preconditions: client.Preconditions{UID: j.UID}})
		switch {
		case err == nil:
			_ = ctl.jobGate.DeletedKey(key, api.Key(j), rv)
		case !errors.Is(err, source.ErrNotFound):
			errs = append(errs, fmt.Errorf("cronjob: delete job %s: %w", api.Key(j), err))
		}
	}
	if d.create != nil {
		uid, err := ctl.create(ctx, cj, d.create)
		if err != nil {
			ctl.opts.Recorder.Eventf(ref, events.Warning, "FailedCreate", "Error creating job: %v", err)
			return reconcile.Result{}, errors.Join(append(errs, err)...)
		}
		d.status.Active[len(d.status.Active)-1].UID = uid
	}
	if !reflect.DeepEqual(cj.Status, d.status) {
		upd := cj.DeepCopy()
		upd.Status = d.status
		rv, err := ctl.cjClient.UpdateStatus(ctx, upd)
		if err != nil {
			return reconcile.Result{}, errors.Join(append(errs, fmt.Errorf("cronjob: update status of %s: %w", key, err))...)
		}
		_ = ctl.cjGate.WroteKey(key, key, rv)
	}
	if err := errors.Join(errs...); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: d.requeueAfter}, nil
}

// readLive reads from the API server what the informers may not show
// yet, as kcm's syncCronJob does, so that a cache lagging behind (a
// restarted controller's first lists, a slow watch) does not undo the
// status: for an unfinished job it controls that the cached active list
// lacks, the live cron job, used instead when its active list has that
// job; and for each active job the jobs cache lacks, the live job: those
// the API server still has are returned in kept (by UID), not dropped as
// missing. Only a job the API server does not have goes missing.
func (ctl *Controller) readLive(ctx context.Context, cj *api.CronJob, jobs []*api.Job) (*api.CronJob, map[api.UID]bool, error) {
	inActive := func(cj *api.CronJob, uid api.UID) bool {
		return slices.ContainsFunc(cj.Status.Active, func(r api.ObjectReference) bool { return r.UID == uid })
	}
	listed := map[api.UID]bool{}
	for _, j := range jobs {
		listed[j.UID] = true
		if inActive(cj, j.UID) || jobFinished(j) != "" {
			continue
		}
		live, _, err := ctl.cjClient.Get(ctx, api.Key(cj))
		if err != nil {
			return nil, nil, fmt.Errorf("cronjob: get %s: %w", api.Key(cj), err)
		}
		if inActive(live, j.UID) {
			cj = live
		}
	}
	var kept map[api.UID]bool
	for _, r := range cj.Status.Active {
		if listed[r.UID] {
			continue
		}
		_, _, err := ctl.jobClient.Get(ctx, api.NamespacedKey(r.Namespace, r.Name))
		switch {
		case errors.Is(err, source.ErrNotFound):
		case err != nil:
			return nil, nil, fmt.Errorf("cronjob: get job %s: %w", api.NamespacedKey(r.Namespace, r.Name), err)
		default:
			if kept == nil {
				kept = map[api.UID]bool{}
			}
			kept[r.UID] = true
		}
	}
	return cj, kept, nil
}

// create creates the job and returns its uid. A job of that name that
// this cron job already controls (a sync that created it and then failed
// to write the status) is taken as created; kcm instead leaves the status
// alone and relies on the next schedule.
func (ctl *Controller) create(ctx context.Context, cj *api.CronJob, j *api.Job) (api.UID, error) {
	_, err := ctl.jobWriter.Create(ctx, j)
	if err == nil {
		return j.UID, nil
	}
	if errors.Is(err, source.ErrAlreadyExists) {
		if got, _, gerr := ctl.jobClient.Get(ctx, api.Key(j)); gerr == nil {
			if r := got.ControllerRef(); r != nil && r.UID == cj.UID {
				return got.UID, nil
			}
		}
	}
	return "", fmt.Errorf("cronjob: create job %s: %w", api.Key(j), err)
}
