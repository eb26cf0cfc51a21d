package statefulset

import (
	"bytes"
	"context"
	"encoding/json"
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

// DefaultWorkers is the default number of sets synced concurrently:
// kube-controller-manager's --concurrent-statefulset-syncs.
const DefaultWorkers = 5

// Options configure New. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of sets synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Recorder receives the events kube-controller-manager records
	// (SuccessfulCreate, FailedCreate, SuccessfulDelete, FailedDelete,
	// SuccessfulUpdate, FailedUpdate). Default: events.NewLog over
	// Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

// Controller is the StatefulSet controller. See the package
// documentation.
type Controller struct {
	ctl *reconcile.Controller[string]
}

// Run syncs stateful sets until ctx ends, once the informers have
// synced, and returns after every worker has exited: ctx's error after a
// clean drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout
// or workqueue.ErrDrainAborted) if reconciles in flight had to be
// cancelled. The factory's informers are the caller's: start them with
// f.Start.
func (c *Controller) Run(ctx context.Context) error { return c.ctl.Run(ctx) }

const component = "statefulset-controller"

type manager struct {
	opts      Options
	sets      *informer.Informer[*api.StatefulSet]
	pods      *informer.Informer[*api.Pod]
	revs      *informer.Informer[*api.ControllerRevision]
	claims    *informer.Informer[*api.PersistentVolumeClaim]
	podW      source.Writer[*api.Pod]
	revW      source.Writer[*api.ControllerRevision]
	claimW    source.Writer[*api.PersistentVolumeClaim]
	setGate   *reconcile.Consistency[string]
	ctl       *reconcile.Controller[string]
	log       *slog.Logger
	recorder  events.Recorder
	setClient client.Resource[*api.StatefulSet]
}

// New returns the StatefulSet controller writing through client c over
// the shared informers of f ("statefulsets", "pods",
// "controllerrevisions", "persistentvolumeclaims"). Start f after New,
// then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("statefulset: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("statefulset: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Recorder == nil {
		opts.Recorder = events.NewLog(opts.Logger, component)
	}
	m := &manager{opts: opts, log: opts.Logger.With("controller", component), recorder: opts.Recorder}
	var err error
	var pods client.Resource[*api.Pod]
	var revs client.Resource[*api.ControllerRevision]
	var claims client.Resource[*api.PersistentVolumeClaim]
	if m.setClient, m.sets, err = shared[*api.StatefulSet](f, c, opts.Logger); err != nil {
		return nil, err
	}
	if pods, m.pods, err = shared[*api.Pod](f, c, opts.Logger); err != nil {
		return nil, err
	}
	if revs, m.revs, err = shared[*api.ControllerRevision](f, c, opts.Logger); err != nil {
		return nil, err
	}
	if claims, m.claims, err = shared[*api.PersistentVolumeClaim](f, c, opts.Logger); err != nil {
		return nil, err
	}
	podGate, err := reconcile.NewConsistency[string](m.pods, m.pods)
	if err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	revGate, err := reconcile.NewConsistency[string](m.revs, m.revs)
	if err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	claimGate, err := reconcile.NewConsistency[string](m.claims, m.claims)
	if err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	if m.setGate, err = reconcile.NewConsistency[string](m.sets, m.sets); err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	if m.podW, err = reconcile.GatedWriter[*api.Pod](podGate, pods, api.Key[*api.Pod]); err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	if m.revW, err = reconcile.GatedWriter[*api.ControllerRevision](revGate, revs, api.Key[*api.ControllerRevision]); err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	if m.claimW, err = reconcile.GatedWriter[*api.PersistentVolumeClaim](claimGate, claims, api.Key[*api.PersistentVolumeClaim]); err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	gates := []*reconcile.Consistency[string]{podGate, revGate, claimGate, m.setGate}
	if m.ctl, err = reconcile.New(component, reconcile.Func[string](func(ctx context.Context, key string) (reconcile.Result, error) {
		res, err := m.sync(ctx, key)
		if _, ok := m.sets.Lister().Get(key); !ok {
			for _, g := range gates {
				g.Forget(key)
			}
		}
		return res, err
	}), reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger, Consistency: gates}); err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	if err := m.register(); err != nil {
		return nil, fmt.Errorf("statefulset: %w", err)
	}
	return &Controller{ctl: m.ctl}, nil
}

// shared returns c's resource of T's kind and the informer of f named
// after it.
func shared[T api.Object](f *informer.Factory, c client.Client, logger *slog.Logger) (client.Resource[T], *informer.Informer[T], error) {
	res, err := client.For[T](c)
	if err != nil {
		return nil, nil, fmt.Errorf("statefulset: %w", err)
	}
	inf, err := informer.Shared(f, res.Resource(), source.ListWatcher[T](res), api.Key[T], informer.Options[T]{Logger: logger})
	if err != nil {
		return nil, nil, fmt.Errorf("statefulset: %w", err)
	}
	return res, inf, nil
}

// sync is one reconcile of the set under key (kcm's syncStatefulSet):
// claim pods and revisions, decide, act, write the status, trim the
// history.
func (m *manager) sync(ctx context.Context, key string) (reconcile.Result, error) {
	set, ok := m.sets.Lister().Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	sel, err := set.Spec.Selector.AsSelector()
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("statefulset: %s: invalid selector: %w", key, err))
	}
	if sel.Empty() { // a set selecting everything adopts nothing (kcm warns and returns)
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("statefulset: %s: empty selector", key))
	}
	live := func(ctx context.Context) (api.Object, error) {
		o, _, err := m.setClient.Get(ctx, key)
		return o, err
	}
	ns := m.pods.Lister().Namespace(set.Namespace)
	members := ns.List(func(p *api.Pod) bool { return isMemberOf(set, p) })
	pods, err := ctrlutil.NewClaimer(set, sel, live, m.podW).Claim(ctx, members)
	if err != nil {
		return reconcile.Result{}, err
	}
	revs, err := ctrlutil.NewClaimer(set, sel, live, m.revW).Claim(ctx, m.revs.Lister().Namespace(set.Namespace).List(nil))
	if err != nil {
		return reconcile.Result{}, err
	}
	claims := map[string]*api.PersistentVolumeClaim{}
	for _, c := range m.claims.Lister().Namespace(set.Namespace).List(nil) {
		claims[c.Name] = c
	}
	p, err := decide(input{set: set, revisions: revs, pods: pods, claims: claims, now: time.Now()})
	if err != nil {
		return reconcile.Result{}, reconcile.Terminal(fmt.Errorf("statefulset: %s: %w", key, err))
	}
	if err := m.writeRevision(ctx, set, p.revisions); err != nil {
		return reconcile.Result{}, err
	}
	actErr := m.perform(ctx, set, p.actions)
	if err := m.writeStatus(ctx, key, set, p.status); err != nil {
		return reconcile.Result{}, errors.Join(actErr, err)
	}
	if actErr != nil {
		return reconcile.Result{}, actErr
	}
	for _, r := range p.deleteRevisions {
		if _, err := m.revW.Delete(ctx, api.Key(r), ""); err != nil && !errors.Is(err, source.ErrNotFound) {
			return reconcile.Result{}, fmt.Errorf("statefulset: %s: delete revision %s: %w", key, r.Name, err)
		}
	}
	return reconcile.Result{RequeueAfter: p.requeueAfter}, nil
}

// writeRevision creates the new update revision, or renumbers the older
// one rolled back to. A name already taken by a revision of the same data
// (one made before, which the cache lacks: a restart on a stale list)
// is that revision, as in kcm's CreateControllerRevision
// (pkg/controller/history/controller_history.go), which reads it and
// compares the data; taken by another revision, it bumps
// status.collisionCount (CreateControllerRevision's retry), and the sync
// runs again.
func (m *manager) writeRevision(ctx context.Context, set *api.StatefulSet, rp revisionPlan) error {
	switch {
	case rp.create:
		_, err := m.revW.Create(ctx, rp.update.DeepCopy())
		if errors.Is(err, source.ErrAlreadyExists) {
			exists, _, gerr := m.revW.Get(ctx, api.Key(rp.update))
			if gerr != nil {
				return fmt.Errorf("statefulset: %s: revision %s: %w", set.Name, rp.update.Name, gerr)
			}
			if bytes.Equal(compact(exists.Data), compact(rp.update.Data)) {
				return nil
			}
			cp := set.DeepCopy()
			cc := rp.collisionCount + 1
			cp.Status.CollisionCount = &cc
			if _, err := m.setClient.UpdateStatus(ctx, cp); err != nil {
				return fmt.Errorf("statefulset: %s: collision count: %w", set.Name, err)
			}
			return fmt.Errorf("statefulset: %s: revision %s: %w", set.Name, rp.update.Name, err)
		}
		if err != nil {
			return fmt.Errorf("statefulset: %s: create revision: %w", set.Name, err)
		}
	case rp.renumber:
		if _, err := m.revW.Update(ctx, rp.update.DeepCopy(), ""); err != nil {
			return fmt.Errorf("statefulset: %s: renumber revision %s: %w", set.Name, rp.update.Name, err)
		}
	}
	return nil
}

// perform makes the plan's writes in order and stops at the first
// failure, recording kcm's events.
func (m *manager) perform(ctx context.Context, set *api.StatefulSet, actions []action) error {
	ref := events.Ref{APIVersion: "apps/v1", Kind: "StatefulSet", Namespace: set.Namespace, Name: set.Name, UID: string(set.UID)}
	for _, a := range actions {
		var err error
		var verb, what string
		switch a.op {
		case createClaim:
			verb, what = "create", fmt.Sprintf("Claim %s Pod %s", a.claim.Name, a.pod.Name)
			_, err = m.claimW.Create(ctx, a.claim.DeepCopy())
		case updateClaim:
			verb, what = "update", fmt.Sprintf("Claim %s Pod %s", a.claim.Name, a.pod.Name)
			_, err = m.claimW.Update(ctx, a.claim.DeepCopy(), "")
		case createPod:
			verb, what = "create", "Pod "+a.pod.Name
			_, err = m.podW.Create(ctx, a.pod.DeepCopy())
		case deletePod:
			verb, what = "delete", "Pod "+a.pod.Name
			_, err = m.podW.Delete(ctx, api.Key(a.pod), "")
			if errors.Is(err, source.ErrNotFound) {
				continue
			}
		case updatePod:
			verb, what = "update", "Pod "+a.pod.Name
			_, err = m.podW.Update(ctx, a.pod.DeepCopy(), "")
		}
		if err != nil {
			m.recorder.Eventf(ref, events.Warning, failedReason[verb], "%s %s in StatefulSet %s failed error: %v", verb, what, set.Name, err)
			return fmt.Errorf("statefulset: %s/%s: %s %s (%s): %w", set.Namespace, set.Name, verb, what, a.why, err)
		}
		m.recorder.Eventf(ref, events.Normal, successReason[verb], "%s %s in StatefulSet %s successful", verb, what, set.Name)
	}
	return nil
}

var (
	successReason = map[string]string{"create": "SuccessfulCreate", "delete": "SuccessfulDelete", "update": "SuccessfulUpdate"}
	failedReason  = map[string]string{"create": "FailedCreate", "delete": "FailedDelete", "update": "FailedUpdate"}
)

// writeStatus writes st if it differs from the set's status.
func (m *manager) writeStatus(ctx context.Context, key string, set *api.StatefulSet, st api.StatefulSetStatus) error {
	a, _ := json.Marshal(set.Status)
	b, _ := json.Marshal(st)
	if string(a) == string(b) {
		return nil
	}
	cp := set.DeepCopy()
	cp.Status = st
	rv, err := m.setClient.UpdateStatus(ctx, cp)
	if err != nil {
		return fmt.Errorf("statefulset: %s: update status: %w", key, err)
	}
	_ = m.setGate.WroteKey(key, key, rv)
	return nil
}
