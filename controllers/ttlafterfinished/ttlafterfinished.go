package ttlafterfinished

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is kube-controller-manager's
// --concurrent-ttl-after-finished-syncs.
const DefaultWorkers = 5

// Options configures a Controller. The zero value is valid.
type Options struct {
	// Workers is the number of jobs synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Controller is the TTL-after-finished controller. Create it with New,
// run it with Run.
type Controller struct {
	res  client.Resource[*api.Job]
	jobs *informer.Informer[*api.Job]
	ctl  *reconcile.Controller[string]
	log  *slog.Logger
}

// New returns the controller of c over the shared informer "jobs" of f.
// Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("ttlafterfinished: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("ttlafterfinished: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	tc := &Controller{log: opts.Logger.With("controller", "ttl-after-finished-controller")}
	var err error
	if tc.res, err = client.For[*api.Job](c); err != nil {
		return nil, fmt.Errorf("ttlafterfinished: %w", err)
	}
	if tc.jobs, err = informer.Shared(f, "jobs", source.ListWatcher[*api.Job](tc.res), api.Key[*api.Job], informer.Options[*api.Job]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("ttlafterfinished: %w", err)
	}
	if tc.ctl, err = reconcile.New("ttl-after-finished-controller", reconcile.Func[string](tc.sync),
		reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("ttlafterfinished: %w", err)
	}
	// kcm: a job added or updated that is not being deleted and needs
	// cleanup is synced.
	cleanup := func(j *api.Job) []string {
		if j.DeletionTimestamp != nil || !NeedsCleanup(j) {
			return nil
		}
		return []string{api.Key(j)}
	}
	if _, err := reconcile.WatchEvents(tc.ctl, tc.jobs, reconcile.Events[*api.Job, string]{
		Create: cleanup,
		Update: func(_, j *api.Job) []string { return cleanup(j) },
	}, reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: tc.ctl.Name()}}); err != nil {
		return nil, fmt.Errorf("ttlafterfinished: %w", err)
	}
	return tc, nil
}

// Run syncs jobs until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error.
func (tc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("ttlafterfinished: Run: context is nil")
	}
	return tc.ctl.Run(ctx)
}

// NeedsCleanup reports whether j has a ttlSecondsAfterFinished and has
// finished: a Complete or Failed condition that is True.
func NeedsCleanup(j *api.Job) bool {
	if j.Spec.TTLSecondsAfterFinished == nil {
		return false
	}
	_, ok := finished(j)
	return ok
}

// finished returns j's Complete or Failed condition that is True.
func finished(j *api.Job) (*api.JobCondition, bool) {
	for i := range j.Status.Conditions {
		c := &j.Status.Conditions[i]
		if (c.Type == api.JobComplete || c.Type == api.JobFailed) && c.Status == api.ConditionTrue {
			return c, true
		}
	}
	return nil, false
}

// ExpireAt returns when j, finished with a ttlSecondsAfterFinished,
// expires: the last transition of its finishing condition plus the TTL.
// An error when j needs no cleanup or its finishing condition has no
// time, as kcm reports it.
func ExpireAt(j *api.Job) (time.Time, error) {
	c, ok := finished(j)
	if !ok || j.Spec.TTLSecondsAfterFinished == nil {
		return time.Time{}, fmt.Errorf("job %s/%s should not be cleaned up", j.Namespace, j.Name)
	}
	if c.LastTransitionTime.IsZero() {
		return time.Time{}, fmt.Errorf("unable to find the time when the Job %s/%s finished", j.Namespace, j.Name)
	}
	return c.LastTransitionTime.Time.Add(time.Duration(*j.Spec.TTLSecondsAfterFinished) * time.Second), nil
}

// sync deletes the job of key once its TTL has passed, as kcm does: it
// checks the cached job, then the job read fresh from the server (its TTL
// may have been changed), and deletes it in the foreground with its uid
// as precondition; before that it comes back when the TTL runs out.
func (tc *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	j, ok := tc.jobs.Lister().Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	if wait, err := remaining(j); err != nil || wait != 0 {
		return reconcile.Result{RequeueAfter: max(wait, 0)}, err
	}
	fresh, _, err := tc.res.Get(ctx, key)
	if errors.Is(err, source.ErrNotFound) {
		return reconcile.Result{}, nil
	}
	if err != nil {
		return reconcile.Result{}, err
	}
	if wait, err := remaining(fresh); err != nil || wait != 0 {
		return reconcile.Result{RequeueAfter: max(wait, 0)}, err
	}
	_, err = tc.res.DeleteWith(ctx, key, client.DeleteOptions{PropagationPolicy: client.DeletePropagationForeground,
		Preconditions: client.Preconditions{UID: fresh.UID}})
	if err != nil && !errors.Is(err, source.ErrNotFound) {
		return reconcile.Result{}, fmt.Errorf("ttlafterfinished: delete %s: %w", key, err)
	}
	tc.log.Debug("ttlafterfinished: deleted", "job", key)
	return reconcile.Result{}, nil
}

// remaining is how long j has before it expires: -1 when it needs no
// cleanup (or is being deleted), 0 when it has expired.
func remaining(j *api.Job) (time.Duration, error) {
	if j.DeletionTimestamp != nil || !NeedsCleanup(j) {
		return -1, nil
	}
	at, err := ExpireAt(j)
	if err != nil {
		return -1, err
	}
	return max(time.Until(at), 0), nil
}
