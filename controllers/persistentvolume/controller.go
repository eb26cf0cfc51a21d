package persistentvolume

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// DefaultWorkers is the default number of claims and volumes synced
// concurrently.
const DefaultWorkers = 2

// Options configure New. The zero value is valid.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Workers is the number of objects synced concurrently. Default
	// DefaultWorkers; negative is an error.
	Workers int
	// Recorder receives the controller's events (FailedBinding,
	// ProvisioningSucceeded, ClaimLost, …). Default: events.NewLog over
	// Logger.
	Recorder events.Recorder
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
}

// Controller is the PersistentVolume binder and simulated provisioner.
// See the package documentation.
type Controller struct {
	ctl *reconcile.Controller[string]
}

// Run syncs claims and volumes until ctx ends, once the informers have
// synced, and returns after every worker has exited: ctx's error after a
// clean drain, or the drain's error (it wraps reconcile.ErrShutdownTimeout
// or workqueue.ErrDrainAborted) if reconciles in flight had to be
// cancelled.
func (c *Controller) Run(ctx context.Context) error {
	return c.ctl.Run(ctx)
}

const component = "persistentvolume-binder-controller"

// Requests are "claim:<namespace>/<name>" or "volume:<name>".
const (
	claimPrefix  = "claim:"
	volumePrefix = "volume:"
)

type manager struct {
	pvs     client.Resource[*api.PersistentVolume]
	pvcs    client.Resource[*api.PersistentVolumeClaim]
	vols    *informer.Informer[*api.PersistentVolume]
	claims  *informer.Informer[*api.PersistentVolumeClaim]
	classes *informer.Informer[*api.StorageClass]
	nodes   *informer.Informer[*api.Node]
	pods    *informer.Informer[*api.Pod]
	volW    source.Writer[*api.PersistentVolume]
	claimW  source.Writer[*api.PersistentVolumeClaim]
	volG    *reconcile.Consistency[string]
	claimG  *reconcile.Consistency[string]
	ctl     *reconcile.Controller[string]
	rec     events.Recorder
}

// New returns the controller of client c over the shared informers of
// f ("persistentvolumes", "persistentvolumeclaims", "storageclasses",
// "nodes", "pods").
// Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	if c == nil || f == nil {
		return nil, errors.New("persistentvolume: client and factory are required")
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("persistentvolume: Workers %d is negative", opts.Workers)
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Recorder == nil {
		opts.Recorder = events.NewLog(opts.Logger, component)
	}
	m := &manager{rec: opts.Recorder}
	var err error
	if m.pvs, err = client.For[*api.PersistentVolume](c); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if m.pvcs, err = client.For[*api.PersistentVolumeClaim](c); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	classes, err := client.For[*api.StorageClass](c)
	if err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	nodes, err := client.For[*api.Node](c)
	if err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if m.nodes, err = shared(f, nodes, opts.Logger); err != nil {
		return nil, err
	}
	if m.pods, err = shared(f, pods, opts.Logger); err != nil {
		return nil, err
	}
	if m.vols, err = shared(f, m.pvs, opts.Logger); err != nil {
		return nil, err
	}
	if m.claims, err = shared(f, m.pvcs, opts.Logger); err != nil {
		return nil, err
	}
	if m.classes, err = shared(f, classes, opts.Logger); err != nil {
		return nil, err
	}
	if m.volG, err = reconcile.NewConsistency[string](m.vols, m.vols); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if m.claimG, err = reconcile.NewConsistency[string](m.claims, m.claims); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if m.volW, err = reconcile.GatedWriter[*api.PersistentVolume](m.volG, m.pvs, api.Key[*api.PersistentVolume]); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if m.claimW, err = reconcile.GatedWriter[*api.PersistentVolumeClaim](m.claimG, m.pvcs, api.Key[*api.PersistentVolumeClaim]); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if m.ctl, err = reconcile.New(component, reconcile.Func[string](m.sync), reconcile.Options[string]{
		Metrics:      opts.ReconcileMetrics,
		QueueMetrics: opts.QueueMetrics,
		Workers:      opts.Workers, Logger: opts.Logger, Consistency: []*reconcile.Consistency[string]{m.volG, m.claimG},
	}); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	if err := m.register(); err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	return &Controller{ctl: m.ctl}, nil
}

func shared[T api.Object](f *informer.Factory, s client.Resource[T], logger *slog.Logger) (*informer.Informer[T], error) {
	inf, err := informer.Shared(f, s.Resource(), source.ListWatcher[T](s), api.Key[T], informer.Options[T]{Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("persistentvolume: %w", err)
	}
	return inf, nil
}

func (m *manager) sync(ctx context.Context, req string) (reconcile.Result, error) {
	var err error
	switch {
	case strings.HasPrefix(req, claimPrefix):
		err = m.syncClaim(ctx, strings.TrimPrefix(req, claimPrefix))
	case strings.HasPrefix(req, volumePrefix):
		err = m.syncVolume(ctx, strings.TrimPrefix(req, volumePrefix))
	}
	return reconcile.Result{}, err
}

func (m *manager) syncClaim(ctx context.Context, key string) error {
	c, ok := m.claims.Lister().Get(key)
	if !ok {
		m.claimG.Forget(claimPrefix + key)
		return nil
	}
	p := decideClaim(c, claimWorld{
		volumes: m.vols.Lister().List(nil),
		classes: m.classes.Lister().List(nil),
		node:    m.nodes.Lister().Get,
		pods: m.pods.Lister().Namespace(c.Namespace).List(func(p *api.Pod) bool {
			return podUsesClaim(p, c.Name)
		}),
	})
	ref := events.Ref{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: c.Namespace, Name: c.Name, UID: string(c.UID)}
	if p.event != "" {
		typ := events.Warning
		if p.eventType == "Normal" {
			typ = events.Normal
		}
		m.rec.Eventf(ref, typ, p.event, "%s", p.eventMessage)
	}
	if p.claim != nil {
		if _, err := m.claimW.Update(ctx, p.claim, ""); err != nil {
			return fmt.Errorf("persistentvolume: claim %s: %w", key, err)
		}
	}
	if p.volume != nil {
		if _, err := m.volW.Update(ctx, p.volume, ""); err != nil {
			return fmt.Errorf("persistentvolume: bind %s to claim %s: %w", p.volume.Name, key, err)
		}
	}
	if p.volumePhase != "" {
		if err := m.setVolumePhase(ctx, c.Spec.VolumeName, p, p.volumePhase); err != nil {
			return err
		}
	}
	if p.claimStatus != nil {
		cur, _, err := m.claimW.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("persistentvolume: claim %s: %w", key, err)
		}
		cur.Status = *p.claimStatus
		if _, err := m.pvcs.UpdateStatus(ctx, cur); err != nil {
			return fmt.Errorf("persistentvolume: claim %s status: %w", key, err)
		}
	}
	if p.provision != nil {
		_, err := m.volW.Create(ctx, p.provision)
		if err != nil && !errors.Is(err, source.ErrAlreadyExists) {
			m.rec.Eventf(ref, events.Warning, "ProvisioningFailed", "failed to provision volume: %v", err)
			return fmt.Errorf("persistentvolume: provision for %s: %w", key, err)
		}
		if err == nil {
			m.rec.Eventf(ref, events.Normal, "ProvisioningSucceeded", "Successfully provisioned volume %s", p.provision.Name)
		}
	}
	return nil
}

// setVolumePhase writes the phase of the volume the plan bound (or the
// claim names).
func (m *manager) setVolumePhase(ctx context.Context, name string, p claimPlan, phase api.PersistentVolumePhase) error {
	if p.volume != nil {
		name = p.volume.Name
	} else if p.claim != nil && p.claim.Spec.VolumeName != "" {
		name = p.claim.Spec.VolumeName
	}
	v, _, err := m.volW.Get(ctx, name)
	if err != nil {
		return fmt.Errorf("persistentvolume: %s: %w", name, err)
	}
	v.Status.Phase = phase
	if _, err := m.pvs.UpdateStatus(ctx, v); err != nil {
		return fmt.Errorf("persistentvolume: %s status: %w", name, err)
	}
	return nil
}

func (m *manager) syncVolume(ctx context.Context, name string) error {
	v, ok := m.vols.Lister().Get(name)
	if !ok {
		m.volG.Forget(volumePrefix + name)
		return nil
	}
	var c *api.PersistentVolumeClaim
	if r := v.Spec.ClaimRef; r != nil {
		c, _ = m.claims.Lister().Get(api.NamespacedKey(r.Namespace, r.Name))
	}
	p := decideVolume(v, c)
	if p.released {
		// The cache may lag: confirm with a live read that the claim
		// is gone (syncVolume's second look at the API server).
		r := v.Spec.ClaimRef
		live, _, err := m.pvcs.Get(ctx, api.NamespacedKey(r.Namespace, r.Name))
		switch {
		case err == nil && live.UID == r.UID:
			return nil // its event is on the way
		case err != nil && !errors.Is(err, source.ErrNotFound):
			return fmt.Errorf("persistentvolume: %s: claim: %w", name, err)
		}
	}
	ref := events.Ref{APIVersion: "v1", Kind: "PersistentVolume", Name: v.Name, UID: string(v.UID)}
	if p.event != "" {
		m.rec.Eventf(ref, events.Warning, p.event, "%s", p.eventMessage)
	}
	if p.delete {
		if _, err := m.volW.Delete(ctx, name, ""); err != nil && !errors.Is(err, source.ErrNotFound) {
			m.rec.Eventf(ref, events.Warning, "VolumeFailedDelete", "%v", err)
			return fmt.Errorf("persistentvolume: delete %s: %w", name, err)
		}
		return nil
	}
	if p.phase != "" {
		cp := v.DeepCopy()
		cp.Status.Phase = p.phase
		if _, err := m.pvs.UpdateStatus(ctx, cp); err != nil {
			return fmt.Errorf("persistentvolume: %s status: %w", name, err)
		}
	}
	return nil
}

// register: a claim's events enqueue it and the volume it names; a
// volume's events enqueue it and the claim its claimRef names (a new
// volume may also fit any pending claim: they are all enqueued); a
// StorageClass's events enqueue every unbound claim.
func (m *manager) register() error {
	claimEv := func(c *api.PersistentVolumeClaim) []string {
		keys := []string{claimPrefix + api.Key(c)}
		if c.Spec.VolumeName != "" {
			keys = append(keys, volumePrefix+c.Spec.VolumeName)
		}
		for _, v := range m.vols.Lister().List(nil) {
			if r := v.Spec.ClaimRef; r != nil && r.Namespace == c.Namespace && r.Name == c.Name {
				keys = append(keys, volumePrefix+v.Name)
			}
		}
		return keys
	}
	watch := reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: component}}
	if _, err := reconcile.WatchEvents(m.ctl, m.claims, reconcile.Events[*api.PersistentVolumeClaim, string]{
		Map:    claimEv,
		Update: func(_, c *api.PersistentVolumeClaim) []string { return claimEv(c) },
	}, watch); err != nil {
		return err
	}
	unbound := func() []string {
		var keys []string
		for _, c := range m.claims.Lister().List(nil) {
			if c.Spec.VolumeName == "" {
				keys = append(keys, claimPrefix+api.Key(c))
			}
		}
		return keys
	}
	volEv := func(v *api.PersistentVolume) []string {
		keys := []string{volumePrefix + v.Name}
		if r := v.Spec.ClaimRef; r != nil {
			return append(keys, claimPrefix+api.NamespacedKey(r.Namespace, r.Name))
		}
		return append(keys, unbound()...)
	}
	if _, err := reconcile.WatchEvents(m.ctl, m.vols, reconcile.Events[*api.PersistentVolume, string]{
		Map:    volEv,
		Update: func(_, v *api.PersistentVolume) []string { return volEv(v) },
	}, watch); err != nil {
		return err
	}
	if _, err := reconcile.WatchEvents(m.ctl, m.classes, reconcile.Events[*api.StorageClass, string]{
		Create: func(*api.StorageClass) []string { return unbound() },
		Update: func(_, _ *api.StorageClass) []string { return unbound() },
	}, watch); err != nil {
		return err
	}
	// A node's arrival retries the unbound claims waiting for it as
	// their selected node.
	if _, err := reconcile.WatchEvents(m.ctl, m.nodes, reconcile.Events[*api.Node, string]{
		Create: func(n *api.Node) []string {
			var keys []string
			for _, c := range m.claims.Lister().List(nil) {
				if c.Spec.VolumeName == "" && c.Annotations[AnnSelectedNode] == n.Name {
					keys = append(keys, claimPrefix+api.Key(c))
				}
			}
			return keys
		},
	}, watch); err != nil {
		return err
	}
	// A pod's creation or scheduling re-syncs its unbound claims
	// (their WaitForPodScheduled / WaitForFirstConsumer event; kcm's
	// periodic resync does it there).
	podEv := func(p *api.Pod) []string {
		var keys []string
		for _, c := range m.claims.Lister().Namespace(p.Namespace).List(nil) {
			if c.Spec.VolumeName == "" && podUsesClaim(p, c.Name) {
				keys = append(keys, claimPrefix+api.Key(c))
			}
		}
		return keys
	}
	_, err := reconcile.WatchEvents(m.ctl, m.pods, reconcile.Events[*api.Pod, string]{
		Create: podEv,
		Update: func(old, p *api.Pod) []string {
			if old.Spec.NodeName == p.Spec.NodeName {
				return nil
			}
			return podEv(p)
		},
	}, watch)
	return err
}
