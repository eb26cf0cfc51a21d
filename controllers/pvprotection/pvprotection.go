package pvprotection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Finalizer is the finalizer that keeps a bound volume from going:
// kube-apiserver's StorageObjectInUseProtection admission plugin adds it
// on create, this controller on volumes that lack it, and this
// controller removes it once the volume being deleted is not Bound.
const Finalizer = admission.PVProtectionFinalizer

// DefaultWorkers is the controller's worker count: kcm runs it with one.
const DefaultWorkers = 1

// Options configures a Controller. The zero value is valid.
type Options struct {
	// Workers is the number of volumes synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Controller is the PV protection controller. Create it with New, run it
// with Run.
type Controller struct {
	volumes client.Resource[*api.PersistentVolume]
	cache   *informer.Informer[*api.PersistentVolume]
	ctl     *reconcile.Controller[string]
	log     *slog.Logger
}

// New returns the controller of c over the shared informer
// "persistentvolumes" of f. Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("pvprotection: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("pvprotection: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	pc := &Controller{log: opts.Logger.With("controller", "persistentvolume-protection-controller")}
	var err error
	if pc.volumes, err = client.For[*api.PersistentVolume](c); err != nil {
		return nil, fmt.Errorf("pvprotection: %w", err)
	}
	if pc.cache, err = informer.Shared(f, "persistentvolumes", source.ListWatcher[*api.PersistentVolume](pc.volumes),
		api.Key[*api.PersistentVolume], informer.Options[*api.PersistentVolume]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("pvprotection: %w", err)
	}
	if pc.ctl, err = reconcile.New("persistentvolume-protection-controller", reconcile.Func[string](pc.sync),
		reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("pvprotection: %w", err)
	}
	// kcm: a volume added or updated is synced if it needs the finalizer
	// added or may have it removed.
	volume := func(pv *api.PersistentVolume) []string {
		if needsFinalizer(pv) || deletionCandidate(pv) {
			return []string{api.Key(pv)}
		}
		return nil
	}
	if _, err := reconcile.WatchEvents(pc.ctl, pc.cache, reconcile.Events[*api.PersistentVolume, string]{
		Create: volume,
		Update: func(_, pv *api.PersistentVolume) []string { return volume(pv) },
	}, reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: pc.ctl.Name()}}); err != nil {
		return nil, fmt.Errorf("pvprotection: %w", err)
	}
	return pc, nil
}

// Run syncs volumes until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error.
func (pc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("pvprotection: Run: context is nil")
	}
	return pc.ctl.Run(ctx)
}

func needsFinalizer(pv *api.PersistentVolume) bool {
	return pv.DeletionTimestamp == nil && !slices.Contains(pv.Finalizers, Finalizer)
}

func deletionCandidate(pv *api.PersistentVolume) bool {
	return pv.DeletionTimestamp != nil && slices.Contains(pv.Finalizers, Finalizer)
}

func (pc *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	pv, ok := pc.cache.Lister().Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	var change func([]string) []string
	switch {
	case deletionCandidate(pv) && pv.Status.Phase != "Bound":
		change = func(f []string) []string { return slices.DeleteFunc(f, func(s string) bool { return s == Finalizer }) }
	case deletionCandidate(pv):
		pc.log.Debug("pvprotection: keeping the volume: it is bound", "volume", key)
		return reconcile.Result{}, nil
	case needsFinalizer(pv):
		change = func(f []string) []string { return append(f, Finalizer) }
	default:
		return reconcile.Result{}, nil
	}
	c := pv.DeepCopy()
	c.Finalizers = change(c.Finalizers)
	if _, err := pc.volumes.Update(ctx, c, pv.ResourceVersion); err != nil && !errors.Is(err, source.ErrNotFound) {
		return reconcile.Result{}, fmt.Errorf("pvprotection: update %s: %w", key, err)
	}
	return reconcile.Result{}, nil
}
