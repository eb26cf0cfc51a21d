package disruption

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Component is the name the controller records events as, and its
// reconcile loop's name (kube-controller-manager's
// "disruption-controller").
const Component = "disruption-controller"

// Options configure New. The zero value is valid.
type Options struct {
	// Workers is the number of budgets synced concurrently. Default 1
	// (kcm runs one worker).
	Workers int
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles and its work queue. Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Recorder receives the events kcm records: NoPods,
	// CalculateExpectedPodCountFailed, UnmanagedPods (on budgets),
	// NotDeleted (on pods). Default: events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate() error {
	if o.Workers < 0 {
		return fmt.Errorf("disruption: Workers %d is negative", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Recorder == nil {
		o.Recorder = events.NewLog(o.Logger, Component)
	}
	return nil
}

// Controller is the disruption controller: it keeps the status of every
// PodDisruptionBudget. Create it with New, run it with Run.
type Controller struct {
	c      client.Client
	opts   Options
	pdbRes client.Resource[*api.PodDisruptionBudget]
	pdbs   *informer.Informer[*api.PodDisruptionBudget]
	pods   *informer.Informer[*api.Pod]
	rss    *informer.Informer[*api.ReplicaSet]
	deps   *informer.Informer[*api.Deployment]
	sets   *informer.Informer[*api.StatefulSet]
	rcs    *informer.Informer[*api.ReplicationController] // nil when the client does not serve them
	ctl    *reconcile.Controller[string]
	log    *slog.Logger
}

// New returns the disruption controller writing budgets' status through c,
// over the shared informers of f ("poddisruptionbudgets", "pods",
// "replicasets", "deployments", "statefulsets" and, when c serves them,
// "replicationcontrollers"). It starts nothing: start f after New, then
// Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("disruption: client and factory are required")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	d := &Controller{c: c, opts: opts, log: opts.Logger.With("controller", Component)}
	var err error
	if d.pdbRes, err = client.For[*api.PodDisruptionBudget](c); err != nil {
		return nil, fmt.Errorf("disruption: %w", err)
	}
	if d.pdbs, err = shared(f, d.pdbRes, opts.Logger); err != nil {
		return nil, err
	}
	if d.pods, err = sharedFor[*api.Pod](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if d.rss, err = sharedFor[*api.ReplicaSet](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if d.deps, err = sharedFor[*api.Deployment](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if d.sets, err = sharedFor[*api.StatefulSet](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if d.rcs, err = sharedFor[*api.ReplicationController](c, f, opts.Logger); errors.Is(err, client.ErrUnknownKind) {
		d.rcs = nil
	} else if err != nil {
		return nil, err
	}
	if d.ctl, err = reconcile.New(Component, reconcile.Func[string](d.sync), reconcile.Options[string]{
		Workers: opts.Workers, Logger: opts.Logger, Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics,
	}); err != nil {
		return nil, fmt.Errorf("disruption: %w", err)
	}
	if err := d.register(); err != nil {
		return nil, fmt.Errorf("disruption: %w", err)
	}
	return d, nil
}

func sharedFor[T api.Object](c client.Client, f *informer.Factory, log *slog.Logger) (*informer.Informer[T], error) {
	res, err := client.For[T](c)
	if err != nil {
		return nil, fmt.Errorf("disruption: %w", err)
	}
	return shared(f, res, log)
}

func shared[T api.Object](f *informer.Factory, res client.Resource[T], log *slog.Logger) (*informer.Informer[T], error) {
	inf, err := informer.Shared(f, res.Resource(), source.ListWatcher[T](res), api.Key[T], informer.Options[T]{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("disruption: %w", err)
	}
	return inf, nil
}

// Run syncs budgets until ctx ends, once the informers have synced, and
// returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted). The factory's informers are the caller's.
func (d *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("disruption: Run: context is nil")
	}
	return d.ctl.Run(ctx)
}

// register wires the events: a budget's events enqueue it; a pod's events
// enqueue the budgets whose selector picks it (before and after a label
// change). The workload informers are caches read for the scale, with no
// handler, as kcm's; Run waits for them.
func (d *Controller) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: d.ctl.Name()}}
	if _, err := reconcile.WatchEvents(d.ctl, d.pdbs, reconcile.Events[*api.PodDisruptionBudget, string]{
		Map: reconcile.ByKey(api.Key[*api.PodDisruptionBudget]),
	}, opts); err != nil {
		return err
	}
	if _, err := reconcile.WatchEvents(d.ctl, d.pods, reconcile.Events[*api.Pod, string]{
		Map: d.budgetsOf,
		Update: func(old, cur *api.Pod) []string {
			if old.ResourceVersion == cur.ResourceVersion {
				return nil
			}
			return append(d.budgetsOf(cur), d.budgetsOf(old)...)
		},
	}, opts); err != nil {
		return err
	}
	checks := []func() bool{d.rss.HasSynced, d.deps.HasSynced, d.sets.HasSynced}
	if d.rcs != nil {
		checks = append(checks, d.rcs.HasSynced)
	}
	for _, synced := range checks {
		if err := d.ctl.AddSyncCheck(synced); err != nil {
			return err
		}
	}
	return nil
}

// budgetsOf returns the keys of the budgets of p's namespace whose
// selector picks p (kcm's getPdbForPod enqueues only the first by name;
// every one is enqueued here).
func (d *Controller) budgetsOf(p *api.Pod) []string {
	var keys []string
	for _, b := range d.pdbs.Lister().Namespace(p.Namespace).List(nil) {
		sel, err := b.Spec.Selector.AsSelector()
		if err != nil || !sel.Matches(p.Labels) {
			continue
		}
		keys = append(keys, api.Key(b))
	}
	return keys
}

// sync is one reconcile of the budget under key: kcm's sync. A failure to
// compute the status writes FailSafe's status (and is not retried until
// the budget or its pods change, as kcm); a failed write of the status is
// retried with backoff.
func (d *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	pdb, ok := d.pdbs.Lister().Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	now := time.Now()
	pods, err := d.podsOf(pdb)
	var dec Decision
	if err != nil {
		d.opts.Recorder.Eventf(ref(pdb), events.Warning, EventNoPods, "Failed to get pods: %v", err)
		dec.Err = err
	} else {
		dec = Decide(pdb, pods, d.scale(ctx), now)
		for _, e := range dec.Events {
			typ, r := events.Normal, ref(pdb)
			if e.Warning {
				typ = events.Warning
			}
			if e.Pod != nil {
				r = ref(e.Pod)
			}
			d.opts.Recorder.Event(r, typ, e.Reason, e.Message)
		}
	}
	if dec.Err != nil {
		d.log.Warn("disruption: failed to sync budget", "pdb", key, "err", dec.Err)
		// As kcm: once the fail-safe status is written the budget waits
		// for its next event; only a failed write is retried.
		return reconcile.Result{}, d.writeStatus(ctx, pdb, FailSafe(pdb, dec.Err, now))
	}
	if dec.Write {
		if err := d.writeStatus(ctx, pdb, dec.Status); err != nil {
			return reconcile.Result{}, err
		}
	}
	if !dec.Recheck.IsZero() {
		return reconcile.Result{RequeueAfter: max(dec.Recheck.Sub(now), time.Nanosecond)}, nil
	}
	return reconcile.Result{}, nil
}

func (d *Controller) writeStatus(ctx context.Context, pdb *api.PodDisruptionBudget, st api.PodDisruptionBudgetStatus) error {
	next := pdb.DeepCopy()
	next.Status = st
	if _, err := d.pdbRes.UpdateStatus(ctx, next); err != nil && !client.IsNotFound(err) {
		return fmt.Errorf("disruption: update status of %s: %w", api.Key(pdb), err)
	}
	return nil
}

// podsOf returns the pods of pdb's namespace its selector picks (a nil
// selector picks none, an empty one every pod).
func (d *Controller) podsOf(pdb *api.PodDisruptionBudget) ([]*api.Pod, error) {
	sel, err := pdb.Spec.Selector.AsSelector()
	if err != nil {
		return nil, err
	}
	return d.pods.Lister().Namespace(pdb.Namespace).List(func(p *api.Pod) bool { return sel.Matches(p.Labels) }), nil
}

// scale resolves a controller reference as kcm's finders, in order: a
// ReplicaSet not controlled by a Deployment; the Deployment of a
// ReplicaSet (groups apps or extensions); a ReplicationController; a StatefulSet; any other kind the
// client serves with a scale subresource (read live). Each checks the
// UID of the reference.
func (d *Controller) scale(ctx context.Context) ScaleFunc {
	return func(r api.OwnerReference, ns string) (api.UID, int32, bool, error) {
		key := api.NamespacedKey(ns, r.Name)
		group := groupOf(r.APIVersion)
		switch {
		case r.Kind == "ReplicaSet" && (group == "apps" || group == "extensions"):
			rs, ok := d.rss.Lister().Get(key)
			if !ok || rs.UID != r.UID {
				return "", 0, false, nil
			}
			if owner := rs.ControllerRef(); owner != nil && owner.Kind == "Deployment" {
				if g := groupOf(owner.APIVersion); g != "apps" && g != "extensions" {
					return "", 0, false, nil
				}
				dep, ok := d.deps.Lister().Get(api.NamespacedKey(ns, owner.Name))
				if !ok || dep.UID != owner.UID {
					return "", 0, false, nil
				}
				return dep.UID, replicas(dep.Spec.Replicas), true, nil
			}
			return rs.UID, replicas(rs.Spec.Replicas), true, nil
		case r.Kind == "ReplicationController" && group == "" && d.rcs != nil:
			rc, ok := d.rcs.Lister().Get(key)
			if !ok || rc.UID != r.UID {
				return "", 0, false, nil
			}
			return rc.UID, replicas(rc.Spec.Replicas), true, nil
		case r.Kind == "StatefulSet" && group == "apps":
			ss, ok := d.sets.Lister().Get(key)
			if !ok || ss.UID != r.UID {
				return "", 0, false, nil
			}
			return ss.UID, replicas(ss.Spec.Replicas), true, nil
		}
		return d.genericScale(ctx, r, key)
	}
}

// scaler is the scale subresource of any Resource[T].
type scaler interface {
	GetScale(ctx context.Context, key string) (*api.Scale, error)
}

// genericScale reads the scale subresource of the referenced object
// (kcm's getScaleController); a kind the client does not serve, or one
// without a scale, is an error, as a missing object is "not found".
func (d *Controller) genericScale(ctx context.Context, r api.OwnerReference, key string) (api.UID, int32, bool, error) {
	gvk := api.GroupVersionKind{Group: groupOf(r.APIVersion), Version: versionOf(r.APIVersion), Kind: r.Kind}
	u, err := d.c.ResourceFor(gvk)
	if err != nil {
		return "", 0, false, fmt.Errorf("disruption: controller %s %s: %w", gvk, key, err)
	}
	s, ok := u.(scaler)
	if !ok {
		return "", 0, false, fmt.Errorf("disruption: %s has no scale subresource: %w", u.Resource(), source.ErrUnsupported)
	}
	sc, err := s.GetScale(ctx, key)
	switch {
	case client.IsNotFound(err):
		return "", 0, false, nil
	case err != nil:
		return "", 0, false, err
	case sc.UID != r.UID:
		return "", 0, false, nil
	}
	return sc.UID, sc.Spec.Replicas, true, nil
}

func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

func groupOf(apiVersion string) string {
	for i := range len(apiVersion) {
		if apiVersion[i] == '/' {
			return apiVersion[:i]
		}
	}
	return ""
}

func versionOf(apiVersion string) string {
	for i := range len(apiVersion) {
		if apiVersion[i] == '/' {
			return apiVersion[i+1:]
		}
	}
	return apiVersion
}

func ref(obj api.Object) events.Ref {
	gvk := obj.GroupVersionKind()
	m := obj.GetObjectMeta()
	return events.Ref{APIVersion: gvk.APIVersion(), Kind: gvk.Kind, Namespace: m.Namespace, Name: m.Name, UID: string(m.UID)}
}
