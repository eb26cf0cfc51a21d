package ephemeral

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is kcm's --concurrent-ephemeralvolume-syncs default.
const DefaultWorkers = 5

// Component is the component kcm's ephemeral volume controller records
// its events as.
const Component = "ephemeral_volume"

const controllerName = "ephemeral-volume-controller"

// Options configures a Controller. The zero value is valid.
type Options struct {
	// Workers is the number of pods synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Recorder receives the controller's events (FailedBinding).
	// Default: events.NewLog over Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// ReconcileMetrics and QueueMetrics, if set, meter the controller.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
}

// Controller is the ephemeral volume controller. Create it with New,
// run it with Run.
type Controller struct {
	claims   client.Resource[*api.PersistentVolumeClaim]
	claimInf *informer.Informer[*api.PersistentVolumeClaim]
	podInf   *informer.Informer[*api.Pod]
	ctl      *reconcile.Controller[string]
	rec      events.Recorder
}

// ClaimName is the name of the claim of pod's ephemeral volume vol:
// <pod name>-<volume name> (component-helpers' VolumeClaimName).
func ClaimName(pod *api.Pod, vol *api.Volume) string {
	return pod.Name + "-" + vol.Name
}

// IsForPod returns nil if claim is the one made for pod (same namespace,
// controlled by the pod), else the error kcm reports
// (component-helpers' VolumeIsForPod).
func IsForPod(pod *api.Pod, claim *api.PersistentVolumeClaim) error {
	if claim.Namespace != pod.Namespace || !api.IsControlledBy(claim, pod) {
		return fmt.Errorf("PVC %s/%s was not created for pod %s/%s (pod is not owner)", claim.Namespace, claim.Name, pod.Namespace, pod.Name)
	}
	return nil
}

// NewClaim is the claim made for pod's ephemeral volume vol (vol.Ephemeral
// must be set): the template's labels, annotations and spec, named
// ClaimName, owned and controlled by the pod.
func NewClaim(pod *api.Pod, vol *api.Volume) *api.PersistentVolumeClaim {
	t := true
	c := &api.PersistentVolumeClaim{
		TypeMeta: api.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
		ObjectMeta: api.ObjectMeta{Name: ClaimName(pod, vol), Namespace: pod.Namespace,
			OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
				Controller: &t, BlockOwnerDeletion: &t}}},
	}
	if tmpl := vol.Ephemeral.VolumeClaimTemplate; tmpl != nil {
		tmpl = tmpl.DeepCopy()
		c.Labels, c.Annotations, c.Spec = tmpl.Labels, tmpl.Annotations, tmpl.Spec
	}
	return c
}

// New returns the controller of c over the shared informers "pods" and
// "persistentvolumeclaims" of f. Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("ephemeral: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("ephemeral: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Recorder == nil {
		opts.Recorder = events.NewLog(opts.Logger, Component)
	}
	ec := &Controller{rec: opts.Recorder}
	var err error
	if ec.claims, err = client.For[*api.PersistentVolumeClaim](c); err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	if ec.claimInf, err = informer.Shared(f, "persistentvolumeclaims", source.ListWatcher[*api.PersistentVolumeClaim](ec.claims),
		api.Key[*api.PersistentVolumeClaim], informer.Options[*api.PersistentVolumeClaim]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	if ec.podInf, err = informer.Shared(f, "pods", source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod],
		informer.Options[*api.Pod]{Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	if ec.ctl, err = reconcile.New(controllerName, reconcile.Func[string](ec.sync), reconcile.Options[string]{
		Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: opts.Logger}); err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: controllerName}}
	if _, err := reconcile.WatchEvents(ec.ctl, ec.podInf, reconcile.Events[*api.Pod, string]{
		Create: func(p *api.Pod) []string {
			if p.DeletionTimestamp == nil && hasEphemeral(p) {
				return []string{api.Key(p)}
			}
			return nil
		},
	}, watch); err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	// A deleted claim is made again for the live pods whose ephemeral
	// volume it was (kcm's onPVCDelete over the PodPVC index).
	if _, err := reconcile.WatchEvents(ec.ctl, ec.claimInf, reconcile.Events[*api.PersistentVolumeClaim, string]{
		Delete: func(c *api.PersistentVolumeClaim) []string {
			var keys []string
			for _, p := range ec.podInf.Lister().Namespace(c.Namespace).List(func(p *api.Pod) bool {
				return p.DeletionTimestamp == nil && ownsName(p, c.Name)
			}) {
				keys = append(keys, api.Key(p))
			}
			return keys
		},
	}, watch); err != nil {
		return nil, fmt.Errorf("ephemeral: %w", err)
	}
	return ec, nil
}

// Run syncs pods until ctx ends and returns after every worker has
// exited: ctx's error after a clean drain, or the drain's error (it
// wraps reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted).
func (ec *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("ephemeral: Run: context is nil")
	}
	return ec.ctl.Run(ctx)
}

func hasEphemeral(p *api.Pod) bool {
	for i := range p.Spec.Volumes {
		if p.Spec.Volumes[i].Ephemeral != nil {
			return true
		}
	}
	return false
}

func ownsName(p *api.Pod, claim string) bool {
	for i := range p.Spec.Volumes {
		if v := &p.Spec.Volumes[i]; v.Ephemeral != nil && ClaimName(p, v) == claim {
			return true
		}
	}
	return false
}

// sync is kcm's syncHandler: each ephemeral volume of the pod in order;
// the first failure is an event on the pod and a retry.
func (ec *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	pod, ok := ec.podInf.Lister().Get(key)
	if !ok || pod.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	for i := range pod.Spec.Volumes {
		vol := &pod.Spec.Volumes[i]
		if err := ec.handleVolume(ctx, pod, vol); err != nil {
			ref := events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID)}
			ec.rec.Eventf(ref, events.Warning, "FailedBinding", "ephemeral volume %s: %v", vol.Name, err)
			return reconcile.Result{}, fmt.Errorf("ephemeral: pod %s, ephemeral volume %s: %w", key, vol.Name, err)
		}
	}
	return reconcile.Result{}, nil
}

func (ec *Controller) handleVolume(ctx context.Context, pod *api.Pod, vol *api.Volume) error {
	if vol.Ephemeral == nil {
		return nil
	}
	name := ClaimName(pod, vol)
	if c, ok := ec.claimInf.Lister().Get(api.NamespacedKey(pod.Namespace, name)); ok {
		return IsForPod(pod, c)
	}
	if _, err := ec.claims.Create(ctx, NewClaim(pod, vol)); err != nil {
		return fmt.Errorf("create PVC %s: %w", name, err)
	}
	return nil
}
