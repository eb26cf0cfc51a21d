package pvcprotection

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/ephemeral"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Finalizer is the finalizer that keeps a claim in use from going:
// kube-apiserver's StorageObjectInUseProtection admission plugin adds it
// on create, this controller on claims that lack it, and this
// controller removes it once no pod uses the claim being deleted.
const Finalizer = admission.PVCProtectionFinalizer

// DefaultWorkers is the controller's worker count: kcm runs it with one.
const DefaultWorkers = 1

// Options configures a Controller. The zero value is valid.
type Options struct {
	// Workers is the number of claims synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Controller is the PVC protection controller. Create it with New, run it
// with Run.
type Controller struct {
	claims client.Resource[*api.PersistentVolumeClaim]
	pods   client.Resource[*api.Pod]
	cache  *informer.Informer[*api.PersistentVolumeClaim]
	podInf *informer.Informer[*api.Pod]
	ctl    *reconcile.Controller[string]
	log    *slog.Logger
}

// New returns the controller of c over the shared informers
// "persistentvolumeclaims" and "pods" of f. Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("pvcprotection: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("pvcprotection: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	pc := &Controller{log: opts.Logger.With("controller", "persistentvolumeclaim-protection-controller")}
	var err error
	if pc.claims, err = client.For[*api.PersistentVolumeClaim](c); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	if pc.pods, err = client.For[*api.Pod](c); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	if pc.cache, err = informer.Shared(f, "persistentvolumeclaims", source.ListWatcher[*api.PersistentVolumeClaim](pc.claims),
		api.Key[*api.PersistentVolumeClaim], informer.Options[*api.PersistentVolumeClaim]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	if pc.podInf, err = informer.Shared(f, "pods", source.ListWatcher[*api.Pod](pc.pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	if pc.ctl, err = reconcile.New("persistentvolumeclaim-protection-controller", reconcile.Func[string](pc.sync),
		reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: pc.ctl.Name()}}
	// kcm: a claim added or updated is synced if it needs the finalizer
	// added or may have it removed.
	claim := func(pvc *api.PersistentVolumeClaim) []string {
		if needsFinalizer(pvc) || deletionCandidate(pvc) {
			return []string{api.Key(pvc)}
		}
		return nil
	}
	if _, err := reconcile.WatchEvents(pc.ctl, pc.cache, reconcile.Events[*api.PersistentVolumeClaim, string]{
		Create: claim,
		Update: func(_, pvc *api.PersistentVolumeClaim) []string { return claim(pvc) },
	}, watch); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	// A pod that can no longer be using its claims (deleted, finished, or
	// never scheduled) syncs them.
	released := func(pod *api.Pod, deleted bool) []string {
		if !deleted && !Terminated(pod) && pod.Spec.NodeName != "" {
			return nil
		}
		var keys []string
		for i := range pod.Spec.Volumes {
			v := &pod.Spec.Volumes[i]
			switch {
			case v.PersistentVolumeClaim != nil:
				keys = append(keys, api.NamespacedKey(pod.Namespace, v.PersistentVolumeClaim.ClaimName))
			case v.Ephemeral != nil:
				keys = append(keys, api.NamespacedKey(pod.Namespace, ephemeral.ClaimName(pod, v)))
			}
		}
		return keys
	}
	if _, err := reconcile.WatchEvents(pc.ctl, pc.podInf, reconcile.Events[*api.Pod, string]{
		Create: func(p *api.Pod) []string { return released(p, false) },
		Update: func(_, p *api.Pod) []string { return released(p, false) },
		Delete: func(p *api.Pod) []string { return released(p, true) },
	}, watch); err != nil {
		return nil, fmt.Errorf("pvcprotection: %w", err)
	}
	return pc, nil
}

// Run syncs claims until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error.
func (pc *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("pvcprotection: Run: context is nil")
	}
	return pc.ctl.Run(ctx)
}

func needsFinalizer(pvc *api.PersistentVolumeClaim) bool {
	return pvc.DeletionTimestamp == nil && !slices.Contains(pvc.Finalizers, Finalizer)
}

func deletionCandidate(pvc *api.PersistentVolumeClaim) bool {
	return pvc.DeletionTimestamp != nil && slices.Contains(pvc.Finalizers, Finalizer)
}

// Terminated reports whether pod has stopped for good, as kube's volume
// utilities decide it: Succeeded or Failed, or being deleted with no
// container running.
func Terminated(pod *api.Pod) bool {
	if pod.Status.Phase == api.PodSucceeded || pod.Status.Phase == api.PodFailed {
		return true
	}
	if pod.DeletionTimestamp == nil {
		return false
	}
	for _, statuses := range [][]api.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, s := range statuses {
			if s.State.Terminated == nil && s.State.Waiting == nil {
				return false
			}
		}
	}
	return true
}

// Uses reports whether pod keeps claim from being deleted, as kcm's
// podUsesPVCForDeletion: it is scheduled to a node and mounts the claim —
// by name, or as the claim of a generic ephemeral volume
// (<pod>-<volume>, controlled by the pod) unless the pod is shut down
// (deleted with a zero grace period: kubelet is done with it, and its own
// finalizers may wait for the claim to go).
func Uses(pod *api.Pod, claim *api.PersistentVolumeClaim) bool {
	if pod.Spec.NodeName == "" {
		return false
	}
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim.Name {
			return true
		}
		if v.Ephemeral != nil && !shutDown(pod) && ephemeral.ClaimName(pod, v) == claim.Name && ephemeral.IsForPod(pod, claim) == nil {
			return true
		}
	}
	return false
}

func (pc *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	pvc, ok := pc.cache.Lister().Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	if deletionCandidate(pvc) {
		used, err := pc.inUse(ctx, pvc)
		if err != nil {
			return reconcile.Result{}, err
		}
		if !used {
			return reconcile.Result{}, pc.setFinalizer(ctx, pvc, false)
		}
		pc.log.Debug("pvcprotection: keeping the claim: a pod uses it", "claim", key)
	}
	if needsFinalizer(pvc) {
		return reconcile.Result{}, pc.setFinalizer(ctx, pvc, true)
	}
	return reconcile.Result{}, nil
}

// inUse asks the pod cache first, then, when it finds no user, the
// server (the cache may not have seen a pod created just now), as kcm
// does.
func (pc *Controller) inUse(ctx context.Context, pvc *api.PersistentVolumeClaim) (bool, error) {
	if len(pc.podInf.Lister().Namespace(pvc.Namespace).List(func(p *api.Pod) bool { return Uses(p, pvc) })) > 0 {
		return true, nil
	}
	inNamespace, err := pc.pods.Select(client.SelectOptions{Namespace: pvc.Namespace})
	if err != nil {
		return false, fmt.Errorf("pvcprotection: %w", err)
	}
	l, err := inNamespace.List(ctx, source.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("pvcprotection: live list of pods failed: %w", err)
	}
	for _, pod := range l.Items {
		if Uses(pod, pvc) {
			return true, nil
		}
	}
	return false, nil
}

// setFinalizer adds or removes the finalizer with a conditional update.
func (pc *Controller) setFinalizer(ctx context.Context, pvc *api.PersistentVolumeClaim, add bool) error {
	c := pvc.DeepCopy()
	if add {
		c.Finalizers = append(c.Finalizers, Finalizer)
	} else {
		c.Finalizers = slices.DeleteFunc(c.Finalizers, func(f string) bool { return f == Finalizer })
	}
	if _, err := pc.claims.Update(ctx, c, pvc.ResourceVersion); err != nil && !errors.Is(err, source.ErrNotFound) {
		return fmt.Errorf("pvcprotection: update %s: %w", api.Key(pvc), err)
	}
	return nil
}

// shutDown is kcm's podIsShutDown: deleted with a zero grace period.
func shutDown(pod *api.Pod) bool {
	return pod.DeletionTimestamp != nil && pod.DeletionGracePeriodSeconds != nil && *pod.DeletionGracePeriodSeconds == 0
}
