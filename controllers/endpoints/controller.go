package endpoints

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is the default number of services synced concurrently:
// kube-controller-manager's --concurrent-endpoint-syncs
// (ConcurrentEndpointSyncs), 5.
const DefaultWorkers = 5

// Options configure New. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of services synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Writer writes the Endpoints. Default: the client's Endpoints
	// resource. Tests wrap that store (fake.NewRecorder) to count writes;
	// anything else must still write to the same cluster.
	Writer source.Writer[*api.Endpoints]
	// Recorder receives the events kube-controller-manager records:
	// FailedToCreateEndpoint, FailedToUpdateEndpoint. Default:
	// events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

func (o *Options) validate(endpoints client.Resource[*api.Endpoints]) error {
	if o.Workers < 0 {
		return fmt.Errorf("endpoints: Workers %d is negative", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = DefaultWorkers
	}
	if o.Writer == nil {
		o.Writer = endpoints
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Recorder == nil {
		o.Recorder = events.NewLog(o.Logger, component)
	}
	return nil
}

const component = "endpoint-controller"

// Controller is the endpoints controller; see the package documentation.
type Controller struct {
	opts      Options
	services  *informer.Informer[*api.Service]
	pods      *informer.Informer[*api.Pod]
	endpoints *informer.Informer[*api.Endpoints]
	writer    source.Writer[*api.Endpoints] // opts.Writer, its writes recorded in gate
	gate      *reconcile.Consistency[string]
	ctl       *reconcile.Controller[string]
	log       *slog.Logger
}

// New returns the endpoints controller of the cluster that c serves,
// over the shared informers of f ("services", "pods", "endpoints").
// Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("endpoints: client and factory are required")
	}
	services, err := client.For[*api.Service](c)
	if err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	endpoints, err := client.For[*api.Endpoints](c)
	if err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	if err := opts.validate(endpoints); err != nil {
		return nil, err
	}
	e := &Controller{opts: opts, log: opts.Logger.With("controller", component)}
	if e.services, err = informer.Shared(f, services.Resource(), source.ListWatcher[*api.Service](services), api.Key[*api.Service], informer.Options[*api.Service]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	if e.pods, err = informer.Shared(f, pods.Resource(), source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	if e.endpoints, err = informer.Shared(f, endpoints.Resource(), source.ListWatcher[*api.Endpoints](endpoints), api.Key[*api.Endpoints], informer.Options[*api.Endpoints]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	// Read-your-writes on the Endpoints (kcm's staleEndpointsTracker):
	// the next sync of a service waits until the cache shows this one's
	// write. An Endpoints object has its service's key. The informer
	// orders resourceVersions as its source does.
	if e.gate, err = reconcile.NewConsistency[string](e.endpoints, e.endpoints); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	if e.writer, err = reconcile.GatedWriter[*api.Endpoints](e.gate, opts.Writer, api.Key[*api.Endpoints]); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	if e.ctl, err = reconcile.New(component, reconcile.Func[string](e.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers,
		Logger:       opts.Logger,
		Consistency:  []*reconcile.Consistency[string]{e.gate},
	}); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	if err := e.register(); err != nil {
		return nil, fmt.Errorf("endpoints: %w", err)
	}
	return e, nil
}

// Run syncs services until ctx ends, once the informers have synced, and
// returns after every worker has exited: ctx's error after a clean
// drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout or
// workqueue.ErrDrainAborted) if reconciles in flight had to be
// cancelled. The factory's informers are the caller's: start them with
// f.Start.
func (e *Controller) Run(ctx context.Context) error { return e.ctl.Run(ctx) }

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
	_, err := reconcile.WatchEvents(e.ctl, e.endpoints, reconcile.Events[*api.Endpoints, string]{
		// checkLeftoverEndpoints: every Endpoints of the first list is
		// synced once, which deletes those whose service went away while
		// no controller ran.
		Initial: reconcile.ByKey(api.Key[*api.Endpoints]),
		// onEndpointsDelete: an Endpoints deleted by someone else is
		// rebuilt. The delete is newer than any write of ours the gate
		// waits to see, so its record goes (an absent key would
		// otherwise hold the sync until the gate gives up).
		Delete: func(ep *api.Endpoints) []string {
			e.gate.Forget(api.Key(ep))
			return []string{api.Key(ep)}
		},
	}, opts)
	return err
}

func (e *Controller) servicesIn(ns string) []*api.Service {
	return e.services.Lister().Namespace(ns).List(nil)
}

// sync is kube-controller-manager's syncService for the service under
// key: it reads the service, its pods and its Endpoints from the
// caches, lets decide say what to write, and writes it.
func (e *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	svc, ok := e.services.Lister().Get(key)
	if !ok {
		// The service is gone: so is its Endpoints. (kcm deletes
		// unconditionally; the cache is read first here, as the gate
		// guarantees it shows this controller's own creates.)
		if _, cached := e.endpoints.Lister().Get(key); !cached {
			e.gate.Forget(key)
			return reconcile.Result{}, nil
		}
		if _, err := e.writer.Delete(ctx, key, ""); err != nil && !errors.Is(err, source.ErrNotFound) {
			return reconcile.Result{}, fmt.Errorf("endpoints: delete %s: %w", key, err)
		}
		return reconcile.Result{}, nil
	}
	if svc.Spec.Type == api.ServiceTypeExternalName || len(svc.Spec.Selector) == 0 {
		// No endpoints from this controller: an ExternalName service has
		// none, and a service without a selector gets those its user
		// writes.
		return reconcile.Result{}, nil
	}
	pods := e.pods.Lister().Namespace(svc.Namespace).List(func(p *api.Pod) bool {
		return ctrlutil.ServiceSelects(svc, p.Labels)
	})
	var current *api.Endpoints
	if cur, ok := e.endpoints.Lister().Get(key); ok {
		current = cur
	}
	d := decide(svc, pods, current)
	switch d.op {
	case opNone:
		return reconcile.Result{}, nil
	case opCreate:
		_, err := e.writer.Create(ctx, d.endpoints)
		if err != nil {
			if errors.Is(err, client.ErrForbidden) {
				// Most likely a terminating namespace: creates will go on
				// failing, and the namespace's end removes the service.
				e.log.Debug("forbidden to create endpoints", "service", key, "err", err)
				return reconcile.Result{}, nil
			}
			e.opts.Recorder.Eventf(ref(svc), events.Warning, "FailedToCreateEndpoint", "Failed to create endpoint for service %s: %v", key, err)
			return reconcile.Result{}, fmt.Errorf("endpoints: create %s: %w", key, err)
		}
	case opUpdate:
		_, err := e.writer.Update(ctx, d.endpoints, d.endpoints.ResourceVersion)
		if err != nil {
			e.opts.Recorder.Eventf(ref(svc), events.Warning, "FailedToUpdateEndpoint", "Failed to update endpoint %s: %v", key, err)
			return reconcile.Result{}, fmt.Errorf("endpoints: update %s: %w", key, err)
		}
	}
	e.log.Debug("wrote endpoints", "service", key, "op", d.op, "ready", d.ready, "notReady", d.notReady)
	return reconcile.Result{}, nil
}

func ref(svc *api.Service) events.Ref {
	return events.Ref{APIVersion: "v1", Kind: "Endpoints", Namespace: svc.Namespace, Name: svc.Name}
}
