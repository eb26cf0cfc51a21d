package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is the default of Options.Workers, kube-controller-manager's
// --concurrent-gc-syncs.
const DefaultWorkers = 20

// Component is the reporting component of the collector's events.
const Component = "garbage-collector-controller"

// ReasonOwnerRefInvalidNamespace is the reason of the Warning event about
// a dependent whose owner reference cannot be valid: a namespaced owner
// observed in another namespace, or a namespaced kind named by a
// cluster-scoped dependent.
const ReasonOwnerRefInvalidNamespace = "OwnerRefInvalidNamespace"

// Options configure a Collector. The zero value is valid.
type Options struct {
	// Workers is the number of workers of each of the two queues
	// (attempt to delete, attempt to orphan). Default DefaultWorkers (20).
	Workers int
	// Recorder receives the collector's events. Default: events.NewLog
	// over Logger, as Component.
	Recorder events.Recorder
	// Logger receives the collector's logs. Default: slog.Default().
	Logger *slog.Logger
	// QueueMetrics, if set, meters the two queues (workqueue_* named
	// garbage_collector_attempt_to_delete and _orphan, as kcm's).
	// Default: none.
	QueueMetrics workqueue.MetricsProvider
	// DiscoveryPeriod is how often Run looks for kinds added with
	// api.Register since New (or that the client did not serve then) and
	// starts watching them, as kube-controller-manager's collector
	// re-reads discovery. Default DefaultDiscoveryPeriod (30 s); negative:
	// never (the kinds of New only).
	DiscoveryPeriod time.Duration
}

// DefaultDiscoveryPeriod is the default of Options.DiscoveryPeriod, the
// period at which kube-controller-manager's collector re-reads discovery.
const DefaultDiscoveryPeriod = 30 * time.Second

func (o *Options) validate() error {
	if o.Workers < 0 {
		return fmt.Errorf("garbagecollector: Options.Workers is negative (%d)", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.DiscoveryPeriod == 0 {
		o.DiscoveryPeriod = DefaultDiscoveryPeriod
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Recorder == nil {
		o.Recorder = events.NewLog(o.Logger, Component)
	}
	return nil
}

// Collector is the garbage collector: an ownership graph over every kind
// of the cluster, fed by shared informers, and the workers that delete
// dependents whose owners are gone, carry out foreground deletion and
// orphan dependents. See the package documentation.
type Collector struct {
	client   client.Client
	factory  *informer.Factory
	logger   *slog.Logger
	recorder events.Recorder
	workers  int
	// discovery is Options.DiscoveryPeriod.
	discovery time.Duration

	kindsMu sync.RWMutex
	// kinds holds one entry per watched kind: every built-in kind, then
	// the registered kinds in the order they were first watched. It
	// only grows. Guarded by kindsMu.
	kinds []kindAccess

	// attemptToDelete reconciles the UIDs of items that may have to be
	// deleted (or, in foreground deletion, lose their finalizer);
	// attemptToOrphan those of owners whose dependents are to be
	// orphaned. Each has kcm's queue name and Options.Workers workers; a
	// failed attempt is retried with the queue's back-off.
	attemptToDelete, attemptToOrphan *reconcile.Controller[api.UID]

	mu    sync.Mutex
	graph *graph // guarded by mu
}

// New returns a Collector over c that registers a handler on the shared
// informer of every kind in f (named after the kind's resource, "pods",
// created if f has none). It starts nothing: start f (f.Start) and call
// Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Collector, error) {
	if c == nil || f == nil {
		return nil, errors.New("garbagecollector: New: nil client or factory")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	gc := &Collector{
		client:    c,
		factory:   f,
		logger:    opts.Logger,
		recorder:  opts.Recorder,
		workers:   opts.Workers,
		discovery: opts.DiscoveryPeriod,
		graph:     newGraph(),
	}
	var err error
	gc.attemptToDelete, err = gc.worker("garbage_collector_attempt_to_delete", gc.attemptToDeleteItem, opts)
	if err != nil {
		return nil, err
	}
	gc.attemptToOrphan, err = gc.worker("garbage_collector_attempt_to_orphan", gc.attemptToOrphanItem, opts)
	if err != nil {
		return nil, err
	}
	for _, info := range api.Registered() {
		if !api.IsBuiltin(info.GroupVersionKind) {
			if _, err := gc.addRegistered(info, nil); err != nil {
				// The client may not serve it yet: Run looks again.
				gc.logger.Info("garbagecollector: not watching a registered kind yet", "kind", info.GroupVersionKind.String(), "err", err)
			}
			continue
		}
		i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == info.GoType() })
		if i < 0 {
			return nil, fmt.Errorf("garbagecollector: no watcher for %s (%v): run go generate in controllers/api", info.GroupVersionKind, info.GoType())
		}
		k, err := kindInstances[i].watch(gc)
		if err != nil {
			return nil, err
		}
		gc.kinds = append(gc.kinds, k)
		if err := gc.attemptToOrphan.AddSyncCheck(k.hasSynced); err != nil {
			return nil, fmt.Errorf("garbagecollector: %w", err)
		}
	}
	return gc, nil
}

// addRegistered watches info, a kind added with api.Register, unless it
// is watched already (see watchRegistered for start), and reports
// whether it started watching it.
func (gc *Collector) addRegistered(info api.KindInfo, start func(run func(context.Context) error)) (bool, error) {
	if _, ok := gc.lookupKind(info.APIVersion(), info.Kind); ok {
		return false, nil
	}
	k, err := watchRegistered(gc, info, start)
	if err != nil {
		return false, err
	}
	gc.kindsMu.Lock()
	gc.kinds = append(gc.kinds, k)
	gc.kindsMu.Unlock()
	if start == nil {
		if err := gc.attemptToOrphan.AddSyncCheck(k.hasSynced); err != nil {
			return false, fmt.Errorf("garbagecollector: %w", err)
		}
	}
	return true, nil
}

// discover watches the kinds not built in that the client serves
// (client.ServedKinds: added with api.Register or defined by a
// CustomResourceDefinition) and that the collector
// does not watch yet, each with an informer of its own run under ctx
// (in wg), and has the dependents of owners of such a kind looked at
// again: an owner reference to a kind it did not watch was left alone.
func (gc *Collector) discover(ctx context.Context, wg *sync.WaitGroup) {
	kinds, err := client.ServedKinds(ctx, gc.client)
	if err != nil {
		gc.logger.Debug("garbagecollector: discovery failed", "err", err)
		return
	}
	for _, info := range kinds {
		if api.IsBuiltin(info.GroupVersionKind) {
			continue
		}
		added, err := gc.addRegistered(info, func(run func(context.Context) error) {
			wg.Go(func() {
				if err := run(ctx); err != nil && ctx.Err() == nil {
					gc.logger.Error("garbagecollector: informer stopped", "kind", info.GroupVersionKind.String(), "err", err)
				}
			})
		})
		if err != nil {
			gc.logger.Debug("garbagecollector: not watching a registered kind yet", "kind", info.GroupVersionKind.String(), "err", err)
			continue
		}
		if !added {
			continue
		}
		gc.logger.Info("garbagecollector: watching a newly registered kind", "kind", info.GroupVersionKind.String())
		for _, uid := range gc.dependentsOfKind(info.APIVersion(), info.Kind) {
			gc.attemptToDelete.Enqueue(uid)
		}
	}
}

// dependentsOfKind returns the dependents of the graph's owners of that
// kind.
func (gc *Collector) dependentsOfKind(apiVersion, kind string) []api.UID {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	var out []api.UID
	for _, n := range gc.graph.nodes {
		if n.id.APIVersion != apiVersion || n.id.Kind != kind {
			continue
		}
		for uid := range n.dependents {
			out = append(out, uid)
		}
	}
	return out
}

// worker returns the reconcile loop named name over attempt.
func (gc *Collector) worker(name string, attempt func(context.Context, api.UID) error, opts Options) (*reconcile.Controller[api.UID], error) {
	r := reconcile.Func[api.UID](func(ctx context.Context, uid api.UID) (reconcile.Result, error) {
		return reconcile.Result{}, attempt(ctx, uid)
	})
	ctl, err := reconcile.New(name, r, reconcile.Options[api.UID]{
		Workers: opts.Workers, Logger: opts.Logger, QueueMetrics: opts.QueueMetrics,
	})
	if err != nil {
		return nil, fmt.Errorf("garbagecollector: %w", err)
	}
	return ctl, nil
}

// Run waits for every informer of the collector to sync, then runs the
// workers of both loops until ctx ends. Every Options.DiscoveryPeriod it
// also starts watching the kinds added with api.Register since New (see
// the package documentation). It returns once every worker has exited:
// ctx's error, or the loops' drain errors (reconcile.ErrShutdownTimeout
// when an attempt in flight outlasts the shutdown timeout). Run must be
// called once.
func (gc *Collector) Run(ctx context.Context) error {
	var wg, informers sync.WaitGroup
	errs := make([]error, 2)
	for i, ctl := range []*reconcile.Controller[api.UID]{gc.attemptToDelete, gc.attemptToOrphan} {
		wg.Go(func() { errs[i] = ctl.Run(ctx) })
	}
	if gc.discovery > 0 {
		wg.Go(func() {
			t := time.NewTicker(gc.discovery)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
					gc.discover(ctx, &informers)
				}
			}
		})
	}
	wg.Wait()
	informers.Wait()
	if errs[0] != nil && errs[1] != nil && errs[0].Error() == errs[1].Error() {
		return errs[0] // the same error (ctx's), said once
	}
	return errors.Join(errs...)
}

// observe applies an informer's (or a live read's) event to the graph and
// queues the work it calls for.
func (gc *Collector) observe(ev graphEvent) {
	for _, uid := range gc.process(ev) {
		gc.attemptToDelete.Enqueue(uid)
	}
}

// process applies an event to the graph, queues the owners to orphan and
// reports invalid references, and returns the items to attempt to
// delete, for the caller to queue.
func (gc *Collector) process(ev graphEvent) []api.UID {
	gc.mu.Lock()
	fx := gc.graph.process(ev)
	gc.mu.Unlock()
	for _, inv := range fx.invalidNamespace {
		gc.logger.Info("garbagecollector: item references an owner but does not match namespaces",
			"item", inv.dependent.String(), "owner", inv.ref.UID)
		gc.reportInvalidNamespace(inv.dependent, inv.ref)
	}
	for _, uid := range fx.attemptToOrphan {
		gc.attemptToOrphan.Enqueue(uid)
	}
	return fx.attemptToDelete
}

func (gc *Collector) reportInvalidNamespace(dep objectRef, ref api.OwnerReference) {
	gc.recorder.Eventf(events.Ref{APIVersion: dep.APIVersion, Kind: dep.Kind, Namespace: dep.Namespace, Name: dep.Name, UID: string(dep.UID)},
		events.Warning, ReasonOwnerRefInvalidNamespace, "ownerRef [%s/%s, name: %s, uid: %s] does not exist in namespace %q",
		ref.APIVersion, ref.Kind, ref.Name, ref.UID, dep.Namespace)
}

// snapshot returns the node's identity and the decision's view of its
// dependents, or false when the graph does not hold an observed node.
func (gc *Collector) snapshot(uid api.UID) (objectRef, []dependent, bool) {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	n, ok := gc.graph.nodes[uid]
	if !ok || n.virtual {
		return objectRef{}, nil, false
	}
	return n.id, dependentsOf(n), true
}

// attemptToDeleteItem is kcm's attemptToDeleteItem: read the item live,
// classify its owners by live reads, decide, act.
func (gc *Collector) attemptToDeleteItem(ctx context.Context, uid api.UID) error {
	id, deps, ok := gc.snapshot(uid)
	if !ok {
		return nil
	}
	k, ok := gc.lookupKind(id.APIVersion, id.Kind)
	if !ok {
		return nil // observed objects are of known kinds
	}
	latest, err := k.get(ctx, id.Namespace, id.Name)
	if errors.Is(err, source.ErrNotFound) || (err == nil && latest.UID != id.UID) {
		// The informer has not told us yet: the item is gone.
		gc.observe(graphEvent{typ: deleteEvent, id: id, virtual: true})
		return nil
	}
	if err != nil {
		return err
	}
	it := item{deleting: latest.DeletionTimestamp != nil, finalizers: latest.Finalizers}
	var owners []owner
	if !it.deleting && len(latest.OwnerReferences) > 0 {
		if owners, err = gc.classify(ctx, id, latest.OwnerReferences); err != nil {
			return err
		}
	}
	d := decide(it, owners, deps)
	switch d.action {
	case actNone:
		for _, o := range d.unresolvable {
			switch o.state {
			case ownerUnknownKind:
				gc.logger.Info("garbagecollector: owner reference names a kind the cluster does not serve; leaving the item alone",
					"item", id.String(), "apiVersion", o.ref.APIVersion, "kind", o.ref.Kind, "owner", o.ref.Name)
			case ownerInvalidScope:
				gc.logger.Info("garbagecollector: item is cluster-scoped, but refers to a namespaced owner",
					"item", id.String(), "kind", o.ref.Kind, "owner", o.ref.Name)
				gc.reportInvalidNamespace(id, o.ref)
			}
		}
		return nil
	case actDelete:
		gc.logger.Debug("garbagecollector: deleting item", "item", id.String(), "propagationPolicy", d.policy)
		return k.delete(ctx, id, d.policy)
	case actRemoveRefs:
		gc.logger.Debug("garbagecollector: removing dangling owner references", "item", id.String(), "owners", d.refs)
		return k.patch(ctx, id, func(m *api.ObjectMeta) bool {
			n := len(m.OwnerReferences)
			m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(r api.OwnerReference) bool { return slices.Contains(d.refs, r.UID) })
			return len(m.OwnerReferences) != n
		})
	case actUnblockAndDelete:
		err := k.patch(ctx, id, func(m *api.ObjectMeta) bool {
			changed := false
			for i := range m.OwnerReferences {
				if isBlocking(m.OwnerReferences[i]) {
					f := false
					m.OwnerReferences[i].BlockOwnerDeletion = &f
					changed = true
				}
			}
			return changed
		})
		if err != nil {
			return err
		}
		return k.delete(ctx, id, d.policy)
	case actRemoveFinalizer:
		return removeFinalizer(ctx, k, id, client.FinalizerDeleteDependents)
	case actWait:
		for _, dep := range d.enqueue {
			gc.attemptToDelete.Enqueue(dep)
		}
	}
	return nil
}

// classify reads every owner of the item live (kcm's classifyReferences;
// no absent-owner cache).
func (gc *Collector) classify(ctx context.Context, id objectRef, refs []api.OwnerReference) ([]owner, error) {
	out := make([]owner, len(refs))
	for i, r := range refs {
		out[i].ref = r
		k, ok := gc.lookupKind(r.APIVersion, r.Kind)
		if !ok {
			out[i].state = ownerUnknownKind
			continue
		}
		namespaced := k.namespaced()
		if namespaced && id.Namespace == "" {
			out[i].state = ownerInvalidScope
			continue
		}
		ns := ""
		if namespaced {
			ns = id.Namespace
		}
		m, err := k.get(ctx, ns, r.Name)
		switch {
		case errors.Is(err, source.ErrNotFound):
			out[i].state = ownerAbsent
		case err != nil:
			return nil, err
		case m.UID != r.UID:
			out[i].state = ownerAbsent
		case m.DeletionTimestamp != nil && slices.Contains(m.Finalizers, client.FinalizerDeleteDependents):
			out[i].state = ownerWaiting
		default:
			out[i].state = ownerSolid
		}
	}
	return out, nil
}

// attemptToOrphanItem is kcm's attemptToOrphanWorker: remove the owner's
// reference from every dependent the graph knows, then the owner's
// orphan finalizer.
func (gc *Collector) attemptToOrphanItem(ctx context.Context, uid api.UID) error {
	gc.mu.Lock()
	n, ok := gc.graph.nodes[uid]
	var id objectRef
	var deps []objectRef
	if ok {
		id = n.id
		for _, d := range sortedDependents(n) {
			if !d.beingDeleted {
				// This store forbids metadata updates of an object being
				// deleted; it goes anyway.
				deps = append(deps, d.id)
			}
		}
	}
	gc.mu.Unlock()
	if !ok {
		return nil
	}
	for _, dep := range deps {
		k, ok := gc.lookupKind(dep.APIVersion, dep.Kind)
		if !ok {
			continue
		}
		err := k.patch(ctx, dep, func(m *api.ObjectMeta) bool {
			if m.DeletionTimestamp != nil {
				return false
			}
			n := len(m.OwnerReferences)
			m.OwnerReferences = slices.DeleteFunc(m.OwnerReferences, func(r api.OwnerReference) bool { return r.UID == uid })
			return len(m.OwnerReferences) != n
		})
		if err != nil {
			return fmt.Errorf("orphan %s: %w", dep, err)
		}
	}
	k, ok := gc.lookupKind(id.APIVersion, id.Kind)
	if !ok {
		return nil
	}
	return removeFinalizer(ctx, k, id, client.FinalizerOrphanDependents)
}

// removeFinalizer removes finalizer from the object id names.
func removeFinalizer(ctx context.Context, k kindAccess, id objectRef, finalizer string) error {
	return k.patch(ctx, id, func(m *api.ObjectMeta) bool {
		n := len(m.Finalizers)
		m.Finalizers = slices.DeleteFunc(m.Finalizers, func(f string) bool { return f == finalizer })
		return len(m.Finalizers) != n
	})
}
