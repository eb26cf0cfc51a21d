package endpointslice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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

// LabelManagedBy is the label naming the controller that manages an
// EndpointSlice (discovery.k8s.io's LabelManagedBy).
const LabelManagedBy = "endpointslice.kubernetes.io/managed-by"

// ControllerName is this controller's value of LabelManagedBy.
const ControllerName = "endpointslice-controller.k8s.io"

// DefaultWorkers is kube-controller-manager's
// --concurrent-service-endpoint-syncs, 5.
const DefaultWorkers = 5

// DefaultMaxEndpointsPerSlice is kube-controller-manager's
// --max-endpoints-per-slice, 100.
const DefaultMaxEndpointsPerSlice = 100

// component is what kcm's EndpointSlice controller records events as.
const component = "endpoint-slice-controller"

// Options configure New. The zero value is valid.
type Options struct {
	// Workers is the number of services synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// MaxEndpointsPerSlice caps the endpoints of one slice. Default
	// DefaultMaxEndpointsPerSlice; it must be within 1..1000.
	MaxEndpointsPerSlice int
	// Recorder receives the events kcm records: FailedToUpdateEndpointSlices.
	// Default: events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Controller is the EndpointSlice controller; see the package
// documentation.
type Controller struct {
	opts     Options
	res      client.Resource[*api.EndpointSlice]
	services *informer.Informer[*api.Service]
	pods     *informer.Informer[*api.Pod]
	nodes    *informer.Informer[*api.Node]
	slices   *informer.Informer[*api.EndpointSlice]
	gate     *reconcile.Consistency[string]
	ctl      *reconcile.Controller[string]
	r        reconciler
	log      *slog.Logger
}

// New returns the EndpointSlice controller of the cluster c serves, over
// the shared informers of f ("services", "pods", "nodes",
// "endpointslices"). Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("endpointslice: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("endpointslice: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.MaxEndpointsPerSlice == 0 {
		opts.MaxEndpointsPerSlice = DefaultMaxEndpointsPerSlice
	}
	if opts.MaxEndpointsPerSlice < 1 || opts.MaxEndpointsPerSlice > 1000 {
		return nil, fmt.Errorf("endpointslice: MaxEndpointsPerSlice %d is not within 1..1000", opts.MaxEndpointsPerSlice)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Recorder == nil {
		opts.Recorder = events.NewLog(opts.Logger, component)
	}
	e := &Controller{opts: opts, log: opts.Logger.With("controller", component)}
	var err error
	if e.services, err = shared[*api.Service](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if e.pods, err = shared[*api.Pod](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if e.nodes, err = shared[*api.Node](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if e.res, err = client.For[*api.EndpointSlice](c); err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	if e.slices, err = informer.Shared(f, e.res.Resource(), source.ListWatcher[*api.EndpointSlice](e.res), api.Key[*api.EndpointSlice], informer.Options[*api.EndpointSlice]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	// Read-your-writes on the slices (kcm's endpointSliceTracker): a
	// service's next sync waits until the cache shows this one's writes.
	if e.gate, err = reconcile.NewConsistency[string](e.slices, e.slices); err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	e.r = reconciler{managedBy: ControllerName, maxPerSlice: opts.MaxEndpointsPerSlice,
		node: func(name string) (*api.Node, bool) { return e.nodes.Lister().Get(name) }}
	if e.ctl, err = reconcile.New(component, reconcile.Func[string](e.sync), reconcile.Options[string]{
		Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger,
		Consistency: []*reconcile.Consistency[string]{e.gate},
	}); err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	if err := e.register(); err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	return e, nil
}

func shared[T api.Object](c client.Client, f *informer.Factory, log *slog.Logger) (*informer.Informer[T], error) {
	res, err := client.For[T](c)
	if err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	inf, err := informer.Shared(f, res.Resource(), source.ListWatcher[T](res), api.Key[T], informer.Options[T]{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("endpointslice: %w", err)
	}
	return inf, nil
}

// Run syncs services until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error.
func (e *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("endpointslice: Run: context is nil")
	}
	return e.ctl.Run(ctx)
}

// register wires the informers to the queue of service keys.
func (e *Controller) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: component}}
	if _, err := reconcile.Watch(e.ctl, e.services, reconcile.ByKey(api.Key[*api.Service]), opts); err != nil {
		return err
	}
	if _, err := reconcile.WatchEvents(e.ctl, e.pods, reconcile.Events[*api.Pod, string]{
		Map: func(p *api.Pod) []string { return ctrlutil.ServicesForPod(e.servicesIn(p.Namespace), p) },
		Update: func(old, cur *api.Pod) []string {
			return ctrlutil.ServicesForPodChange(e.servicesIn(cur.Namespace), old, cur)
		},
	}, opts); err != nil {
		return err
	}
	_, err := reconcile.WatchEvents(e.ctl, e.slices, reconcile.Events[*api.EndpointSlice, string]{
		Map: func(s *api.EndpointSlice) []string { return e.serviceOf(s) },
		Update: func(old, cur *api.EndpointSlice) []string {
			return slices.Compact(slices.Sorted(slices.Values(append(e.serviceOf(old), e.serviceOf(cur)...))))
		},
		// A slice deleted by someone else is rebuilt; the delete is newer
		// than any write of ours the gate waits to see.
		Delete: func(s *api.EndpointSlice) []string {
			keys := e.serviceOf(s)
			for _, k := range keys {
				e.gate.Forget(k)
			}
			return keys
		},
	}, opts)
	return err
}

// serviceOf is the key of the service of a slice this controller
// manages (none for another's).
func (e *Controller) serviceOf(s *api.EndpointSlice) []string {
	name := s.Labels[api.LabelServiceName]
	if name == "" || s.Labels[LabelManagedBy] != ControllerName {
		return nil
	}
	return []string{s.Namespace + "/" + name}
}

func (e *Controller) servicesIn(ns string) []*api.Service {
	return e.services.Lister().Namespace(ns).List(nil)
}

// sync is kcm's syncService: the slices of the service under key are
// brought to its pods'.
func (e *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	svc, ok := e.services.Lister().Get(key)
	if !ok {
		// Its slices are the garbage collector's: they have the service
		// as their owner.
		e.gate.Forget(key)
		return reconcile.Result{}, nil
	}
	if svc.Spec.Type == api.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		// No slices from this controller: an ExternalName service has no
		// endpoints, one without a selector gets its user's (mirrored).
		return reconcile.Result{}, nil
	}
	pods := e.pods.Lister().Namespace(svc.Namespace).List(func(p *api.Pod) bool { return ctrlutil.ServiceSelects(svc, p.Labels) })
	existing := e.slices.Lister().Namespace(svc.Namespace).List(func(s *api.EndpointSlice) bool {
		return s.Labels[api.LabelServiceName] == svc.Name && s.Labels[LabelManagedBy] == ControllerName
	})
	p := e.r.reconcile(svc, pods, existing)
	if err := e.write(ctx, key, p); err != nil {
		if !errors.Is(err, client.ErrForbidden) {
			e.opts.Recorder.Eventf(events.Ref{APIVersion: "v1", Kind: "Service", Namespace: svc.Namespace, Name: svc.Name, UID: string(svc.UID)},
				events.Warning, "FailedToUpdateEndpointSlices", "Error updating Endpoint Slices for Service %s: %v", key, err)
		}
		return reconcile.Result{}, fmt.Errorf("endpointslice: %s: %w", key, err)
	}
	if len(p.skipped) > 0 {
		// kcm: the pods of an unknown node are left out and the service
		// is retried later.
		e.log.Debug("pods skipped: node not found", "service", key, "pods", p.skipped)
		return reconcile.Result{RequeueAfter: time.Second}, nil
	}
	return reconcile.Result{}, nil
}

// write makes the plan's writes: updates, then creates, then deletes
// (kcm's finalize), recording each in the gate.
func (e *Controller) write(ctx context.Context, key string, p plan) error {
	var errs []error
	for _, s := range p.update {
		rv, err := e.res.Update(ctx, s, s.ResourceVersion)
		if err != nil {
			errs = append(errs, fmt.Errorf("update %s: %w", s.Name, err))
			continue
		}
		errs = append(errs, e.gate.WroteKey(key, api.Key(s), rv))
	}
	for _, s := range p.create {
		rv, err := e.res.Create(ctx, s)
		if err != nil {
			if errors.Is(err, client.ErrForbidden) {
				// A terminating namespace: creates will go on failing.
				return err
			}
			errs = append(errs, fmt.Errorf("create: %w", err))
			continue
		}
		errs = append(errs, e.gate.WroteKey(key, api.Key(s), rv))
	}
	for _, s := range p.delete {
		rv, err := e.res.Delete(ctx, api.Key(s), s.ResourceVersion)
		if err != nil {
			if errors.Is(err, source.ErrNotFound) {
				continue
			}
			errs = append(errs, fmt.Errorf("delete %s: %w", s.Name, err))
			continue
		}
		errs = append(errs, e.gate.DeletedKey(key, api.Key(s), rv))
	}
	return errors.Join(errs...)
}
