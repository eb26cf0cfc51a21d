package endpointslicemirroring

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
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
const ControllerName = "endpointslicemirroring-controller.k8s.io"

// LabelSkipMirror on an Endpoints set to "true" keeps it from being
// mirrored (discovery.k8s.io's LabelSkipMirror).
const LabelSkipMirror = "endpointslice.kubernetes.io/skip-mirror"

// annotationLeader marks an Endpoints used as a leader-election lock
// (resourcelock's LeaderElectionRecordAnnotationKey); such an Endpoints
// is not mirrored.
const annotationLeader = "control-plane.alpha.kubernetes.io/leader"

// DefaultWorkers is kube-controller-manager's
// --mirroring-concurrent-service-endpoint-syncs, 5.
const DefaultWorkers = 5

// DefaultMaxEndpointsPerSubset is kube-controller-manager's
// --mirroring-max-endpoints-per-subset, 1000.
const DefaultMaxEndpointsPerSubset = 1000

// Reasons of the events the controller records about an Endpoints.
const (
	// ReasonInvalidIPAddress: addresses that are not IPs were skipped.
	ReasonInvalidIPAddress = "InvalidIPAddress"
	// ReasonTooManyAddressesToMirror: a subset had more addresses than
	// MaxEndpointsPerSubset.
	ReasonTooManyAddressesToMirror = "TooManyAddressesToMirror"
)

// component is what kcm's mirroring controller records events as.
const component = "endpoint-slice-mirroring-controller"

// Options configure New. The zero value is valid.
type Options struct {
	// Workers is the number of Endpoints synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// MaxEndpointsPerSubset caps the addresses mirrored per subset (and
	// per slice). Default DefaultMaxEndpointsPerSubset; it must be within
	// 1..1000.
	MaxEndpointsPerSubset int
	// Recorder receives the events kcm records: InvalidIPAddress,
	// TooManyAddressesToMirror. Default: events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Controller is the EndpointSlice mirroring controller; see the package
// documentation.
type Controller struct {
	opts      Options
	res       client.Resource[*api.EndpointSlice]
	services  *informer.Informer[*api.Service]
	endpoints *informer.Informer[*api.Endpoints]
	slices    *informer.Informer[*api.EndpointSlice]
	gate      *reconcile.Consistency[string]
	ctl       *reconcile.Controller[string]
	r         reconciler
	log       *slog.Logger
}

// New returns the mirroring controller of the cluster c serves, over the
// shared informers of f ("services", "endpoints", "endpointslices").
// Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("endpointslicemirroring: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("endpointslicemirroring: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.MaxEndpointsPerSubset == 0 {
		opts.MaxEndpointsPerSubset = DefaultMaxEndpointsPerSubset
	}
	if opts.MaxEndpointsPerSubset < 1 || opts.MaxEndpointsPerSubset > 1000 {
		return nil, fmt.Errorf("endpointslicemirroring: MaxEndpointsPerSubset %d is not within 1..1000", opts.MaxEndpointsPerSubset)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Recorder == nil {
		opts.Recorder = events.NewLog(opts.Logger, component)
	}
	m := &Controller{opts: opts, log: opts.Logger.With("controller", component), r: reconciler{maxPerSubset: opts.MaxEndpointsPerSubset}}
	var err error
	if m.services, err = shared[*api.Service](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if m.endpoints, err = shared[*api.Endpoints](c, f, opts.Logger); err != nil {
		return nil, err
	}
	if m.res, err = client.For[*api.EndpointSlice](c); err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	if m.slices, err = informer.Shared(f, m.res.Resource(), source.ListWatcher[*api.EndpointSlice](m.res), api.Key[*api.EndpointSlice], informer.Options[*api.EndpointSlice]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	// Read-your-writes on the slices (kcm's endpointSliceTracker).
	if m.gate, err = reconcile.NewConsistency[string](m.slices, m.slices); err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	if m.ctl, err = reconcile.New(component, reconcile.Func[string](m.sync), reconcile.Options[string]{
		Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger,
		Consistency: []*reconcile.Consistency[string]{m.gate},
	}); err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	if err := m.register(); err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	return m, nil
}

func shared[T api.Object](c client.Client, f *informer.Factory, log *slog.Logger) (*informer.Informer[T], error) {
	res, err := client.For[T](c)
	if err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	inf, err := informer.Shared(f, res.Resource(), source.ListWatcher[T](res), api.Key[T], informer.Options[T]{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	return inf, nil
}

// Run syncs Endpoints until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error.
func (m *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("endpointslicemirroring: Run: context is nil")
	}
	return m.ctl.Run(ctx)
}

// shouldMirror is kcm's: not labelled skip-mirror "true", not a
// leader-election lock.
func shouldMirror(ep *api.Endpoints) bool {
	if ep.Labels[LabelSkipMirror] == "true" {
		return false
	}
	_, leader := ep.Annotations[annotationLeader]
	return !leader
}

// register wires the informers to the queue of Endpoints keys (a
// Service's key is its Endpoints').
func (m *Controller) register() error {
	opts := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: component}}
	if _, err := reconcile.WatchEvents(m.ctl, m.services, reconcile.Events[*api.Service, string]{
		Map: func(s *api.Service) []string { return []string{api.Key(s)} },
		// kcm: only a selector appearing or going away matters.
		Update: func(old, cur *api.Service) []string {
			if (len(old.Spec.Selector) == 0) != (len(cur.Spec.Selector) == 0) {
				return []string{api.Key(cur)}
			}
			return nil
		},
	}, opts); err != nil {
		return err
	}
	if _, err := reconcile.WatchEvents(m.ctl, m.endpoints, reconcile.Events[*api.Endpoints, string]{
		Map: func(ep *api.Endpoints) []string {
			if !shouldMirror(ep) {
				return nil
			}
			return []string{api.Key(ep)}
		},
		Update: func(old, cur *api.Endpoints) []string {
			if !shouldMirror(old) && !shouldMirror(cur) {
				return nil
			}
			return []string{api.Key(cur)}
		},
	}, opts); err != nil {
		return err
	}
	_, err := reconcile.WatchEvents(m.ctl, m.slices, reconcile.Events[*api.EndpointSlice, string]{
		Map: func(s *api.EndpointSlice) []string { return mirroredKey(s) },
		Update: func(old, cur *api.EndpointSlice) []string {
			return slices.Compact(slices.Sorted(slices.Values(append(mirroredKey(old), mirroredKey(cur)...))))
		},
		// A slice deleted by someone else is rebuilt.
		Delete: func(s *api.EndpointSlice) []string {
			keys := mirroredKey(s)
			for _, k := range keys {
				m.gate.Forget(k)
			}
			return keys
		},
	}, opts)
	return err
}

// mirroredKey is the key of the Endpoints a slice mirrors, if this
// controller manages it.
func mirroredKey(s *api.EndpointSlice) []string {
	name := s.Labels[api.LabelServiceName]
	if name == "" || s.Labels[LabelManagedBy] != ControllerName {
		return nil
	}
	return []string{s.Namespace + "/" + name}
}

// mirrored lists the slices this controller made for the Endpoints
// ns/name, but those being deleted.
func (m *Controller) mirrored(ns, name string) []*api.EndpointSlice {
	return m.slices.Lister().Namespace(ns).List(func(s *api.EndpointSlice) bool {
		return s.Labels[api.LabelServiceName] == name && s.Labels[LabelManagedBy] == ControllerName && s.DeletionTimestamp == nil
	})
}

// sync is kcm's syncEndpoints for the Endpoints under key.
func (m *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	ns, name, err := api.SplitKey(key)
	if err != nil {
		return reconcile.Result{}, fmt.Errorf("endpointslicemirroring: %w", err)
	}
	ep, ok := m.endpoints.Lister().Get(key)
	if !ok || !shouldMirror(ep) {
		return reconcile.Result{}, m.deleteMirrored(ctx, key, ns, name)
	}
	svc, ok := m.services.Lister().Get(key)
	if !ok || len(svc.Spec.Selector) > 0 {
		// No service, or one whose endpoints the EndpointSlice
		// controller makes from its pods.
		return reconcile.Result{}, m.deleteMirrored(ctx, key, ns, name)
	}
	p := m.r.reconcile(ep, m.mirrored(ns, name))
	ref := events.Ref{APIVersion: "v1", Kind: "Endpoints", Namespace: ep.Namespace, Name: ep.Name, UID: string(ep.UID)}
	if p.invalid > 0 {
		m.opts.Recorder.Eventf(ref, events.Warning, ReasonInvalidIPAddress,
			"Skipped %d invalid IP addresses when mirroring to EndpointSlices", p.invalid)
	}
	if p.skipped > p.invalid {
		m.opts.Recorder.Eventf(ref, events.Warning, ReasonTooManyAddressesToMirror,
			"A max of %d addresses can be mirrored to EndpointSlices per Endpoints subset. %d addresses were skipped", m.opts.MaxEndpointsPerSubset, p.skipped)
	}
	if err := m.write(ctx, key, p); err != nil {
		return reconcile.Result{}, fmt.Errorf("endpointslicemirroring: %s: %w", key, err)
	}
	return reconcile.Result{}, nil
}

// deleteMirrored deletes every slice mirroring the Endpoints key.
func (m *Controller) deleteMirrored(ctx context.Context, key, ns, name string) error {
	m.gate.Forget(key)
	if err := m.write(ctx, key, plan{delete: m.mirrored(ns, name)}); err != nil {
		return fmt.Errorf("endpointslicemirroring: %s: %w", key, err)
	}
	return nil
}

// write makes the plan's writes: creates, then updates, then deletes
// (kcm's finalize), recording each in the gate. A create refused because
// the namespace is terminating ends the sync quietly, as kcm's.
func (m *Controller) write(ctx context.Context, key string, p plan) error {
	var errs []error
	for _, s := range p.create {
		rv, err := m.res.Create(ctx, s) // s gets its generated name
		if err != nil {
			if errors.Is(err, client.ErrForbidden) {
				return nil
			}
			errs = append(errs, fmt.Errorf("create: %w", err))
			continue
		}
		errs = append(errs, m.gate.WroteKey(key, api.Key(s), rv))
	}
	for _, s := range p.update {
		rv, err := m.res.Update(ctx, s, "")
		if err != nil {
			errs = append(errs, fmt.Errorf("update %s: %w", s.Name, err))
			continue
		}
		errs = append(errs, m.gate.WroteKey(key, api.Key(s), rv))
	}
	for _, s := range p.delete {
		rv, err := m.res.Delete(ctx, api.Key(s), "")
		if err != nil {
			if errors.Is(err, source.ErrNotFound) {
				continue
			}
			errs = append(errs, fmt.Errorf("delete %s: %w", s.Name, err))
			continue
		}
		errs = append(errs, m.gate.DeletedKey(key, api.Key(s), rv))
	}
	return errors.Join(errs...)
}
