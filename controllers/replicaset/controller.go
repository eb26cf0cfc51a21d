package replicaset

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
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is the default number of owners synced concurrently:
// kube-controller-manager's --concurrent-replicaset-syncs.
const DefaultWorkers = 5

// Options configure New and NewReplicationManager. The zero value is
// valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of owners synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// BurstReplicas bounds the pods one sync creates or deletes.
	// Default DefaultBurstReplicas (500); negative is an error.
	BurstReplicas int
	// ExpectationsTTL is how long a sync waits for the events of its
	// own creates and deletes before it acts on its cache anyway.
	// Default expectations.DefaultTTL (5 minutes); negative is an error.
	ExpectationsTTL time.Duration
	// Recorder receives the events kube-controller-manager records:
	// SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete.
	// Default: events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate(component string) error {
	switch {
	case o.Workers < 0:
		return fmt.Errorf("replicaset: Workers %d is negative", o.Workers)
	case o.BurstReplicas < 0:
		return fmt.Errorf("replicaset: BurstReplicas %d is negative", o.BurstReplicas)
	case o.ExpectationsTTL < 0:
		return fmt.Errorf("replicaset: ExpectationsTTL %v is negative", o.ExpectationsTTL)
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

// Controller is a replication manager: the ReplicaSet controller (New)
// or the ReplicationController manager (NewReplicationManager). See the
// package documentation.
type Controller struct {
	ctl *reconcile.Controller[string]
}

// New returns the ReplicaSet controller writing through client c over
// the shared informers of f (named after the resources: "replicasets",
// "pods"). Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("replicaset: client and factory are required")
	}
	k, err := replicaSetKind(c)
	if err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	return newController(c, f, k, "replicaset-controller", opts)
}

// NewReplicationManager returns the ReplicationController manager
// writing through client c over the shared informers of f
// ("replicationcontrollers", "pods"): the same code as New, for the
// map-selector kind.
func NewReplicationManager(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("replicaset: client and factory are required")
	}
	k, err := replicationControllerKind(c)
	if err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	return newController(c, f, k, "replication-controller", opts)
}

// Run syncs owners until ctx ends, once the informers have synced, and
// returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted) if reconciles in flight had to be
// cancelled. The factory's informers are the caller's: start them with
// f.Start.
func (c *Controller) Run(ctx context.Context) error { return c.ctl.Run(ctx) }

// manager is the replication manager of one kind.
type manager[T api.Object] struct {
	kind      kind[T]
	opts      Options
	owners    *informer.Informer[T]
	pods      *informer.Informer[*api.Pod]
	podWriter source.Writer[*api.Pod] // the pod store, its writes recorded in podGate
	podGate   *reconcile.Consistency[string]
	ownerGate *reconcile.Consistency[string]
	exp       *expectations.UIDTracking
	tally     *tally // the counts of each owner's pods, kept by the pod events
	ctl       *reconcile.Controller[string]
	log       *slog.Logger
}

func newController[T api.Object](c client.Client, f *informer.Factory, k kind[T], component string, opts Options) (*Controller, error) {
	m, err := newManager(c, f, k, component, opts)
	if err != nil {
		return nil, err
	}
	return &Controller{ctl: m.ctl}, nil
}

func newManager[T api.Object](c client.Client, f *informer.Factory, k kind[T], component string, opts Options) (*manager[T], error) {
	if err := opts.validate(component); err != nil {
		return nil, err
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	m := &manager[T]{kind: k, opts: opts, log: opts.Logger.With("controller", component), tally: newTally(k.name)}
	if m.owners, err = informer.Shared(f, k.store.Resource(), source.ListWatcher[T](k.store), api.Key[T], informer.Options[T]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if m.pods, err = informer.Shared(f, pods.Resource(), source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	// kube-controller-manager's AddPodControllerIndexer: an owner's sync
	// reads its pods and the orphans of its namespace from the index
	// instead of walking the namespace. The RS and RC managers share the
	// index; the second finds the name taken.
	if err := m.pods.AddIndexers(indexer.Indexers[*api.Pod]{podControllerIndex: podControllerValues}); err != nil && !errors.Is(err, indexer.ErrIndexExists) {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if m.exp, err = expectations.NewUIDTracking(expectations.Options{TTL: opts.ExpectationsTTL, Logger: m.log, Name: component}); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if m.podGate, err = reconcile.NewConsistency[string](m.pods, m.pods); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if m.ownerGate, err = reconcile.NewConsistency[string](m.owners, m.owners); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if m.podWriter, err = reconcile.GatedWriter[*api.Pod](m.podGate, pods, api.Key[*api.Pod]); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if m.ctl, err = reconcile.New(component, reconcile.Func[string](m.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers,
		Logger:       opts.Logger,
		Consistency:  []*reconcile.Consistency[string]{m.podGate, m.ownerGate},
	}); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	if err := m.register(); err != nil {
		return nil, fmt.Errorf("replicaset: %w", err)
	}
	return m, nil
}

// sync is one reconcile of the owner under key: kube-controller-manager's
// syncReplicaSet. It reads the owner and its pods from the informers,
// adopts and releases pods, lets manage decide the creates and deletes
// when the expectations allow, performs them, and writes the status if
// it changed.
func (m *manager[T]) sync(ctx context.Context, key string) (reconcile.Result, error) {
	owner, ok := m.owners.Lister().Get(key)
	if !ok { // deleted: nothing to keep, nothing to wait for
		m.exp.Delete(key)
		m.podGate.Forget(key)
		m.ownerGate.Forget(key)
		return reconcile.Result{}, nil
	}
	sp, err := m.kind.spec(owner)
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("replicaset: %s %s: %w", m.kind.name, key, err))
	}
	meta := owner.GetObjectMeta()
	wait, waiting := m.exp.Remaining(key)
	needsSync := !waiting && meta.DeletionTimestamp == nil

	now := time.Now()
	claimed, counts, terminating, counted, err := m.claim(ctx, key, owner, sp, now, needsSync)
	if err != nil {
		return reconcile.Result{}, err
	}

	var manageErr error
	if needsSync && !counted {
		related := func() []*api.Pod {
			return m.relatedPods(owner, m.pods.Lister().Namespace(meta.Namespace).List(nil))
		}
		create, del := manage(sp.replicas, claimed, related, m.opts.BurstReplicas, now)
		switch {
		case create > 0:
			manageErr = m.createPods(ctx, key, owner, sp.template, create)
		case len(del) > 0:
			manageErr = m.deletePods(ctx, key, owner, del)
		}
	}

	st, recheck := counts.status(m.kind.status(owner), manageErr)
	// status.terminatingReplicas (DeploymentReplicaSetTerminatingReplicas,
	// beta and on by default since v1.35): the owner's pods being deleted
	// that are not yet terminal (FilterTerminatingPods, FilterClaimedPods).
	// A ReplicationController's status has no such field.
	if _, isRS := any(owner).(*api.ReplicaSet); isRS {
		st.TerminatingReplicas = new(terminating)
	}
	if !statusEqual(m.kind.status(owner), st) {
		rv, err := m.kind.store.UpdateStatus(ctx, m.kind.withStatus(owner, st))
		if err != nil {
			return reconcile.Result{}, errors.Join(manageErr, fmt.Errorf("replicaset: update status of %s %s: %w", m.kind.name, key, err))
		}
		_ = m.ownerGate.WroteKey(key, key, rv)
	}
	if manageErr != nil {
		return reconcile.Result{}, manageErr
	}
	var res reconcile.Result
	if waiting {
		res.RequeueAfter = wait
	}
	if recheck > 0 && (res.RequeueAfter == 0 || recheck < res.RequeueAfter) {
		res.RequeueAfter = recheck
	}
	return res, nil
}

// createPods creates n pods from template in slow-start batches,
// expecting their creations first and lowering the expectations by the
// creates that failed or were skipped.
func (m *manager[T]) createPods(ctx context.Context, key string, owner T, template *api.PodTemplateSpec, n int) error {
	m.exp.ExpectCreations(key, n)
	ref := eventRef(owner)
	ok, err := ctrlutil.SlowStartBatch(n, 1, func() error {
		pod := ctrlutil.PodFromTemplate(template, owner)
		if _, err := m.podWriter.Create(ctx, pod); err != nil {
			m.opts.Recorder.Eventf(ref, events.Warning, ReasonFailedCreate, "Error creating: %v", err)
			return err
		}
		m.opts.Recorder.Eventf(ref, events.Normal, "SuccessfulCreate", "Created pod: %s", pod.Name)
		return nil
	})
	if skipped := n - ok; skipped > 0 {
		m.exp.LowerExpectations(key, skipped, 0)
	}
	if err != nil {
		return fmt.Errorf("replicaset: create pods for %s %s: %w", m.kind.name, key, err)
	}
	return nil
}

// deletePods deletes pods concurrently, expecting their deletions by UID
// first. A pod already gone counts as deleted and is no error.
func (m *manager[T]) deletePods(ctx context.Context, key string, owner T, pods []*api.Pod) error {
	uids := make([]string, len(pods))
	for i, p := range pods {
		uids[i] = string(p.UID)
	}
	m.exp.ExpectDeletions(key, uids)
	ref := eventRef(owner)
	errs := make([]error, len(pods))
	var wg sync.WaitGroup
	for i, p := range pods {
		wg.Go(func() {
			if _, err := m.podWriter.Delete(ctx, api.Key(p), ""); err != nil {
				m.exp.DeletionObserved(key, string(p.UID)) // no event will come for it
				if !errors.Is(err, source.ErrNotFound) {
					m.opts.Recorder.Eventf(ref, events.Warning, ReasonFailedDelete, "Error deleting: %v", err)
					errs[i] = err
				}
				return
			}
			m.opts.Recorder.Eventf(ref, events.Normal, "SuccessfulDelete", "Deleted pod: %s", p.Name)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("replicaset: delete pods of %s %s: %w", m.kind.name, key, err)
	}
	return nil
}

// relatedPods returns the pods of owner and of the owners that share its
// controller (the ReplicaSets of one Deployment), which rank deletions
// by how crowded their node is: kube-controller-manager's
// getIndirectlyRelatedPods. An owner without a controller has none.
func (m *manager[T]) relatedPods(owner T, nsPods []*api.Pod) []*api.Pod {
	ref := owner.GetObjectMeta().ControllerRef()
	if ref == nil {
		return nil
	}
	var sels []api.Selector
	for _, o := range m.owners.Lister().Namespace(owner.GetObjectMeta().Namespace).List(nil) {
		if r := o.GetObjectMeta().ControllerRef(); r == nil || r.UID != ref.UID {
			continue
		}
		if sp, err := m.kind.spec(o); err == nil {
			sels = append(sels, sp.selector)
		}
	}
	var out []*api.Pod
	for _, p := range nsPods {
		for _, s := range sels {
			if s.Matches(p.Labels) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

func eventRef(obj api.Object) events.Ref {
	gvk := obj.GroupVersionKind()
	m := obj.GetObjectMeta()
	return events.Ref{APIVersion: gvk.APIVersion(), Kind: gvk.Kind, Namespace: m.Namespace, Name: m.Name, UID: string(m.UID)}
}

// podControllerIndex indexes pods by their controller, as
// kube-controller-manager's PodControllerIndex does: a controlled pod
// under its controller's UID, an orphan under its namespace followed by
// "/" (no UID has a "/"; kube keys both by namespace, kind, name and UID,
// which ownedAndOrphans checks on the pods the index returns).
const podControllerIndex = "podController"

func podControllerValues(p *api.Pod) ([]string, error) {
	if ref := p.ControllerRef(); ref != nil {
		return []string{string(ref.UID)}, nil
	}
	return []string{p.Namespace + "/"}, nil
}

// claim walks the pods the owner controls and the orphans of its
// namespace once (kube's FilterPodsByOwner with orphans, then
// FilterActivePods, ClaimPods, calculateStatus and FilterTerminatingPods
// in one pass): it returns the active pods the owner controls once it
// has adopted and released (ctrlutil.Claimer's rules), their status
// counts at now, and how many of its pods the selector picks are
// terminating. The pods it returns reuse the slice the index lookup
// allocated, so a sync allocates one slice of pods and nothing per pod
// it keeps.
//
// When the owner's tally is current, no orphan can be adopted, no pod
// is to be released, availability does not depend on time
// (minReadySeconds 0) and — if the sync may create or delete (manage) —
// the owner has as many claimed pods as it wants, the walk would adopt,
// release, create and delete nothing: claim then returns the tally's
// counts without walking the pods, claimed nil and counted true (the
// sync has nothing to manage).
func (m *manager[T]) claim(ctx context.Context, key string, owner T, sp spec, now time.Time, manage bool) (claimed []*api.Pod, counts *statusCounter, terminating int32, counted bool, err error) {
	return m.claimWith(ctx, m.tally, key, owner, sp, now, manage)
}

// claimWith is claim with tally t.
func (m *manager[T]) claimWith(ctx context.Context, t *tally, key string, owner T, sp spec, now time.Time, manage bool) (claimed []*api.Pod, counts *statusCounter, terminating int32, counted bool, err error) {
	meta := owner.GetObjectMeta()
	lister := m.pods.Lister()
	orphans, err := lister.ByIndex(podControllerIndex, meta.Namespace+"/")
	if err != nil {
		return nil, nil, 0, false, err
	}
	n, err := lister.IndexLen(podControllerIndex, string(meta.UID))
	if err != nil {
		return nil, nil, 0, false, err
	}
	tc, state := t.current(owner, sp, n)
	if state == tallyCurrent && tc.release == 0 && sp.minReadySeconds == 0 &&
		(!manage || int(tc.claimed) == sp.replicas) && !m.anyAdoptable(owner, sp, orphans) {
		counts = newStatusCounter(sp, now)
		counts.replicas, counts.fullyLabeled, counts.ready, counts.available = tc.claimed, tc.labeled, tc.ready, tc.ready
		return nil, counts, tc.terminating, true, nil
	}
	var b *ownerTally
	if state == tallyStale {
		// Installed before the pods are read, so that no event handled
		// meanwhile is lost (tally.begin).
		b = t.begin(owner, sp)
	}
	owned, err := lister.ByIndex(podControllerIndex, string(meta.UID))
	if err != nil {
		return nil, nil, 0, false, err
	}
	if b != nil {
		t.finish(b, owned)
	}
	live := func(ctx context.Context) (api.Object, error) {
		o, _, err := m.kind.store.Get(ctx, key)
		return o, err
	}
	claimer := ctrlutil.NewClaimer(owner, sp.selector, live, m.podWriter)
	counts = newStatusCounter(sp, now)
	var errs []error
	visit := func(p *api.Pod) {
		if !isActive(p) {
			return
		}
		got, ok, err := claimer.ClaimOne(ctx, p)
		if err != nil {
			errs = append(errs, err)
		}
		if ok {
			claimed = append(claimed, got)
			counts.add(got)
		}
	}
	// Filtering in place is safe: claimed never grows past the pod the
	// loop reads.
	claimed = owned[:0]
	for _, p := range owned {
		// The index holds the controller's UID; kube's also holds its
		// namespace, kind and name, which are checked here.
		if ref := p.ControllerRef(); p.Namespace != meta.Namespace || ref.Kind != m.kind.name || ref.Name != meta.Name {
			continue
		}
		if isTerminating(p) && sp.selector.Matches(p.Labels) {
			terminating++
			continue
		}
		visit(p)
	}
	for _, p := range orphans {
		visit(p)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, nil, 0, false, err
	}
	return claimed, counts, terminating, false, nil
}

// anyAdoptable reports whether the walk would try to adopt one of the
// orphans (ctrlutil.Claimer.ClaimOne's rules for a pod without a
// controller, after the walk's own check that it is active).
func (m *manager[T]) anyAdoptable(owner T, sp spec, orphans []*api.Pod) bool {
	meta := owner.GetObjectMeta()
	if meta.DeletionTimestamp != nil {
		return false
	}
	for _, p := range orphans {
		if isActive(p) && p.ControllerRef() == nil && p.Namespace == meta.Namespace && sp.selector.Matches(p.Labels) {
			return true
		}
	}
	return false
}
