package namespace

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is --concurrent-namespace-syncs, as
// kube-controller-manager's.
const DefaultWorkers = 10

// Options configures a Controller. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of namespaces synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

// content is one namespaced resource, seen generically.
type content struct {
	// name is the resource as kcm's conditions print it: "pods.",
	// "deployments.apps".
	name string
	// list lists the objects of a namespace from the store (live).
	list func(ctx context.Context, ns string) ([]api.Object, error)
	// del deletes one, in the background.
	del func(ctx context.Context, key string) error
}

// Controller is the namespace controller. Create it with New, run it
// with Run.
type Controller struct {
	nsRes      client.Resource[*api.Namespace]
	opts       Options
	namespaces *informer.Informer[*api.Namespace]
	pods       content
	others     []content // the built-in kinds but pods
	ctl        *reconcile.Controller[string]
	log        *slog.Logger
	client     client.Client

	ownMu sync.Mutex
	own   map[api.GroupVersionKind]content // guarded by ownMu
}

// New returns the namespace controller of c over the shared informer
// "namespaces" of f. Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("namespace: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("namespace: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	nc := &Controller{opts: opts, log: opts.Logger.With("controller", "namespace-controller"), client: c, own: map[api.GroupVersionKind]content{}}
	var err error
	if nc.nsRes, err = client.For[*api.Namespace](c); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	if nc.namespaces, err = informer.Shared(f, "namespaces", source.ListWatcher[*api.Namespace](nc.nsRes), api.Key[*api.Namespace], informer.Options[*api.Namespace]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	if nc.ctl, err = reconcile.New("namespace-controller", reconcile.Func[string](nc.sync), reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	if _, err := reconcile.WatchEvents(nc.ctl, nc.namespaces, reconcile.Events[*api.Namespace, string]{
		Create: reconcile.ByKey(api.Key[*api.Namespace]),
		Update: func(_, ns *api.Namespace) []string { return []string{ns.Name} },
	}, reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: nc.ctl.Name()}}); err != nil {
		return nil, fmt.Errorf("namespace: %w", err)
	}
	// Every namespaced built-in kind, in the order of api.Registered;
	// pods apart, as they go first. The kinds added with api.Register
	// are looked up at each sync (ownContents).
	for _, info := range api.Registered() {
		if !info.Namespaced || !api.IsBuiltin(info.GroupVersionKind) {
			continue
		}
		i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == info.GoType() })
		if i < 0 {
			return nil, fmt.Errorf("namespace: no cleaner for %s (%v): run go generate in controllers/api", info.GroupVersionKind, info.GoType())
		}
		k, err := kindInstances[i].content(c)
		if err != nil {
			return nil, err
		}
		if info.GoType() == reflect.TypeFor[*api.Pod]() {
			nc.pods = k
		} else {
			nc.others = append(nc.others, k)
		}
	}
	return nc, nil
}

// ownContents returns the content of every namespaced kind that is not
// built in — added with api.Register or defined by a
// CustomResourceDefinition — that the client serves
// (client.ServedKinds): read at each sync, so that a kind that appeared
// after New is cleaned up too (kcm reads discovery at each namespace
// deletion). A kind the client does not serve is skipped, as kcm skips a
// resource discovery does not list.
func (nc *Controller) ownContents(ctx context.Context) []content {
	var out []content
	kinds, err := client.ServedKinds(ctx, nc.client)
	if err != nil {
		nc.log.Debug("namespace: discovery failed; cleaning up the program's registered kinds", "err", err)
		kinds = api.Registered()
	}
	for _, info := range kinds {
		if !info.Namespaced || api.IsBuiltin(info.GroupVersionKind) {
			continue
		}
		nc.ownMu.Lock()
		k, ok := nc.own[info.GroupVersionKind]
		nc.ownMu.Unlock()
		if !ok {
			s, err := client.ForKind(nc.client, info.GroupVersionKind)
			if err != nil {
				nc.log.Debug("namespace: the client does not serve a registered kind", "kind", info.GroupVersionKind.String(), "err", err)
				continue
			}
			k = kindContent(s, info.Resource+"."+info.Group)
			nc.ownMu.Lock()
			nc.own[info.GroupVersionKind] = k
			nc.ownMu.Unlock()
		}
		out = append(out, k)
	}
	return out
}

// kindInstance is kindContentFor instantiated for the Go type of one
// built-in kind; kindInstances (zz_generated_kinds.go, written by go
// generate in controllers/api) holds one per built-in kind. The kinds
// added with api.Register go through kindContent instantiated for
// api.Object, over client.ForKind.
type kindInstance struct {
	typ     reflect.Type
	content func(client.Client) (content, error)
}

func instantiate[T api.Object]() kindInstance {
	return kindInstance{reflect.TypeFor[T](), kindContentFor[T]}
}

// kindContentFor is the content of T's kind in c, named "resource.group"
// ("pods.", "deployments.apps") after its registration in controllers/api.
func kindContentFor[T api.Object](c client.Client) (content, error) {
	info, ok := api.InfoFor[T]()
	if !ok {
		var zero T
		return content{}, fmt.Errorf("namespace: %T is not a registered kind", zero)
	}
	s, err := client.For[T](c)
	if err != nil {
		return content{}, fmt.Errorf("namespace: %w", err)
	}
	return kindContent(s, info.Resource+"."+info.Group), nil
}

func kindContent[T api.Object](s client.Resource[T], name string) content {
	return content{
		name: name,
		list: func(ctx context.Context, ns string) ([]api.Object, error) {
			sel, err := s.Select(client.SelectOptions{Namespace: ns})
			if err != nil {
				return nil, err
			}
			l, err := sel.List(ctx, source.ListOptions{})
			if err != nil {
				return nil, err
			}
			out := make([]api.Object, len(l.Items))
			for i, o := range l.Items {
				out[i] = o
			}
			return out, nil
		},
		del: func(ctx context.Context, key string) error {
			_, err := s.DeleteWith(ctx, key, client.DeleteOptions{PropagationPolicy: client.DeletePropagationBackground})
			return err
		},
	}
}

// Run syncs namespaces until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error (it wraps
// reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted) if
// reconciles in flight had to be cancelled.
func (nc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("namespace: Run: context is nil")
	}
	return nc.ctl.Run(ctx)
}

// sync is kcm's namespacedResourcesDeleter.Delete for one namespace.
func (nc *Controller) sync(ctx context.Context, name string) (reconcile.Result, error) {
	cached, ok := nc.namespaces.Lister().Get(name)
	if !ok || cached.DeletionTimestamp == nil || !hasFinalizer(cached) {
		return reconcile.Result{}, nil
	}
	now := time.Now()
	rem := Remaining{Objects: map[string]int{}, Finalizers: map[string]int{}}
	estimate, err := nc.deleteContent(ctx, nc.pods, name, cached.DeletionTimestamp.Time, now, &rem)
	if err != nil {
		rem.Errors = append(rem.Errors, err.Error())
	}
	// Ordered deletion (kcm's OrderedNamespaceDeletion, on by default
	// since 1.33): the rest goes only once every pod is gone, so that no
	// pod outlives the objects it uses.
	if rem.Objects[nc.pods.name] == 0 && err == nil {
		for _, k := range append(slices.Clone(nc.others), nc.ownContents(ctx)...) {
			est, err := nc.deleteContent(ctx, k, name, cached.DeletionTimestamp.Time, now, &rem)
			if err != nil {
				rem.Errors = append(rem.Errors, err.Error())
			}
			estimate = max(estimate, est)
		}
	}
	if err := nc.writeConditions(ctx, name, rem, now); err != nil {
		return reconcile.Result{}, err
	}
	if len(rem.Errors) > 0 {
		return reconcile.Result{}, fmt.Errorf("namespace: %s: %d content deletions failed: %s", name, len(rem.Errors), rem.Errors[0])
	}
	remaining := 0
	for _, n := range rem.Objects {
		remaining += n
	}
	if remaining > 0 {
		if estimate <= 0 {
			estimate = time.Second
		}
		return reconcile.Result{RequeueAfter: estimate}, nil
	}
	return reconcile.Result{}, nc.finalize(ctx, name)
}

// deleteContent deletes the objects of one resource in ns that are not
// yet being deleted, lists again, and records what remains; it returns
// how long the remainder may take (kcm's
// deleteAllContentForGroupVersionResource): the pods' grace estimate,
// FinalizerEstimate when something is held by finalizers, and an error
// when objects remain for no reason it knows.
func (nc *Controller) deleteContent(ctx context.Context, k content, ns string, deletedAt, now time.Time, rem *Remaining) (time.Duration, error) {
	objs, err := k.list(ctx, ns)
	if err != nil {
		return 0, fmt.Errorf("%s: list: %v", k.name, err)
	}
	var estimate time.Duration
	if k.name == nc.pods.name {
		pods := make([]*api.Pod, 0, len(objs))
		for _, o := range objs {
			pods = append(pods, o.(*api.Pod))
		}
		estimate = PodsEstimate(pods, deletedAt, now)
	}
	for _, o := range objs {
		if o.GetObjectMeta().DeletionTimestamp != nil {
			continue
		}
		if err := k.del(ctx, api.Key(o)); err != nil && !errors.Is(err, source.ErrNotFound) {
			return estimate, fmt.Errorf("%s: delete %s: %v", k.name, api.Key(o), err)
		}
	}
	if objs, err = k.list(ctx, ns); err != nil {
		return estimate, fmt.Errorf("%s: list: %v", k.name, err)
	}
	if len(objs) == 0 {
		return estimate, nil
	}
	rem.Objects[k.name] += len(objs)
	held := false
	for _, o := range objs {
		for _, f := range o.GetObjectMeta().Finalizers {
			rem.Finalizers[f]++
			held = true
		}
	}
	if estimate == 0 {
		if held {
			return FinalizerEstimate, nil
		}
		if k.name != nc.pods.name {
			return 0, fmt.Errorf("unexpected items still remain in namespace: %s for %s", ns, k.name)
		}
		// Pods past their grace period wait for their kubelet.
		return FinalizerEstimate, nil
	}
	return estimate, nil
}

// writeConditions merges the conditions of rem into the namespace's
// status, writing only when they changed.
func (nc *Controller) writeConditions(ctx context.Context, name string, rem Remaining, now time.Time) error {
	for range 5 {
		ns, _, err := nc.nsRes.Get(ctx, name)
		if errors.Is(err, source.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("namespace: %s: %w", name, err)
		}
		conds, changed := Conditions(ns.Status.Conditions, rem, now)
		if !changed {
			return nil
		}
		ns.Status.Conditions = conds
		_, err = nc.nsRes.UpdateStatus(ctx, ns)
		if errors.Is(err, source.ErrConflict) {
			continue
		}
		if err != nil && !errors.Is(err, source.ErrNotFound) {
			return fmt.Errorf("namespace: %s: update status: %w", name, err)
		}
		return nil
	}
	return fmt.Errorf("namespace: %s: update status kept conflicting: %w", name, source.ErrConflict)
}

// finalize removes the kubernetes finalizer (kcm's finalizeNamespace,
// retried on conflict); the store removes the namespace once its
// finalizers are all gone.
func (nc *Controller) finalize(ctx context.Context, name string) error {
	for range 5 {
		ns, _, err := nc.nsRes.Get(ctx, name)
		if errors.Is(err, source.ErrNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("namespace: %s: %w", name, err)
		}
		if !hasFinalizer(ns) {
			return nil
		}
		ns.Spec.Finalizers = slices.DeleteFunc(ns.Spec.Finalizers, func(f api.FinalizerName) bool { return f == FinalizerName })
		_, err = nc.nsRes.Update(ctx, ns, "")
		if errors.Is(err, source.ErrConflict) {
			continue
		}
		if err != nil && !errors.Is(err, source.ErrNotFound) {
			return fmt.Errorf("namespace: %s: finalize: %w", name, err)
		}
		nc.log.Info("namespace: finalized", "namespace", name)
		return nil
	}
	return fmt.Errorf("namespace: %s: finalize kept conflicting: %w", name, source.ErrConflict)
}
