package rootcacertpublisher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// The ConfigMap every namespace gets, as kube-controller-manager names
// and describes it.
const (
	// ConfigMapName is the name of the published ConfigMap.
	ConfigMapName = "kube-root-ca.crt"
	// DataKey is the key of the CA bundle in its data.
	DataKey = "ca.crt"
	// DescriptionAnnotation is the annotation describing its use.
	DescriptionAnnotation = "kubernetes.io/description"
	// Description is that annotation's value.
	Description = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// DefaultWorkers is the publisher's worker count: kube-controller-manager
// runs it with one.
const DefaultWorkers = 1

// Options configures a Publisher. The zero value publishes an empty
// bundle.
type Options struct {
	// RootCA is the PEM bundle published (kcm's --root-ca-file, or the CA
	// data of its own connection to the API server).
	RootCA []byte
	// Workers is the number of namespaces synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Publisher is the root CA certificate publisher. Create it with New,
// run it with Run.
type Publisher struct {
	res        client.Resource[*api.ConfigMap]
	configMaps *informer.Informer[*api.ConfigMap]
	rootCA     string
	ctl        *reconcile.Controller[string]
	log        *slog.Logger
}

// New returns the publisher of c over the shared informers "namespaces"
// and "configmaps" of f. Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Publisher, error) {
	if c == nil || f == nil {
		return nil, errors.New("rootcacertpublisher: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("rootcacertpublisher: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	p := &Publisher{rootCA: string(opts.RootCA), log: opts.Logger.With("controller", "root-ca-certificate-publisher-controller")}
	namespaces, err := client.For[*api.Namespace](c)
	if err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	if p.res, err = client.For[*api.ConfigMap](c); err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	nsInf, err := informer.Shared(f, "namespaces", source.ListWatcher[*api.Namespace](namespaces), api.Key[*api.Namespace], informer.Options[*api.Namespace]{Logger: opts.Logger})
	if err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	if p.configMaps, err = informer.Shared(f, "configmaps", source.ListWatcher[*api.ConfigMap](p.res), api.Key[*api.ConfigMap], informer.Options[*api.ConfigMap]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	if p.ctl, err = reconcile.New("root-ca-certificate-publisher-controller", reconcile.Func[string](p.sync),
		reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	// kcm: a namespace added, or updated while Active, is synced; the
	// published ConfigMap updated or deleted syncs its namespace.
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: p.ctl.Name()}}
	if _, err := reconcile.WatchEvents(p.ctl, nsInf, reconcile.Events[*api.Namespace, string]{
		Create: reconcile.ByKey(api.Key[*api.Namespace]),
		Update: func(_, ns *api.Namespace) []string {
			if ns.Status.Phase != api.NamespaceActive {
				return nil
			}
			return []string{ns.Name}
		},
	}, watch); err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	published := func(cm *api.ConfigMap) []string {
		if cm.Name != ConfigMapName {
			return nil
		}
		return []string{cm.Namespace}
	}
	if _, err := reconcile.WatchEvents(p.ctl, p.configMaps, reconcile.Events[*api.ConfigMap, string]{
		Update: func(_, cm *api.ConfigMap) []string { return published(cm) },
		Delete: published,
	}, watch); err != nil {
		return nil, fmt.Errorf("rootcacertpublisher: %w", err)
	}
	return p, nil
}

// Run syncs namespaces until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error.
func (p *Publisher) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("rootcacertpublisher: Run: context is nil")
	}
	return p.ctl.Run(ctx)
}

// Desired returns the ConfigMap namespace ns should have given the one
// it has (nil: none), and whether a write is needed: a new one when it
// has none; the same one with its data replaced by the bundle and the
// description annotation set when either differs; nil, false when it is
// as it should be (kcm's syncNamespace).
func Desired(have *api.ConfigMap, ns, rootCA string) (*api.ConfigMap, bool) {
	data := map[string]string{DataKey: rootCA}
	if have == nil {
		return &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: ConfigMapName,
			Annotations: map[string]string{DescriptionAnnotation: Description}}, Data: data}, true
	}
	if maps.Equal(have.Data, data) && have.BinaryData == nil && have.Annotations[DescriptionAnnotation] != "" {
		return nil, false
	}
	want := have.DeepCopy()
	want.Data = data
	if want.Annotations == nil {
		want.Annotations = map[string]string{}
	}
	want.Annotations[DescriptionAnnotation] = Description
	return want, true
}

func (p *Publisher) sync(ctx context.Context, ns string) (reconcile.Result, error) {
	have, _ := p.configMaps.Lister().Get(api.NamespacedKey(ns, ConfigMapName))
	want, write := Desired(have, ns, p.rootCA)
	if !write {
		return reconcile.Result{}, nil
	}
	if have == nil {
		_, err := p.res.Create(ctx, want)
		switch {
		case err == nil:
			p.log.Debug("rootcacertpublisher: published", "namespace", ns)
		case errors.Is(err, source.ErrNotFound), client.IsForbidden(err):
			// the namespace is gone or terminating: kcm does not retry
		case errors.Is(err, source.ErrAlreadyExists):
			// the cache was behind: its event will bring the sync back
		default:
			return reconcile.Result{}, fmt.Errorf("rootcacertpublisher: create %s/%s: %w", ns, ConfigMapName, err)
		}
		return reconcile.Result{}, nil
	}
	if _, err := p.res.Update(ctx, want, have.ResourceVersion); err != nil && !errors.Is(err, source.ErrNotFound) {
		return reconcile.Result{}, fmt.Errorf("rootcacertpublisher: update %s/%s: %w", ns, ConfigMapName, err)
	}
	return reconcile.Result{}, nil
}
