package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
	"github.com/ctrlkit/ctrlkit/controllers/dns"
	"github.com/ctrlkit/ctrlkit/controllers/eventsink"
	"github.com/ctrlkit/ctrlkit/controllers/hpa"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/controllers/proxy"
	"github.com/ctrlkit/ctrlkit/controllers/resourcequota"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/controllers/serviceaccount"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/source"
)

// Options configures a ControlPlane. The zero value runs one node in
// memory with every controller.
type Options struct {
	// Nodes is how many simulated nodes to start (named node-1 …).
	// Default 1; negative is an error.
	Nodes int
	// Zones spreads the nodes round-robin over this many zones
	// (label topology.kubernetes.io/zone = zone-a, zone-b, …). Default
	// 0: no zone label.
	Zones int
	// Cluster configures the store (backend, admission).
	Cluster cluster.Options
	// Webhooks, when set, calls the admission webhooks of the cluster's
	// ValidatingWebhookConfigurations and MutatingWebhookConfigurations
	// (package controllers/webhook) with these options, as
	// kube-apiserver's MutatingAdmissionWebhook and
	// ValidatingAdmissionWebhook plugins do: after the mutating plugins
	// of Cluster and the controllers, and before resource quota. Nil: no
	// webhooks are called.
	Webhooks *webhook.Options
	// Manager configures the controller manager: which controllers,
	// their workers, the leader election. Its Factory and Logger are
	// set by Start.
	Manager manager.Options
	// Invariants are checked at every create and update of the store,
	// before it is applied; see Invariant.
	Invariants []Invariant
	// Logger receives every component's logs. Default: discarded.
	Logger *slog.Logger
	// ManagerOnly starts the store's client and the controller manager
	// alone: no nodes, scheduler, proxy or DNS (ControlPlane's fields for
	// them stay nil and Nodes is ignored). It is a second replica of a
	// control plane whose other components run elsewhere on the same
	// store, its manager campaigning through Manager.Elector.
	ManagerOnly bool
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	// Cluster is the store every component reads and writes.
	Cluster *cluster.Cluster
	// Scheduler places pods; Explain tells why.
	Scheduler *scheduler.Scheduler
	// Kubelets are the simulated nodes, in order.
	Kubelets []*kubelet.Kubelet
	// Manager runs the controllers.
	Manager *manager.Manager
	// Proxy is kube-proxy's rules table over the services and endpoints
	// (one for the cluster: the simulated nodes share it).
	Proxy *proxy.Proxier
	// DNS resolves service names as cluster DNS does.
	DNS *dns.Resolver
	// Load is the pods' CPU usage the horizontal pod autoscaler sees,
	// unless Options.Manager.PodMetrics replaces it; change it while the
	// control plane runs to watch the autoscaler react.
	Load *hpa.Load

	factory *informer.Factory
	elector leader.Elector // the manager's
	// schedulerEvents writes the scheduler's events (source
	// default-scheduler).
	schedulerEvents *events.Broadcaster
	activity        *activity
	cancel          context.CancelFunc
	wg              sync.WaitGroup
	mu              sync.Mutex
	errs            []error     // guarded by mu
	broken          []Violation // guarded by mu
	failed          chan struct{}
	failOnce        sync.Once
}

// runner is what Start runs.
type runner interface {
	Run(ctx context.Context) error
}

// Start builds the store and every component and runs them until ctx
// ends or Stop is called.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	if ctx == nil {
		return nil, errors.New("controlplane: Start: context is nil")
	}
	if opts.Nodes < 0 {
		return nil, fmt.Errorf("controlplane: Options.Nodes is negative (%d)", opts.Nodes)
	}
	if opts.Zones < 0 {
		return nil, fmt.Errorf("controlplane: Options.Zones is negative (%d)", opts.Zones)
	}
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	if opts.ManagerOnly {
		opts.Nodes = 0
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	cp := &ControlPlane{cancel: cancel, failed: make(chan struct{})}
	fail := func(err error) (*ControlPlane, error) { cancel(); return nil, fmt.Errorf("controlplane: %w", err) }

	// The admission plugins of the controllers that run: quota
	// (validating, charges usage), service accounts (mutating: the
	// default account), cron schedules (validating); and kube-apiserver's
	// LimitRanger and Priority, which belong to no controller.
	descs := opts.Manager.Descriptors
	if descs == nil {
		descs = manager.Descriptors()
	}
	controllers := opts.Manager.Controllers
	if controllers == nil {
		controllers = []string{"*"}
	}
	enabled, err := manager.Select(descs, controllers)
	if err != nil {
		return fail(err)
	}
	names := manager.Names(enabled)
	copts := opts.Cluster
	copts.Admission = append([]cluster.AdmissionFunc(nil), copts.Admission...)
	copts.Mutating = append([]cluster.MutatingFunc(nil), copts.Mutating...)
	var quota *resourcequota.Admission
	var accounts *serviceaccount.Admission
	var hooks *webhook.Dispatcher
	// kube-apiserver's built-in LimitRanger, Priority and
	// StorageObjectInUseProtection plugins, in its order: LimitRanger,
	// ServiceAccount, Priority, StorageObjectInUseProtection, then the
	// webhooks, then ResourceQuota.
	limits, priority := admission.NewLimitRanger(), admission.NewPriority()
	copts.Mutating = append(copts.Mutating, limits.Admit)
	copts.Admission = append(copts.Admission, limits.Validate, priority.Validate)
	if opts.Webhooks != nil {
		hooks = webhook.New(*opts.Webhooks)
		copts.Admission = append(copts.Admission, hooks.Validate)
	}
	if slices.Contains(names, manager.ResourceQuotaController) {
		quota = resourcequota.NewAdmission()
		copts.Admission = append(copts.Admission, quota.Admit)
	}
	if slices.Contains(names, manager.ServiceAccountController) {
		accounts = serviceaccount.NewAdmission()
		copts.Mutating = append(copts.Mutating, accounts.Admit)
	}
	copts.Mutating = append(copts.Mutating, priority.Admit)
	if slices.Contains(names, manager.PVCProtectionController) && slices.Contains(names, manager.PVProtectionController) {
		// Only with the controllers that remove its finalizers: without
		// them no claim or volume could ever be deleted.
		copts.Mutating = append(copts.Mutating, admission.StorageObjectInUseProtection)
	}
	if hooks != nil {
		copts.Mutating = append(copts.Mutating, hooks.Mutate)
	}
	copts.Admission = append(copts.Admission, cronjob.Admission)
	if len(opts.Invariants) > 0 {
		copts.Admission = append(copts.Admission, cp.checkInvariants(opts.Invariants))
	}
	c, err := cluster.New(ctx, copts)
	if err != nil {
		return fail(err)
	}
	cp.Cluster = c
	if err := limits.SetClient(c); err != nil {
		return fail(err)
	}
	if err := priority.SetClient(c); err != nil {
		return fail(err)
	}
	if err := admission.EnsureSystemPriorityClasses(ctx, c); err != nil {
		return fail(err)
	}
	if hooks != nil {
		hooks.SetClient(c)
	}
	if quota != nil {
		if err := quota.SetClient(c); err != nil {
			return fail(err)
		}
	}
	if accounts != nil {
		if err := accounts.SetClient(c); err != nil {
			return fail(err)
		}
	}
	cp.factory = informer.NewFactory(informer.FactoryOptions{Logger: logger})
	var runners []runner
	var kubeletEvents *events.Broadcaster
	if opts.Nodes > 0 {
		// One broadcaster for every kubelet, each event with its node as
		// host (source kubelet, host node-N, as a node's kubelet records).
		if kubeletEvents, err = events.NewBroadcaster(eventsink.New(c.Events()), events.Options{Component: "kubelet", Logger: logger}); err != nil {
			return fail(err)
		}
		runners = append(runners, kubeletEvents)
	}
	for i := 1; i <= opts.Nodes; i++ {
		name := fmt.Sprintf("node-%d", i)
		ko := kubelet.Options{NodeName: name, Logger: logger, PodCIDR: podCIDR(i), Recorder: kubeletEvents.ForHost(name)}
		if opts.Zones > 0 {
			ko.Labels = map[string]string{api.LabelTopologyZone: fmt.Sprintf("zone-%c", 'a'+rune((i-1)%opts.Zones))}
		}
		k, err := kubelet.New(c, ko)
		if err != nil {
			return fail(err)
		}
		cp.Kubelets = append(cp.Kubelets, k)
		runners = append(runners, k)
	}
	if !opts.ManagerOnly {
		if err := cp.startScheduler(c, logger); err != nil {
			return fail(err)
		}
		runners = append(runners, cp.Scheduler, cp.schedulerEvents)
	}
	mopts := opts.Manager
	mopts.Factory, mopts.Logger = cp.factory, logger
	if mopts.Elector == nil {
		mopts.Elector = leader.NewMemory()
	}
	cp.elector = mopts.Elector
	if mopts.PodMetrics == nil {
		cp.Load = hpa.NewLoad(c.Pods()).WithObjects(c)
		mopts.PodMetrics = cp.Load
	}
	if cp.Manager, err = manager.New(c, mopts); err != nil {
		return fail(err)
	}
	runners = append(runners, cp.Manager)
	if !opts.ManagerOnly {
		if cp.Proxy, err = proxy.New(c, cp.factory, proxy.Options{Logger: logger}); err != nil {
			return fail(err)
		}
		runners = append(runners, cp.Proxy)
		if cp.DNS, err = dns.New(c, cp.factory, dns.Options{}); err != nil {
			return fail(err)
		}
	}
	if cp.activity, err = watchActivity(ctx, c, cp.factory); err != nil {
		return fail(err)
	}

	for _, r := range runners {
		cp.wg.Go(func() {
			if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				cp.mu.Lock()
				cp.errs = append(cp.errs, err)
				cp.mu.Unlock()
				cp.failOnce.Do(func() { close(cp.failed) })
			}
		})
	}
	return cp, nil
}

// startScheduler builds the scheduler, which holds a pod whose claims are
// not bound (VolumeBinding) over the volume binder's informers, and binds
// the claims of WaitForFirstConsumer classes for the node it chooses.
func (cp *ControlPlane) startScheduler(c *cluster.Cluster, logger *slog.Logger) error {
	claims, err := informer.Shared(cp.factory, c.PersistentVolumeClaims().Resource(), source.ListWatcher[*api.PersistentVolumeClaim](c.PersistentVolumeClaims()),
		api.Key[*api.PersistentVolumeClaim], informer.Options[*api.PersistentVolumeClaim]{Logger: logger})
	if err != nil {
		return err
	}
	volumes, err := informer.Shared(cp.factory, c.PersistentVolumes().Resource(), source.ListWatcher[*api.PersistentVolume](c.PersistentVolumes()),
		api.Key[*api.PersistentVolume], informer.Options[*api.PersistentVolume]{Logger: logger})
	if err != nil {
		return err
	}
	classes, err := informer.Shared(cp.factory, c.StorageClasses().Resource(), source.ListWatcher[*api.StorageClass](c.StorageClasses()),
		api.Key[*api.StorageClass], informer.Options[*api.StorageClass]{Logger: logger})
	if err != nil {
		return err
	}
	namespaces, err := informer.Shared(cp.factory, c.Namespaces().Resource(), source.ListWatcher[*api.Namespace](c.Namespaces()),
		api.Key[*api.Namespace], informer.Options[*api.Namespace]{Logger: logger})
	if err != nil {
		return err
	}
	pdbRes, err := client.For[*api.PodDisruptionBudget](c)
	if err != nil {
		return err
	}
	pdbs, err := informer.Shared(cp.factory, pdbRes.Resource(), source.ListWatcher[*api.PodDisruptionBudget](pdbRes),
		api.Key[*api.PodDisruptionBudget], informer.Options[*api.PodDisruptionBudget]{Logger: logger})
	if err != nil {
		return err
	}
	csiRes, err := client.For[*api.CSINode](c)
	if err != nil {
		return err
	}
	csiNodes, err := informer.Shared(cp.factory, csiRes.Resource(), source.ListWatcher[*api.CSINode](csiRes),
		api.Key[*api.CSINode], informer.Options[*api.CSINode]{Logger: logger})
	if err != nil {
		return err
	}
	w := scheduler.ClusterWriter{Cluster: c}
	rec, err := events.NewBroadcaster(eventsink.New(c.Events()), events.Options{Component: scheduler.DefaultSchedulerName, Logger: logger})
	if err != nil {
		return err
	}
	cp.schedulerEvents = rec
	if cp.Scheduler, err = scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: logger, Recorder: rec,
		Claims: scheduler.ClaimsFrom(claims.Lister()), Volumes: scheduler.VolumesFrom(volumes.Lister()),
		StorageClasses: scheduler.StorageClassesFrom(classes.Lister()), VolumeList: scheduler.VolumeListFrom(volumes.Lister()),
		VolumeWriter: w,
		CSINodes:     scheduler.CSINodesFrom(csiNodes.Lister()),
		Namespaces:   scheduler.NamespacesFrom(namespaces.Lister()),
		Preempt:      w, PDBs: scheduler.PDBsFrom(pdbs.Lister()),
		Synced: []func() bool{claims.HasSynced, volumes.HasSynced, classes.HasSynced, csiNodes.HasSynced, namespaces.HasSynced, pdbs.HasSynced}}); err != nil {
		return err
	}
	return nil
}

// podCIDR is node i's pod range: 10.244.i.0/24 as kubeadm's default
// cluster CIDR gives them, and past 255 nodes 100.64.0.0/10, a /24 each.
func podCIDR(i int) string {
	if i < 256 {
		return fmt.Sprintf("10.244.%d.0/24", i)
	}
	return fmt.Sprintf("100.%d.%d.0/24", 64+i>>8, i&255)
}

// applyWait bounds how long Apply waits for a namespace's default
// service account, which the serviceaccount controller creates moments
// after the namespace.
const applyWait = 30 * time.Second

// Apply creates objs in the store, in order (namespaces first if you
// list them first), and reports every failure with the object it
// concerns; the others are still created. A pod refused because its
// namespace's service account does not exist yet is retried for up to
// 30 s, as kubectl users retry.
func (cp *ControlPlane) Apply(ctx context.Context, objs ...api.Object) error {
	var errs []error
	for _, o := range objs {
		_, err := cp.Cluster.CreateObject(ctx, o)
		for deadline := time.Now().Add(applyWait); errors.Is(err, serviceaccount.ErrNotFound) && time.Now().Before(deadline); {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(200 * time.Millisecond):
			}
			_, err = cp.Cluster.CreateObject(ctx, o)
		}
		if err != nil {
			m := o.GetObjectMeta()
			errs = append(errs, fmt.Errorf("%s %s/%s: %w", o.GroupVersionKind().Kind, m.Namespace, m.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Failed is closed when a component stops by itself with an error while
// the control plane runs — the manager that lost its leadership term
// (manager.ErrLeadershipLost), a kubelet or the scheduler that failed —
// and Err says why. The rest keeps running; a program should stop, as
// kube-controller-manager exits when it loses its lease so that its
// supervisor restarts it, rather than run on without that component.
func (cp *ControlPlane) Failed() <-chan struct{} { return cp.failed }

// Err returns the errors components stopped with so far (other than
// cancellation), joined; nil while none has.
func (cp *ControlPlane) Err() error {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return errors.Join(cp.errs...)
}

// Stop stops every component and returns once every goroutine has
// exited, with the errors components ended with (other than
// cancellation) and the invariants broken.
func (cp *ControlPlane) Stop() error {
	cp.cancel()
	cp.wg.Wait()
	cp.factory.Shutdown()
	cp.mu.Lock()
	defer cp.mu.Unlock()
	errs := append([]error(nil), cp.errs...)
	for _, v := range cp.broken {
		errs = append(errs, v)
	}
	return errors.Join(errs...)
}
