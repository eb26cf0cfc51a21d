package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// The defaults, as kube-controller-manager's.
const (
	// DefaultResyncPeriod is --resource-quota-sync-period: every quota
	// is recounted this often.
	DefaultResyncPeriod = 5 * time.Minute
	// DefaultWorkers is --concurrent-resource-quota-syncs.
	DefaultWorkers = 5
)

// priorityHardChanged is the queue priority of a quota whose spec.hard
// changed (kcm keeps a separate, preferred queue for quotas missing
// usage; a priority does the same here).
const priorityHardChanged = 1

// Options configures a Controller. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// ResyncPeriod is how often every quota is recounted. Default
	// DefaultResyncPeriod; negative is an error.
	ResyncPeriod time.Duration
	// Workers is the number of quotas synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Resources are the resources counted, keys of Counted. Default: all
	// of Counted at New, and the kinds registered with api.Register
	// after New too (see the package documentation). Each resource
	// counted at New gets a shared informer named after it.
	Resources []string
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate() error {
	if o.ResyncPeriod < 0 || o.Workers < 0 {
		return fmt.Errorf("resourcequota: negative ResyncPeriod (%v) or Workers (%d)", o.ResyncPeriod, o.Workers)
	}
	if o.ResyncPeriod == 0 {
		o.ResyncPeriod = DefaultResyncPeriod
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Resources == nil {
		o.Resources = slices.Sorted(maps.Keys(Counted()))
	}
	for _, r := range o.Resources {
		if _, ok := countedKind(r); !ok {
			return fmt.Errorf("resourcequota: Options.Resources: %q is not a counted resource", r)
		}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return nil
}

// tracked is one counted resource: how to list a namespace's objects
// from its informer.
type tracked struct {
	resource string
	list     func(ns string) []api.Object
}

// Controller is the resource quota controller. Create it with New, run
// it with Run.
type Controller struct {
	c       client.Client
	quotaR  client.Resource[*api.ResourceQuota]
	opts    Options
	quotas  *informer.Informer[*api.ResourceQuota]
	tracked []tracked
	ctl     *reconcile.Controller[string]
	log     *slog.Logger
	// all is true when Options.Resources was left to its default: the
	// kinds registered after New are then counted too.
	all bool
}

// New returns the resource quota controller of c over the shared
// informers of f ("resourcequotas" and one per counted resource, named
// after it). Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("resourcequota: client and factory are required")
	}
	all := opts.Resources == nil
	if err := opts.validate(); err != nil {
		return nil, err
	}
	rc := &Controller{c: c, opts: opts, all: all, log: opts.Logger.With("controller", "resourcequota-controller")}
	var err error
	if rc.quotaR, err = client.For[*api.ResourceQuota](c); err != nil {
		return nil, fmt.Errorf("resourcequota: %w", err)
	}
	if rc.quotas, err = informer.Shared(f, "resourcequotas", source.ListWatcher[*api.ResourceQuota](rc.quotaR), api.Key[*api.ResourceQuota], informer.Options[*api.ResourceQuota]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("resourcequota: %w", err)
	}
	if rc.ctl, err = reconcile.New("resourcequota-controller", reconcile.Func[string](rc.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers, Logger: opts.Logger,
	}); err != nil {
		return nil, fmt.Errorf("resourcequota: %w", err)
	}
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: "resourcequota-controller"}}
	byKey := reconcile.ByKey(api.Key[*api.ResourceQuota])
	if _, err := reconcile.WatchEvents(rc.ctl, rc.quotas, reconcile.Events[*api.ResourceQuota, string]{Create: byKey, Delete: byKey}, watch); err != nil {
		return nil, fmt.Errorf("resourcequota: %w", err)
	}
	// Only a change of spec.hard matters (status writes, the admission's
	// charges among them, do not); it goes before the recounts.
	hardChanged := watch
	hardChanged.Priority = priorityHardChanged
	if _, err := reconcile.WatchEvents(rc.ctl, rc.quotas, reconcile.Events[*api.ResourceQuota, string]{
		Update: func(old, cur *api.ResourceQuota) []string {
			if !equalLists(old.Spec.Hard, cur.Spec.Hard) {
				return []string{api.Key(cur)}
			}
			return nil
		},
	}, hardChanged); err != nil {
		return nil, fmt.Errorf("resourcequota: %w", err)
	}
	for _, r := range opts.Resources {
		t, err := rc.track(f, r)
		if errors.Is(err, client.ErrUnknownKind) {
			// A registered kind the server does not serve (yet: its CRD
			// is not installed), as kcm counts only what discovery
			// lists; a recount lists it live once it is served.
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("resourcequota: %s: %w", r, err)
		}
		rc.tracked = append(rc.tracked, t)
	}
	return rc, nil
}

// track makes the informer of resource r, a key of Counted, and its
// replenishment handler.
func (rc *Controller) track(f *informer.Factory, r string) (tracked, error) {
	info, ok := countedKind(r)
	if !ok {
		return tracked{}, fmt.Errorf("not a counted resource")
	}
	if !api.IsBuiltin(info.GroupVersionKind) {
		store, err := client.ForKind(rc.c, info.GroupVersionKind)
		if err != nil {
			return tracked{}, err
		}
		return trackResource(rc, f, r, store)
	}
	i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == info.GoType() })
	if i < 0 {
		return tracked{}, fmt.Errorf("no counter for %s (%v): run go generate in controllers/api", info.GroupVersionKind, info.GoType())
	}
	return kindInstances[i].track(rc, f, r)
}

// kindInstance is trackKind instantiated for the Go type of one
// built-in kind; kindInstances (zz_generated_kinds.go, written by go
// generate in controllers/api) holds one per built-in kind. The kinds
// added with api.Register go through trackResource instantiated for
// api.Object, over client.ForKind.
type kindInstance struct {
	typ   reflect.Type
	track func(*Controller, *informer.Factory, string) (tracked, error)
}

func instantiate[T api.Object]() kindInstance {
	return kindInstance{reflect.TypeFor[T](), trackKind[T]}
}

// trackKind is track for one type: kcm's replenishment controller. A
// delete of a counted object enqueues the quotas of its namespace that
// count its resource; so does an update that lowers its usage (a pod
// turning terminal, or passing its grace period).
func trackKind[T api.Object](rc *Controller, f *informer.Factory, r string) (tracked, error) {
	store, err := client.For[T](rc.c)
	if err != nil {
		return tracked{}, err
	}
	return trackResource(rc, f, r, store)
}

// trackResource is trackKind over store, the resource r.
func trackResource[T api.Object](rc *Controller, f *informer.Factory, r string, store client.Resource[T]) (tracked, error) {
	inf, err := informer.Shared(f, r, source.ListWatcher[T](store), api.Key[T], informer.Options[T]{Logger: rc.opts.Logger})
	if err != nil {
		return tracked{}, err
	}
	if _, err := reconcile.WatchEvents(rc.ctl, inf, reconcile.Events[T, string]{
		Update: func(old, cur T) []string {
			if replenishes(r, old, cur, time.Now()) {
				return rc.replenished(r, cur.GetObjectMeta().Namespace)
			}
			return nil
		},
		Delete: func(obj T) []string { return rc.replenished(r, obj.GetObjectMeta().Namespace) },
	}, reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: "resourcequota-controller"}}); err != nil {
		return tracked{}, err
	}
	return tracked{
		resource: r,
		list: func(ns string) []api.Object {
			items := inf.Lister().Namespace(ns).List(nil)
			out := make([]api.Object, len(items))
			for i, o := range items {
				out[i] = o
			}
			return out
		},
	}, nil
}

// replenishes reports whether an update of an object of resource r
// frees quota: a pod that stops being charged (QuotaPod), or any other
// object whose usage changed.
func replenishes(r string, old, cur api.Object, now time.Time) bool {
	if op, ok := old.(*api.Pod); ok {
		return QuotaPod(op, now) && !QuotaPod(cur.(*api.Pod), now)
	}
	if r != "services" && r != "persistentvolumeclaims" {
		return false
	}
	return !equalLists(Usage(r, old, now), Usage(r, cur, now))
}

// replenished returns the quotas of ns that count resource r.
func (rc *Controller) replenished(r, ns string) []string {
	var keys []string
	for _, q := range rc.quotas.Lister().Namespace(ns).List(nil) {
		if len(MatchingResources(r, names(q.Status.Hard))) > 0 || len(MatchingResources(r, names(q.Spec.Hard))) > 0 {
			keys = append(keys, api.Key(q))
		}
	}
	return keys
}

// Run waits for the informers, then syncs quotas until ctx ends; it
// returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted) if reconciles in flight had to be
// cancelled.
func (rc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("resourcequota: Run: context is nil")
	}
	return rc.ctl.Run(ctx)
}

// listLate adds to objs the objects of q's namespace of the counted
// resources q limits that have no informer — the kinds registered after
// New — listed live through client.ForKind. A kind the client does not
// serve has no objects.
func (rc *Controller) listLate(ctx context.Context, q *api.ResourceQuota, objs Objects) error {
	hard := names(q.Spec.Hard)
	for r := range Counted() {
		if _, ok := objs[r]; ok || len(MatchingResources(r, hard)) == 0 ||
			slices.ContainsFunc(rc.tracked, func(t tracked) bool { return t.resource == r }) {
			continue
		}
		info, ok := countedKind(r)
		if !ok {
			continue
		}
		store, err := client.ForKind(rc.c, info.GroupVersionKind)
		if err != nil {
			continue
		}
		sel, err := store.Select(client.SelectOptions{Namespace: q.Namespace})
		if err != nil {
			return fmt.Errorf("resourcequota: %s: %w", r, err)
		}
		l, err := sel.List(ctx, source.ListOptions{})
		if err != nil {
			return fmt.Errorf("resourcequota: list %s: %w", r, err)
		}
		objs[r] = l.Items
	}
	return nil
}

// sync recounts one quota (kcm's syncResourceQuota) and writes its
// status when Status says it is dirty; it comes back after the resync
// period (the full resync of every quota).
func (rc *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	q, ok := rc.quotas.Lister().Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	objs := Objects{}
	for _, t := range rc.tracked {
		if len(MatchingResources(t.resource, names(q.Spec.Hard))) > 0 {
			objs[t.resource] = t.list(q.Namespace)
		}
	}
	if rc.all {
		if err := rc.listLate(ctx, q, objs); err != nil {
			return reconcile.Result{}, err
		}
	}
	st, dirty := Status(q, objs, time.Now())
	if dirty {
		cp := q.DeepCopy()
		cp.Status = st
		if _, err := rc.quotaR.UpdateStatus(ctx, cp); err != nil {
			if errors.Is(err, source.ErrNotFound) {
				return reconcile.Result{}, nil
			}
			// A conflict (the admission charged it meanwhile) is
			// retried with backoff from the newer cache.
			return reconcile.Result{}, fmt.Errorf("resourcequota: update status of %s: %w", key, err)
		}
		rc.log.Debug("resourcequota: synced", "quota", key, "used", prettyPrint(st.Used))
	}
	return reconcile.Result{RequeueAfter: rc.opts.ResyncPeriod}, nil
}
