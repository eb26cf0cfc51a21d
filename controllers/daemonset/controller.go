package daemonset

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// kcm's defaults.
const (
	// DefaultWorkers is kcm's --concurrent-daemonset-syncs.
	DefaultWorkers = 2
	// DefaultBurstReplicas bounds the pods one sync creates, and those it
	// deletes (kcm's BurstReplicas).
	DefaultBurstReplicas = 250
)

// The update strategies.
const (
	RollingUpdateStrategy = "RollingUpdate"
	OnDeleteStrategy      = "OnDelete"
)

// The events the controller records, with kcm's reasons.
const (
	ReasonSuccessfulCreate = "SuccessfulCreate"
	ReasonFailedCreate     = "FailedCreate"
	ReasonSuccessfulDelete = "SuccessfulDelete"
	ReasonFailedDelete     = "FailedDelete"
	// ReasonFailedDaemonPod: a Failed daemon pod is deleted to be replaced.
	ReasonFailedDaemonPod = "FailedDaemonPod"
	// ReasonSelectingAll: a set with an empty selector is not synced.
	ReasonSelectingAll = "SelectingAll"
)

// Options configure New. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of daemon sets synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// BurstReplicas bounds the creates and the deletes of one sync.
	// Default DefaultBurstReplicas (250); negative is an error.
	BurstReplicas int
	// ExpectationsTTL is how long a sync waits for the events of its own
	// creates and deletes before it acts on its cache anyway. Default
	// expectations.DefaultTTL (5 minutes); negative is an error.
	ExpectationsTTL time.Duration
	// Recorder receives the events (SuccessfulCreate, FailedCreate,
	// SuccessfulDelete, FailedDelete, FailedDaemonPod, SelectingAll).
	// Default: events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate() error {
	switch {
	case o.Workers < 0:
		return fmt.Errorf("daemonset: Workers %d is negative", o.Workers)
	case o.BurstReplicas < 0:
		return fmt.Errorf("daemonset: BurstReplicas %d is negative", o.BurstReplicas)
	case o.ExpectationsTTL < 0:
		return fmt.Errorf("daemonset: ExpectationsTTL %v is negative", o.ExpectationsTTL)
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.BurstReplicas == 0 {
		o.BurstReplicas = DefaultBurstReplicas
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Recorder == nil {
		o.Recorder = events.NewLog(o.Logger, component)
	}
	return nil
}

const component = "daemonset-controller"

// Controller is the DaemonSet controller. See the package documentation.
type Controller struct {
	ctl *reconcile.Controller[string]
}

// manager holds the controller's caches, writers and bookkeeping.
type manager struct {
	setClient client.Resource[*api.DaemonSet]
	revClient client.Resource[*api.ControllerRevision]
	opts      Options
	sets      *informer.Informer[*api.DaemonSet]
	pods      *informer.Informer[*api.Pod]
	nodes     *informer.Informer[*api.Node]
	revisions *informer.Informer[*api.ControllerRevision]
	podWriter source.Writer[*api.Pod]                // the pods resource, writes recorded in podGate
	revWriter source.Writer[*api.ControllerRevision] // the revisions resource, writes recorded in revGate
	podGate   *reconcile.Consistency[string]
	revGate   *reconcile.Consistency[string]
	setGate   *reconcile.Consistency[string]
	exp       *expectations.UIDTracking
	backoff   *backoff
	ctl       *reconcile.Controller[string]
	log       *slog.Logger

	gcMu   sync.Mutex
	lastGC time.Time // guarded by gcMu: the last back-off collection
}

// New returns the DaemonSet controller writing through client c over
// the shared informers of f ("daemonsets", "pods", "nodes",
// "controllerrevisions"). Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("daemonset: client and factory are required")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	m := &manager{opts: opts, log: opts.Logger.With("controller", component),
		backoff: newBackoff(FailedPodsBackoffInitial, FailedPodsBackoffMax)}
	var err error
	wrap := func(e error) (*Controller, error) { return nil, fmt.Errorf("daemonset: %w", e) }
	if m.setClient, err = client.For[*api.DaemonSet](c); err != nil {
		return wrap(err)
	}
	if m.revClient, err = client.For[*api.ControllerRevision](c); err != nil {
		return wrap(err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return wrap(err)
	}
	nodes, err := client.For[*api.Node](c)
	if err != nil {
		return wrap(err)
	}
	if m.sets, err = informer.Shared(f, m.setClient.Resource(), source.ListWatcher[*api.DaemonSet](m.setClient), api.Key[*api.DaemonSet], informer.Options[*api.DaemonSet]{Logger: opts.Logger}); err != nil {
		return wrap(err)
	}
	if m.pods, err = informer.Shared(f, pods.Resource(), source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return wrap(err)
	}
	if m.nodes, err = informer.Shared(f, nodes.Resource(), source.ListWatcher[*api.Node](nodes), api.Key[*api.Node], informer.Options[*api.Node]{Logger: opts.Logger}); err != nil {
		return wrap(err)
	}
	if m.revisions, err = informer.Shared(f, m.revClient.Resource(), source.ListWatcher[*api.ControllerRevision](m.revClient), api.Key[*api.ControllerRevision], informer.Options[*api.ControllerRevision]{Logger: opts.Logger}); err != nil {
		return wrap(err)
	}
	if m.exp, err = expectations.NewUIDTracking(expectations.Options{TTL: opts.ExpectationsTTL, Logger: m.log, Name: component}); err != nil {
		return wrap(err)
	}
	if m.podGate, err = reconcile.NewConsistency[string](m.pods, m.pods); err != nil {
		return wrap(err)
	}
	if m.revGate, err = reconcile.NewConsistency[string](m.revisions, m.revisions); err != nil {
		return wrap(err)
	}
	if m.setGate, err = reconcile.NewConsistency[string](m.sets, m.sets); err != nil {
		return wrap(err)
	}
	if m.podWriter, err = reconcile.GatedWriter[*api.Pod](m.podGate, pods, api.Key[*api.Pod]); err != nil {
		return wrap(err)
	}
	if m.revWriter, err = reconcile.GatedWriter[*api.ControllerRevision](m.revGate, m.revClient, api.Key[*api.ControllerRevision]); err != nil {
		return wrap(err)
	}
	if m.ctl, err = reconcile.New(component, reconcile.Func[string](m.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers,
		Logger:       opts.Logger,
		Consistency:  []*reconcile.Consistency[string]{m.podGate, m.revGate, m.setGate},
	}); err != nil {
		return wrap(err)
	}
	if err := m.register(); err != nil {
		return wrap(err)
	}
	return &Controller{ctl: m.ctl}, nil
}

// Run syncs daemon sets until ctx ends, once the informers have synced,
// and returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted) if reconciles in flight had to be
// cancelled. The factory's informers are the caller's: start them with
// f.Start.
func (c *Controller) Run(ctx context.Context) error { return c.ctl.Run(ctx) }

// sync is one reconcile of the daemon set under key: kcm's
// syncDaemonSet.
func (m *manager) sync(ctx context.Context, key string) (reconcile.Result, error) {
	now := time.Now()
	m.collectBackoff(now)
	ds, ok := m.sets.Lister().Get(key)
	if !ok {
		m.exp.Delete(key)
		m.podGate.Forget(key)
		m.revGate.Forget(key)
		m.setGate.Forget(key)
		return reconcile.Result{}, nil
	}
	sel, err := ds.Spec.Selector.AsSelector()
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("daemonset: %s: invalid selector: %w", key, err))
	}
	if sel.Empty() {
		m.opts.Recorder.Eventf(eventRef(ds), events.Warning, ReasonSelectingAll, "This daemon set is selecting all pods. A non-empty selector is required.")
		return reconcile.Result{}, nil
	}
	if ds.DeletionTimestamp != nil {
		// Its revisions may be going; its status cannot be trusted.
		return reconcile.Result{}, nil
	}
	nodes := m.nodes.Lister().List(nil)
	cur, old, relabelled, err := m.constructHistory(ctx, ds, sel)
	if err != nil {
		return reconcile.Result{}, err
	}
	if relabelled {
		// The relabelled pods' events enqueue the set again, and the
		// read-your-writes gate holds that sync until the cache shows
		// them; deciding now would take them for old pods.
		return reconcile.Result{}, nil
	}
	hash := cur.Labels[api.LabelControllerRevisionHash]

	claimed, err := ctrlutil.NewClaimer(ds, sel, m.liveSet(key), m.podWriter).Claim(ctx, m.pods.Lister().Namespace(ds.Namespace).List(nil))
	if err != nil {
		return reconcile.Result{}, err
	}
	v := view{ds: ds, nodes: nodes, hash: hash, burst: m.opts.BurstReplicas, now: now,
		backoff: func(node string) (time.Duration, bool) { return m.backoff.waiting(backoffKey(ds, node), now) }}
	for _, p := range claimed {
		if !(p.DeletionTimestamp != nil && isTerminal(p)) {
			v.pods = append(v.pods, p)
		}
	}

	if wait, waiting := m.exp.Remaining(key); waiting {
		// Only the status: this sync did not act on the generation.
		if _, err := m.writeStatus(ctx, ds, v, false); err != nil {
			return reconcile.Result{}, err
		}
		return reconcile.Result{RequeueAfter: wait}, nil
	}

	p := decide(v)
	for _, n := range p.backoffNext {
		m.backoff.next(backoffKey(ds, n), now)
	}
	for _, pod := range p.failed {
		node, _ := targetNodeName(pod)
		m.opts.Recorder.Eventf(eventRef(ds), events.Warning, ReasonFailedDaemonPod,
			"Found failed daemon pod %s/%s on node %s, will try to kill it", pod.Namespace, pod.Name, node)
	}
	syncErr := m.syncNodes(ctx, key, ds, p, hash)
	histErr := m.cleanupHistory(ctx, ds, old, claimed)
	recheck, stErr := m.writeStatus(ctx, ds, v, true)
	if err := errors.Join(syncErr, histErr, stErr); err != nil {
		return reconcile.Result{}, err
	}
	res := reconcile.Result{RequeueAfter: p.requeue}
	if recheck > 0 && (res.RequeueAfter == 0 || recheck < res.RequeueAfter) {
		res.RequeueAfter = recheck
	}
	return res, nil
}

// writeStatus writes the status calculateStatus finds, if it changed,
// and returns its recheck delay.
func (m *manager) writeStatus(ctx context.Context, ds *api.DaemonSet, v view, observe bool) (time.Duration, error) {
	st, recheck := calculateStatus(v, observe)
	if statusEqual(ds.Status, st) {
		return recheck, nil
	}
	cp := ds.DeepCopy()
	cp.Status = st
	rv, err := m.setClient.UpdateStatus(ctx, cp)
	if err != nil {
		return recheck, fmt.Errorf("daemonset: update status of %s: %w", api.Key(ds), err)
	}
	_ = m.setGate.WroteKey(api.Key(ds), api.Key(ds), rv)
	return recheck, nil
}

func statusEqual(a, b api.DaemonSetStatus) bool {
	return a.DesiredNumberScheduled == b.DesiredNumberScheduled && a.CurrentNumberScheduled == b.CurrentNumberScheduled &&
		a.NumberMisscheduled == b.NumberMisscheduled && a.NumberReady == b.NumberReady &&
		a.NumberAvailable == b.NumberAvailable && a.UpdatedNumberScheduled == b.UpdatedNumberScheduled &&
		a.NumberUnavailable == b.NumberUnavailable && a.ObservedGeneration == b.ObservedGeneration &&
		equalPtr(a.CollisionCount, b.CollisionCount)
}

// syncNodes performs a plan (kcm's syncNodes): expect its creates and
// deletes, create one pod per node in slow-start batches, delete the
// pods concurrently.
func (m *manager) syncNodes(ctx context.Context, key string, ds *api.DaemonSet, p plan, hash string) error {
	if len(p.create) == 0 && len(p.delete) == 0 {
		return nil
	}
	uids := make([]string, len(p.delete))
	for i, pod := range p.delete {
		uids[i] = string(pod.UID)
	}
	m.exp.ExpectDeletions(key, uids)
	m.exp.RaiseExpectations(key, len(p.create), 0)
	ref := eventRef(ds)
	var errs []error

	if len(p.create) > 0 {
		template := podTemplate(ds, hash)
		todo := make(chan string, len(p.create))
		for _, n := range p.create {
			todo <- n
		}
		ok, err := ctrlutil.SlowStartBatch(len(p.create), 1, func() error {
			t := template.DeepCopy()
			t.Spec.Affinity = pinToNode(t.Spec.Affinity, <-todo)
			pod := ctrlutil.PodFromTemplate(t, ds)
			if _, err := m.podWriter.Create(ctx, pod); err != nil {
				m.opts.Recorder.Eventf(ref, events.Warning, ReasonFailedCreate, "Error creating: %v", err)
				return err
			}
			m.opts.Recorder.Eventf(ref, events.Normal, ReasonSuccessfulCreate, "Created pod: %s", pod.Name)
			return nil
		})
		if skipped := len(p.create) - ok; skipped > 0 {
			m.exp.LowerExpectations(key, skipped, 0)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("daemonset: create pods for %s: %w", key, err))
		}
	}

	delErrs := make([]error, len(p.delete))
	var wg sync.WaitGroup
	for i, pod := range p.delete {
		wg.Go(func() {
			if _, err := m.podWriter.Delete(ctx, api.Key(pod), ""); err != nil {
				m.exp.DeletionObserved(key, string(pod.UID))
				if !errors.Is(err, source.ErrNotFound) {
					m.opts.Recorder.Eventf(ref, events.Warning, ReasonFailedDelete, "Error deleting: %v", err)
					delErrs[i] = err
				}
				return
			}
			m.opts.Recorder.Eventf(ref, events.Normal, ReasonSuccessfulDelete, "Deleted pod: %s", pod.Name)
		})
	}
	wg.Wait()
	if err := errors.Join(delErrs...); err != nil {
		errs = append(errs, fmt.Errorf("daemonset: delete pods of %s: %w", key, err))
	}
	return errors.Join(errs...)
}

// podTemplate is the template daemon pods are made from (kcm's
// CreatePodTemplate): the set's, with the daemon tolerations and the
// revision's hash label.
func podTemplate(ds *api.DaemonSet, hash string) *api.PodTemplateSpec {
	t := ds.Spec.Template.DeepCopy()
	AddDaemonTolerations(&t.Spec)
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	if hash != "" {
		t.Labels[api.LabelControllerRevisionHash] = hash
	}
	return t
}

// liveSet reads the set from the store, for the adoption check.
func (m *manager) liveSet(key string) func(context.Context) (api.Object, error) {
	return func(ctx context.Context) (api.Object, error) {
		o, _, err := m.setClient.Get(ctx, key)
		return o, err
	}
}

// collectBackoff drops stale back-off entries at most once a minute, as
// kcm's Run does on a ticker.
func (m *manager) collectBackoff(now time.Time) {
	m.gcMu.Lock()
	due := now.Sub(m.lastGC) >= time.Minute
	if due {
		m.lastGC = now
	}
	m.gcMu.Unlock()
	if due {
		m.backoff.gc(now)
	}
}

// backoffKey is the failed-pod back-off's key of (set, node).
func backoffKey(ds *api.DaemonSet, node string) string { return string(ds.UID) + "/" + node }

func isTerminal(p *api.Pod) bool {
	return p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed
}

func eventRef(obj api.Object) events.Ref {
	gvk := obj.GroupVersionKind()
	m := obj.GetObjectMeta()
	return events.Ref{APIVersion: gvk.APIVersion(), Kind: gvk.Kind, Namespace: m.Namespace, Name: m.Name, UID: string(m.UID)}
}
