package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultName is the service account every namespace gets, and the one
// a pod that names none runs as.
const DefaultName = "default"

// DefaultWorkers is --concurrent-serviceaccount-syncs.
const DefaultWorkers = 1

// mirrorAnnotation marks a static pod's mirror, which may not use a
// service account.
const mirrorAnnotation = "kubernetes.io/config.mirror"

// Options configures a Controller. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Names are the service accounts ensured in every namespace.
	// Default [DefaultName].
	Names []string
	// Workers is the number of namespaces synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

// Controller is the service account controller. Create it with New, run
// it with Run.
type Controller struct {
	res        client.Resource[*api.ServiceAccount]
	names      []string
	namespaces *informer.Informer[*api.Namespace]
	accounts   *informer.Informer[*api.ServiceAccount]
	ctl        *reconcile.Controller[string]
	log        *slog.Logger
}

// New returns the service account controller of c over the shared
// informers "namespaces" and "serviceaccounts" of f. Start f after New,
// then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("serviceaccount: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("serviceaccount: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Names == nil {
		opts.Names = []string{DefaultName}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	sc := &Controller{names: slices.Clone(opts.Names), log: opts.Logger.With("controller", "serviceaccount-controller")}
	namespaces, err := client.For[*api.Namespace](c)
	if err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if sc.res, err = client.For[*api.ServiceAccount](c); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if sc.namespaces, err = informer.Shared(f, "namespaces", source.ListWatcher[*api.Namespace](namespaces), api.Key[*api.Namespace], informer.Options[*api.Namespace]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if sc.accounts, err = informer.Shared(f, "serviceaccounts", source.ListWatcher[*api.ServiceAccount](sc.res), api.Key[*api.ServiceAccount], informer.Options[*api.ServiceAccount]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if sc.ctl, err = reconcile.New("serviceaccount-controller", reconcile.Func[string](sc.sync), reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	// kcm: a namespace added or updated is synced; a managed account
	// deleted syncs its namespace (which recreates it).
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: sc.ctl.Name()}}
	if _, err := reconcile.WatchEvents(sc.ctl, sc.namespaces, reconcile.Events[*api.Namespace, string]{
		Create: reconcile.ByKey(api.Key[*api.Namespace]),
		Update: func(_, ns *api.Namespace) []string { return []string{ns.Name} },
	}, watch); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	if _, err := reconcile.WatchEvents(sc.ctl, sc.accounts, reconcile.Events[*api.ServiceAccount, string]{
		Delete: func(sa *api.ServiceAccount) []string {
			if slices.Contains(sc.names, sa.Name) {
				return []string{sa.Namespace}
			}
			return nil
		},
	}, watch); err != nil {
		return nil, fmt.Errorf("serviceaccount: %w", err)
	}
	return sc, nil
}

// Run syncs namespaces until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error (it wraps
// reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted) if
// reconciles in flight had to be cancelled.
func (sc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("serviceaccount: Run: context is nil")
	}
	return sc.ctl.Run(ctx)
}

// Missing returns the accounts of names that namespace ns should get:
// none when ns is gone or terminating, otherwise those not in have
// (kcm's syncNamespace).
func Missing(ns *api.Namespace, names []string, have func(name string) bool) []string {
	if ns == nil || ns.DeletionTimestamp != nil || ns.Status.Phase == api.NamespaceTerminating {
		return nil
	}
	var out []string
	for _, n := range names {
		if !have(n) {
			out = append(out, n)
		}
	}
	return out
}

func (sc *Controller) sync(ctx context.Context, name string) (reconcile.Result, error) {
	ns, _ := sc.namespaces.Lister().Get(name)
	have := func(sa string) bool { _, ok := sc.accounts.Lister().Get(api.NamespacedKey(name, sa)); return ok }
	for _, sa := range Missing(ns, sc.names, have) {
		_, err := sc.res.Create(ctx, &api.ServiceAccount{ObjectMeta: api.ObjectMeta{Name: sa, Namespace: name}})
		switch {
		case err == nil:
			sc.log.Info("serviceaccount: created", "namespace", name, "name", sa)
		case errors.Is(err, source.ErrAlreadyExists), client.IsForbidden(err), errors.Is(err, source.ErrNotFound):
			// the cache was behind, or the namespace is going
		default:
			return reconcile.Result{}, fmt.Errorf("serviceaccount: create %s/%s: %w", name, sa, err)
		}
	}
	return reconcile.Result{}, nil
}

// ErrNotFound is wrapped by the error of a pod create naming a service
// account that does not exist (kube-apiserver answers 403 Forbidden).
var ErrNotFound = errors.New("serviceaccount: service account not found")

// Admission is kube-apiserver's ServiceAccount admission plugin, for the
// mutating phase (an admission.MutatingFunc: Admit): on a pod create it
// sets spec.serviceAccountName to "default" when empty, and refuses the
// pod when that account does not exist in its namespace, with the
// plugin's message ("service account ns/name was not found, retry after
// the service account is created"). Mirror pods are left alone. It reads
// the accounts through the client contract. Wire it as
// resourcequota.Admission is; with the in-process cluster:
//
//	sa := serviceaccount.NewAdmission()
//	c, err := cluster.New(ctx, cluster.Options{Mutating: []admission.MutatingFunc{sa.Admit}})
//	err = sa.SetClient(c)
//
// Until SetClient is called it only defaults the name.
type Admission struct {
	accounts atomic.Pointer[accountReader]
}

// accountReader holds the resource Admit reads accounts from.
type accountReader struct {
	res client.Resource[*api.ServiceAccount]
}

// NewAdmission returns an Admission without a client.
func NewAdmission() *Admission { return &Admission{} }

// SetClient sets the client whose service accounts Admit looks up; an
// error when c does not serve service accounts.
func (a *Admission) SetClient(c client.Client) error {
	res, err := client.For[*api.ServiceAccount](c)
	if err != nil {
		return fmt.Errorf("serviceaccount: %w", err)
	}
	a.accounts.Store(&accountReader{res: res})
	return nil
}

// Admit is the admission.MutatingFunc; see Admission.
func (a *Admission) Admit(ctx context.Context, attr admission.Attributes) error {
	if attr.Operation != admission.Create || attr.Resource != "pods" || attr.Subresource != "" {
		return nil
	}
	p, ok := attr.Object.(*api.Pod)
	if !ok {
		return nil
	}
	if _, mirror := p.Annotations[mirrorAnnotation]; mirror {
		return nil
	}
	if p.Spec.ServiceAccountName == "" {
		p.Spec.ServiceAccountName = p.Spec.DeprecatedServiceAccount // the old field's value, as conversion carries it
	}
	if p.Spec.ServiceAccountName == "" {
		p.Spec.ServiceAccountName = DefaultName
	}
	r := a.accounts.Load()
	if r == nil {
		return nil
	}
	_, _, err := r.res.Get(ctx, api.NamespacedKey(p.Namespace, p.Spec.ServiceAccountName))
	switch {
	case client.IsNotFound(err):
		return fmt.Errorf("service account %s/%s was not found, retry after the service account is created: %w",
			p.Namespace, p.Spec.ServiceAccountName, ErrNotFound)
	case err != nil:
		return fmt.Errorf("error looking up service account %s/%s: %w", p.Namespace, p.Spec.ServiceAccountName, err)
	}
	return nil
}
