package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
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

// DefaultWorkers is the default number of jobs synced concurrently:
// kube-controller-manager's --concurrent-job-syncs.
const DefaultWorkers = 5

// Options configure New. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of jobs synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Backoff is the first pod re-creation back-off after a failure.
	// Default DefaultBackoff (10 s); negative is an error.
	Backoff time.Duration
	// MaxBackoff caps the back-off. Default MaxBackoff (10 min);
	// negative is an error.
	MaxBackoff time.Duration
	// Recorder receives the controller's events (SuccessfulCreate,
	// FailedCreate, SuccessfulDelete, Completed, BackoffLimitExceeded,
	// DeadlineExceeded, PodFailurePolicy, Suspended, Resumed). Default:
	// events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate() error {
	switch {
	case o.Workers < 0:
		return fmt.Errorf("job: Workers %d is negative", o.Workers)
	case o.Backoff < 0:
		return fmt.Errorf("job: Backoff %v is negative", o.Backoff)
	case o.MaxBackoff < 0:
		return fmt.Errorf("job: MaxBackoff %v is negative", o.MaxBackoff)
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Backoff == 0 {
		o.Backoff = DefaultBackoff
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = MaxBackoff
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Recorder == nil {
		o.Recorder = events.NewLog(o.Logger, "job-controller")
	}
	return nil
}

// Controller is the Job controller. See the package documentation.
type Controller struct {
	jobClient client.Resource[*api.Job]
	podClient client.Resource[*api.Pod]
	opts      Options
	jobs      *informer.Informer[*api.Job]
	pods      *informer.Informer[*api.Pod]
	podGate   *reconcile.Consistency[string]
	jobGate   *reconcile.Consistency[string]
	podWriter source.Writer[*api.Pod]
	ctl       *reconcile.Controller[string]

	mu      sync.Mutex
	backoff map[string]backoffRecord // by job key; guarded by mu
}

// New returns the Job controller writing through client c over the
// shared informers of f ("jobs", "pods"). Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("job: client and factory are required")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	ctl := &Controller{opts: opts, backoff: map[string]backoffRecord{}}
	wrap := func(err error) error { return fmt.Errorf("job: %w", err) }
	var err error
	if ctl.jobClient, err = client.For[*api.Job](c); err != nil {
		return nil, wrap(err)
	}
	if ctl.podClient, err = client.For[*api.Pod](c); err != nil {
		return nil, wrap(err)
	}
	if ctl.jobs, err = informer.Shared(f, ctl.jobClient.Resource(), source.ListWatcher[*api.Job](ctl.jobClient), api.Key[*api.Job],
		informer.Options[*api.Job]{Logger: opts.Logger}); err != nil {
		return nil, wrap(err)
	}
	if ctl.pods, err = informer.Shared(f, ctl.podClient.Resource(), source.ListWatcher[*api.Pod](ctl.podClient), api.Key[*api.Pod],
		informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return nil, wrap(err)
	}
	if ctl.podGate, err = reconcile.NewConsistency[string](ctl.pods, ctl.pods); err != nil {
		return nil, wrap(err)
	}
	if ctl.jobGate, err = reconcile.NewConsistency[string](ctl.jobs, ctl.jobs); err != nil {
		return nil, wrap(err)
	}
	if ctl.podWriter, err = reconcile.GatedWriter[*api.Pod](ctl.podGate, ctl.podClient, api.Key[*api.Pod]); err != nil {
		return nil, wrap(err)
	}
	if ctl.ctl, err = reconcile.New("job-controller", reconcile.Func[string](ctl.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers,
		Logger:       opts.Logger,
		Consistency:  []*reconcile.Consistency[string]{ctl.podGate, ctl.jobGate},
	}); err != nil {
		return nil, wrap(err)
	}
	if err := ctl.register(); err != nil {
		return nil, wrap(err)
	}
	return ctl, nil
}

// Run syncs jobs until ctx ends, once the informers have synced, and
// returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted) if reconciles in flight had to be cancelled.
func (ctl *Controller) Run(ctx context.Context) error { return ctl.ctl.Run(ctx) }

// register: a job's events enqueue it; a pod's events enqueue the job its
// controller reference names (the old one too, when an update changed
// it), or — for an orphan not being deleted — the jobs whose selector
// picks it, which may adopt it.
func (ctl *Controller) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: ctl.ctl.Name()}}
	if _, err := reconcile.Watch(ctl.ctl, ctl.jobs, reconcile.ByKey(api.Key[*api.Job]), opts); err != nil {
		return err
	}
	_, err := reconcile.WatchEvents(ctl.ctl, ctl.pods, reconcile.Events[*api.Pod, string]{
		Map: ctl.jobsOf,
		Update: func(old, p *api.Pod) []string {
			keys := ctl.jobsOf(p)
			if r := old.ControllerRef(); r != nil && (p.ControllerRef() == nil || p.ControllerRef().UID != r.UID) {
				keys = append(keys, ctl.jobsOf(old)...)
			}
			return keys
		},
	}, opts)
	return err
}

// jobsOf maps a pod to the job its controller reference names or, for an
// orphan not being deleted, to the jobs whose selector picks it.
func (ctl *Controller) jobsOf(p *api.Pod) []string {
	if r := p.ControllerRef(); r != nil {
		if r.Kind != "Job" {
			return nil
		}
		key := p.Namespace + "/" + r.Name
		if j, ok := ctl.jobs.Lister().Get(key); ok && managedByOther(j) {
			return nil
		}
		return []string{key}
	}
	if p.DeletionTimestamp != nil {
		return nil
	}
	var keys []string
	for _, j := range ctl.jobs.Lister().Namespace(p.Namespace).List(nil) {
		if managedByOther(j) {
			continue
		}
		if sel, err := j.Spec.Selector.AsSelector(); err == nil && j.Spec.Selector != nil && sel.Matches(p.Labels) {
			keys = append(keys, api.Key(j))
		}
	}
	return keys
}

// sync is one reconcile of the job under key: kcm's syncJob. It claims
// the job's pods, lets decide plan, and carries the plan out in the order
// that counts every finished pod exactly once: the flush status (new
// uncounted pods), the finalizer removals, then pod creates and deletes
// and the final status.
func (ctl *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	job, ok := ctl.jobs.Lister().Get(key)
	if !ok {
		ctl.forget(key)
		return reconcile.Result{}, ctl.releaseOrphans(ctx, key)
	}
	if managedByOther(job) {
		// Another controller's job: kcm skips it in its event handlers and
		// again here, as the key may have been queued for a job of the
		// same name that was not.
		ctl.forget(key)
		return reconcile.Result{}, nil
	}
	if job.Spec.Selector == nil {
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("job: %s has no selector", key))
	}
	sel, err := job.Spec.Selector.AsSelector()
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("job: %s: %w", key, err))
	}
	live := func(ctx context.Context) (api.Object, error) {
		o, _, err := ctl.jobClient.Get(ctx, key)
		return o, err
	}
	pods, err := ctrlutil.NewClaimer(job, sel, live, ctl.podWriter).Claim(ctx, ctl.pods.Lister().Namespace(job.Namespace).List(nil))
	if err != nil {
		return reconcile.Result{}, err
	}
	ctl.mu.Lock()
	rec := ctl.backoff[key]
	ctl.mu.Unlock()
	now := time.Now()
	p := decide(job, pods, rec, now, backoffs{ctl.opts.Backoff, ctl.opts.MaxBackoff})
	ref := events.Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: job.Namespace, Name: job.Name, UID: string(job.UID)}

	upd := job.DeepCopy()
	if p.flush != nil {
		if err := ctl.writeStatus(ctx, key, upd, *p.flush); err != nil {
			return reconcile.Result{}, err
		}
	}
	ctl.mu.Lock()
	ctl.backoff[key] = p.backoff
	ctl.mu.Unlock()
	if err := ctl.removeFinalizers(ctx, key, p.removeFinalizers); err != nil {
		return reconcile.Result{}, err // the uncounted pods are counted on the retry
	}
	var errs []error
	created := 0
	for _, pod := range p.creates {
		if _, err := ctl.podWriter.Create(ctx, pod); err != nil {
			ctl.opts.Recorder.Eventf(ref, events.Warning, "FailedCreate", "Error creating: %v", err)
			errs = append(errs, fmt.Errorf("job: create pod for %s: %w", key, err))
			if client.IsServerTimeout(err) {
				ctl.awaitAmbiguousCreate(ctx, key)
			}
			continue
		}
		created++
		ctl.opts.Recorder.Eventf(ref, events.Normal, "SuccessfulCreate", "Created pod: %s", pod.Name)
	}
	p.status.Active -= int32(len(p.creates) - created)
	for _, pod := range p.deletes {
		if p.releaseDeletes {
			if err := ctl.removeFinalizers(ctx, key, []*api.Pod{pod}); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		if _, err := ctl.podWriter.Delete(ctx, api.Key(pod), ""); err != nil && !errors.Is(err, source.ErrNotFound) {
			ctl.opts.Recorder.Eventf(ref, events.Warning, "FailedDelete", "Error deleting: %v", err)
			errs = append(errs, fmt.Errorf("job: delete pod %s: %w", api.Key(pod), err))
			continue
		}
		ctl.opts.Recorder.Eventf(ref, events.Normal, "SuccessfulDelete", "Deleted pod: %s", pod.Name)
	}
	if err := ctl.writeStatus(ctx, key, upd, p.status); err != nil {
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		for _, e := range p.events {
			ctl.opts.Recorder.Eventf(ref, e.typ, e.reason, "%s", e.message)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: p.requeueAfter}, nil
}

// awaitAmbiguousCreate holds the next sync of key after a pod create
// that timed out, which may or may not have been written and returned no
// resourceVersion for the gate to wait for: it reads the pods' current
// resourceVersion (a consistent list of one item, taken after the
// create) and has the gate wait until the cache is at least that new, so
// that the next sync sees the pod if it exists instead of creating
// another. If that read fails too the sync goes on ungated.
func (ctl *Controller) awaitAmbiguousCreate(ctx context.Context, key string) {
	l, err := ctl.podClient.List(ctx, source.ListOptions{Limit: 1})
	if err != nil || l.ResourceVersion == "" {
		return
	}
	_ = ctl.podGate.WroteAt(key, l.ResourceVersion)
}

// writeStatus writes st as upd's status unless it is upd's already; upd
// then holds the stored job.
func (ctl *Controller) writeStatus(ctx context.Context, key string, upd *api.Job, st api.JobStatus) error {
	if reflect.DeepEqual(upd.Status, st) {
		return nil
	}
	upd.Status = st
	rv, err := ctl.jobClient.UpdateStatus(ctx, upd)
	if err != nil {
		return fmt.Errorf("job: update status of %s: %w", key, err)
	}
	_ = ctl.jobGate.WroteKey(key, key, rv)
	return nil
}

// removeFinalizers takes FinalizerTracking from pods, each with its
// cached version as precondition, re-read once on a conflict; the writes
// are recorded in the pod gate for the sync of key.
func (ctl *Controller) removeFinalizers(ctx context.Context, key string, pods []*api.Pod) error {
	var errs []error
	for _, pod := range pods {
		cur := pod
		for attempt := 0; ; attempt++ {
			cp := cur.DeepCopy()
			if !ctrlutil.RemoveFinalizer(cp, FinalizerTracking) {
				break
			}
			rv, err := ctl.podClient.Update(ctx, cp, cp.ResourceVersion)
			if err == nil {
				// Releasing a deleted pod's last finalizer removes it: the
				// gate waits for it gone (or newer), not for rv.
				if cur.DeletionTimestamp != nil {
					_ = ctl.podGate.DeletedKey(key, api.Key(cur), rv)
				} else {
					_ = ctl.podGate.WroteKey(key, api.Key(cur), rv)
				}
				break
			}
			if errors.Is(err, source.ErrNotFound) {
				break
			}
			if !errors.Is(err, source.ErrConflict) || attempt > 0 {
				errs = append(errs, fmt.Errorf("job: remove finalizer of pod %s: %w", api.Key(pod), err))
				break
			}
			if cur, _, err = ctl.podClient.Get(ctx, api.Key(pod)); err != nil {
				if !errors.Is(err, source.ErrNotFound) {
					errs = append(errs, err)
				}
				break
			}
		}
	}
	return errors.Join(errs...)
}

// releaseOrphans removes the tracking finalizer from pods whose job
// (under key) is gone, as kcm does for pods left behind by a deleted job.
func (ctl *Controller) releaseOrphans(ctx context.Context, key string) error {
	ns, name, _ := cutKey(key)
	var orphans []*api.Pod
	for _, p := range ctl.pods.Lister().Namespace(ns).List(nil) {
		if r := p.ControllerRef(); r != nil && r.Kind == "Job" && r.Name == name && ctrlutil.HasFinalizer(p, FinalizerTracking) {
			orphans = append(orphans, p)
		}
	}
	return ctl.removeFinalizers(ctx, key, orphans)
}

func (ctl *Controller) forget(key string) {
	ctl.mu.Lock()
	delete(ctl.backoff, key)
	ctl.mu.Unlock()
	ctl.podGate.Forget(key)
	ctl.jobGate.Forget(key)
}

func cutKey(key string) (ns, name string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}
