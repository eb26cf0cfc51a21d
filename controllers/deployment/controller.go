package deployment

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// Options configure a Controller. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of Deployments synced at once. Default 5,
	// kcm's --concurrent-deployment-syncs.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// Recorder receives the ScalingReplicaSet and warning events.
	// Default: none.
	Recorder events.Recorder
}

func (o Options) validate() (Options, error) {
	if o.Workers < 0 {
		return o, errors.New("deployment: Options.Workers is negative")
	}
	if o.Workers == 0 {
		o.Workers = 5
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o, nil
}

// Controller rolls Deployments out through ReplicaSets. Make one with
// New; Run it once.
type Controller struct {
	dClient     client.Resource[*api.Deployment]
	rsClient    client.Resource[*api.ReplicaSet]
	opts        Options
	ctl         *reconcile.Controller[string]
	deployments informer.Lister[*api.Deployment]
	replicaSets informer.Lister[*api.ReplicaSet]
	pods        informer.Lister[*api.Pod]
	rsWriter    source.Writer[*api.ReplicaSet] // rsClient behind the read-your-writes gate
}

// Informer names in the factory, shared with other controllers that ask
// for the same kinds under the same names.
const (
	deploymentsInformer = "deployments"
	replicaSetsInformer = "replicasets"
	podsInformer        = "pods"
)

// New returns a Deployment controller writing through client c, reading
// through shared informers of f (deployments, replicasets and pods),
// which the caller starts (f.Start) and shuts down. It starts nothing.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("deployment: New: client and factory are required")
	}
	opts, err := opts.validate()
	if err != nil {
		return nil, err
	}
	deployments, err := client.For[*api.Deployment](c)
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	replicaSets, err := client.For[*api.ReplicaSet](c)
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	dInf, err := informer.Shared(f, deploymentsInformer, source.ListWatcher[*api.Deployment](deployments), api.Key[*api.Deployment], informer.Options[*api.Deployment]{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	rsInf, err := informer.Shared(f, replicaSetsInformer, source.ListWatcher[*api.ReplicaSet](replicaSets), api.Key[*api.ReplicaSet], informer.Options[*api.ReplicaSet]{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	podInf, err := informer.Shared(f, podsInformer, source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	gate, err := reconcile.NewConsistency[string](rsInf, rsInf)
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	rsWriter, err := reconcile.GatedWriter[*api.ReplicaSet, string](gate, replicaSets, api.Key[*api.ReplicaSet])
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	dc := &Controller{
		dClient:     deployments,
		rsClient:    replicaSets,
		opts:        opts,
		deployments: dInf.Lister(),
		replicaSets: rsInf.Lister(),
		pods:        podInf.Lister(),
		rsWriter:    rsWriter,
	}
	dc.ctl, err = reconcile.New("deployment", reconcile.Func[string](dc.Reconcile), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers,
		Logger:       opts.Logger,
		Consistency:  []*reconcile.Consistency[string]{gate},
	})
	if err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	if _, err := reconcile.Watch(dc.ctl, dInf, reconcile.ByKey(api.Key[*api.Deployment]), reconcile.WatchOptions{}); err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	if _, err := reconcile.Watch(dc.ctl, rsInf, dc.deploymentsOf, reconcile.WatchOptions{}); err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	// A pod's deletion may be the last old pod of a Recreate rollout
	// going (kcm's deletePod); other pod events change ReplicaSets'
	// status, which the ReplicaSet controller reports.
	if _, err := reconcile.WatchEvents(dc.ctl, podInf, reconcile.Events[*api.Pod, string]{Delete: dc.deploymentOfPod}, reconcile.WatchOptions{}); err != nil {
		return nil, fmt.Errorf("deployment: %w", err)
	}
	return dc, nil
}

// Run syncs Deployments until ctx ends, and returns once every worker
// has exited: ctx's error after a clean drain, or the drain's error (it
// wraps reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted) if
// reconciles in flight had to be cancelled. It waits for the informers
// to sync first.
func (dc *Controller) Run(ctx context.Context) error { return dc.ctl.Run(ctx) }

// deploymentsOf maps a ReplicaSet to its controlling Deployment, or, for
// an orphan, to every Deployment of its namespace whose selector picks it
// (kcm's getDeploymentsForReplicaSet), so one of them can adopt it.
func (dc *Controller) deploymentsOf(rs *api.ReplicaSet) []string {
	if ref := rs.ControllerRef(); ref != nil {
		if ref.Kind != "Deployment" {
			return nil
		}
		return []string{api.NamespacedKey(rs.Namespace, ref.Name)}
	}
	var keys []string
	for _, d := range dc.deployments.Namespace(rs.Namespace).List(nil) {
		sel, err := d.Spec.Selector.AsSelector()
		if err != nil || sel.Empty() {
			continue
		}
		if sel.Matches(rs.Labels) {
			keys = append(keys, api.Key(d))
		}
	}
	return keys
}

// deploymentOfPod maps a pod to the Recreate Deployment that controls its
// ReplicaSet.
func (dc *Controller) deploymentOfPod(p *api.Pod) []string {
	ref := p.ControllerRef()
	if ref == nil || ref.Kind != "ReplicaSet" {
		return nil
	}
	rs, ok := dc.replicaSets.Get(api.NamespacedKey(p.Namespace, ref.Name))
	if !ok || rs.UID != ref.UID {
		return nil
	}
	keys := dc.deploymentsOf(rs)
	if len(keys) != 1 {
		return nil
	}
	if d, ok := dc.deployments.Get(keys[0]); ok && d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType {
		return keys
	}
	return nil
}

// Reconcile syncs the Deployment stored under key ("namespace/name"): it
// claims the ReplicaSets, calls Decide and carries out its Plan.
func (dc *Controller) Reconcile(ctx context.Context, key string) (reconcile.Result, error) {
	d, ok := dc.deployments.Get(key)
	if !ok {
		return reconcile.Result{}, nil // deleted: the garbage collector removes its ReplicaSets
	}
	owned, err := dc.claim(ctx, d)
	if err != nil {
		return reconcile.Result{}, err
	}
	var pods []*api.Pod
	if d.Spec.Strategy.Type == api.RecreateDeploymentStrategyType {
		uids := map[api.UID]bool{}
		for _, rs := range owned {
			uids[rs.UID] = true
		}
		pods = dc.pods.Namespace(d.Namespace).List(func(p *api.Pod) bool {
			ref := p.ControllerRef()
			return ref != nil && uids[ref.UID]
		})
	}
	plan, err := Decide(d, owned, pods, time.Now())
	if err != nil {
		dc.record(d, Event{Warning: true, Reason: "InvalidStrategy", Message: err.Error()})
		return reconcile.Result{}, reconcile.Terminal(err)
	}
	return dc.apply(ctx, d, plan)
}

// claim lists the ReplicaSets of d's namespace and adopts or releases
// them (kcm's getReplicaSetsForDeployment).
func (dc *Controller) claim(ctx context.Context, d *api.Deployment) ([]*api.ReplicaSet, error) {
	sel, err := d.Spec.Selector.AsSelector()
	if err != nil {
		return nil, reconcile.Terminal(fmt.Errorf("deployment: %s: selector: %w", api.Key(d), err))
	}
	if sel.Empty() {
		return nil, nil // Decide warns about it
	}
	rss := dc.replicaSets.Namespace(d.Namespace).List(nil)
	live := func(ctx context.Context) (api.Object, error) {
		fresh, _, err := dc.dClient.Get(ctx, api.Key(d))
		if err != nil {
			return nil, err
		}
		return fresh, nil
	}
	return ctrlutil.NewClaimer[*api.ReplicaSet](d, sel, live, dc.rsWriter).Claim(ctx, rss)
}

// apply carries out a Plan.
func (dc *Controller) apply(ctx context.Context, d *api.Deployment, p Plan) (reconcile.Result, error) {
	if p.Create != nil {
		if done, err := dc.create(ctx, d, p.Create); !done {
			return reconcile.Result{}, err
		}
	}
	for _, rs := range p.Update {
		if _, err := dc.rsWriter.Update(ctx, rs, rs.ResourceVersion); err != nil {
			return reconcile.Result{}, fmt.Errorf("deployment: %s: updating replica set %s: %w", api.Key(d), rs.Name, err)
		}
	}
	for _, rs := range p.Delete {
		if _, err := dc.rsWriter.Delete(ctx, api.Key(rs), rs.ResourceVersion); err != nil && !errors.Is(err, source.ErrNotFound) {
			return reconcile.Result{}, fmt.Errorf("deployment: %s: deleting old replica set %s: %w", api.Key(d), rs.Name, err)
		}
	}
	for _, e := range p.Events {
		dc.record(d, e)
	}
	cur := d.DeepCopy()
	if p.Status != nil {
		cur.Status = *p.Status
		if _, err := dc.dClient.UpdateStatus(ctx, cur); err != nil {
			return reconcile.Result{}, fmt.Errorf("deployment: %s: updating status: %w", api.Key(d), err)
		}
	}
	if p.Revision != "" {
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		cur.Annotations[api.AnnotationDeploymentRevision] = p.Revision
		if _, err := dc.dClient.Update(ctx, cur, cur.ResourceVersion); err != nil {
			return reconcile.Result{}, fmt.Errorf("deployment: %s: setting revision: %w", api.Key(d), err)
		}
	}
	return reconcile.Result{RequeueAfter: p.RequeueAfter}, nil
}

// create creates the new ReplicaSet; done is false when the sync must
// stop (with err, or for the event of a ReplicaSet the cache lacks). A
// name taken by a ReplicaSet with another template is a hash collision:
// the collision count goes up and the next sync picks another name
// (kcm's getNewReplicaSet).
func (dc *Controller) create(ctx context.Context, d *api.Deployment, rs *api.ReplicaSet) (done bool, err error) {
	_, err = dc.rsWriter.Create(ctx, rs)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, source.ErrAlreadyExists):
		existing, _, gerr := dc.rsClient.Get(ctx, api.Key(rs))
		if gerr == nil && api.IsControlledBy(existing, d) && equalIgnoreHash(&existing.Spec.Template, &d.Spec.Template) {
			return false, nil // ours: its event is on the way and syncs d again
		}
		cur := d.DeepCopy()
		n := int32(0)
		if cur.Status.CollisionCount != nil {
			n = *cur.Status.CollisionCount
		}
		n++
		cur.Status.CollisionCount = &n
		if _, uerr := dc.dClient.UpdateStatus(ctx, cur); uerr != nil {
			return false, errors.Join(err, uerr)
		}
		return false, fmt.Errorf("deployment: %s: hash collision on %s: %w", api.Key(d), rs.Name, err)
	}
	msg := fmt.Sprintf("Failed to create new replica set %q: %v", rs.Name, err)
	dc.record(d, Event{Warning: true, Reason: ReasonReplicaSetCreateError, Message: msg})
	if hasProgressDeadline(d) {
		cur := d.DeepCopy()
		setCondition(&cur.Status, newCondition(ConditionProgressing, api.ConditionFalse, ReasonReplicaSetCreateError, msg, time.Now().Truncate(time.Second)))
		_, _ = dc.dClient.UpdateStatus(ctx, cur)
	}
	return false, fmt.Errorf("deployment: %s: %s: %w", api.Key(d), msg, err)
}

func (dc *Controller) record(d *api.Deployment, e Event) {
	if dc.opts.Recorder == nil {
		return
	}
	typ := events.Normal
	if e.Warning {
		typ = events.Warning
	}
	dc.opts.Recorder.Event(events.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: d.Namespace, Name: d.Name, UID: string(d.UID)}, typ, e.Reason, e.Message)
}
