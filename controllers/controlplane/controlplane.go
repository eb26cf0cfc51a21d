package controlplane

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/controllers/kubelet"
	"github.com/ctrlkit/ctrlkit/controllers/podgc"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Options configures a ControlPlane. The zero value runs one node in
// memory.
type Options struct {
	// Nodes is how many simulated nodes to start (named node-1 …).
	// Default 1; negative is an error.
	Nodes int
	// Cluster configures the store (backend, admission).
	Cluster cluster.Options
	// Logger receives every component's logs. Default: discarded.
	Logger *slog.Logger
}

// ControlPlane is a running control plane.
type ControlPlane struct {
	// Cluster is the store every component reads and writes.
	Cluster *cluster.Cluster
	// Scheduler places pods; Explain tells why.
	Scheduler *scheduler.Scheduler
	// Kubelets are the simulated nodes, in order.
	Kubelets []*kubelet.Kubelet

	factory *informer.Factory
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	mu      sync.Mutex
	errs    []error // guarded by mu
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
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	cp := &ControlPlane{cancel: cancel}
	fail := func(err error) (*ControlPlane, error) { cancel(); return nil, fmt.Errorf("controlplane: %w", err) }

	c, err := cluster.New(ctx, opts.Cluster)
	if err != nil {
		return fail(err)
	}
	cp.Cluster = c
	cp.factory = informer.NewFactory(informer.FactoryOptions{Logger: logger})
	var runners []runner
	for i := 1; i <= opts.Nodes; i++ {
		k, err := kubelet.New(c, kubelet.Options{NodeName: fmt.Sprintf("node-%d", i), Logger: logger,
			PodCIDR: fmt.Sprintf("10.244.%d.0/24", i)})
		if err != nil {
			return fail(err)
		}
		cp.Kubelets = append(cp.Kubelets, k)
		runners = append(runners, k)
	}
	w := scheduler.ClusterWriter{Cluster: c}
	if cp.Scheduler, err = scheduler.New(scheduler.Options{Pods: c.Pods(), Nodes: c.Nodes(), Binder: w, Status: w, Logger: logger}); err != nil {
		return fail(err)
	}
	runners = append(runners, cp.Scheduler)
	rs, err := replicaset.New(c, cp.factory, replicaset.Options{Logger: logger})
	if err != nil {
		return fail(err)
	}
	rc, err := replicaset.NewReplicationManager(c, cp.factory, replicaset.Options{Logger: logger})
	if err != nil {
		return fail(err)
	}
	dep, err := deployment.New(c, cp.factory, deployment.Options{Logger: logger})
	if err != nil {
		return fail(err)
	}
	gc, err := garbagecollector.New(c, cp.factory, garbagecollector.Options{Logger: logger})
	if err != nil {
		return fail(err)
	}
	pgc, err := podgc.New(c, cp.factory, podgc.Options{Logger: logger})
	if err != nil {
		return fail(err)
	}
	runners = append(runners, rs, rc, dep, gc, pgc)

	cp.factory.Start(ctx)
	for _, r := range runners {
		cp.wg.Go(func() {
			if err := r.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				cp.mu.Lock()
				cp.errs = append(cp.errs, err)
				cp.mu.Unlock()
			}
		})
	}
	return cp, nil
}

// Apply creates objs in the store, in order (namespaces first if you
// list them first), and reports every failure with the object it
// concerns; the others are still created.
func (cp *ControlPlane) Apply(ctx context.Context, objs ...api.Object) error {
	var errs []error
	for _, o := range objs {
		if _, err := cp.Cluster.CreateObject(ctx, o); err != nil {
			m := o.GetObjectMeta()
			errs = append(errs, fmt.Errorf("%s %s/%s: %w", o.GroupVersionKind().Kind, m.Namespace, m.Name, err))
		}
	}
	return errors.Join(errs...)
}

// Stop stops every component and returns once every goroutine has
// exited, with the errors components ended with (other than
// cancellation).
func (cp *ControlPlane) Stop() error {
	cp.cancel()
	cp.wg.Wait()
	cp.factory.Shutdown()
	cp.mu.Lock()
	defer cp.mu.Unlock()
	return errors.Join(cp.errs...)
}
