package cli

import (
	"context"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/scheduler"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// queueBuckets are client-go's and controller-runtime's buckets of
// workqueue_queue_duration_seconds and workqueue_work_duration_seconds:
// 10ns to 1000s, ten per decade step.
var queueBuckets = func() []float64 {
	b := make([]float64, 12)
	v := 10e-9
	for i := range b {
		b[i] = v
		v *= 10
	}
	return b
}()

// reconcileBuckets are controller-runtime's buckets of
// controller_runtime_reconcile_time_seconds.
var reconcileBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7,
	0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60}

// registryProvider meters the controllers and their queues in a
// metrics.Registry under client-go's and controller-runtime's names (the
// default build's /metrics; the prometheus module's build has its own).
type registryProvider struct{ reg *metrics.Registry }

// QueueMetrics implements workqueue.MetricsProvider: workqueue_* labelled
// name and controller.
func (p registryProvider) QueueMetrics(name string, _ func() workqueue.InFlight) workqueue.QueueMetrics {
	r := p.reg
	return workqueue.QueueMetrics{
		Depth: r.Gauge("workqueue_depth", "Current depth of workqueue by workqueue and priority",
			"name", "controller", "priority").Gauge(name, name, ""),
		Adds: r.Counter("workqueue_adds_total", "Total number of adds handled by workqueue", "name", "controller").With(name, name),
		QueueDuration: r.Histogram("workqueue_queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested",
			queueBuckets, "name", "controller").With(name, name),
		WorkDuration: r.Histogram("workqueue_work_duration_seconds", "How long in seconds processing an item from workqueue takes.",
			queueBuckets, "name", "controller").With(name, name),
		Retries: r.Counter("workqueue_retries_total", "Total number of retries handled by workqueue", "name", "controller").With(name, name),
	}
}

// ControllerMetrics implements reconcile.MetricsProvider:
// controller_runtime_* labelled controller.
func (p registryProvider) ControllerMetrics(controller string) reconcile.Metrics {
	r := p.reg
	total := r.Counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller", "controller", "result")
	return reconcile.Metrics{
		TotalSuccess:      total.With(controller, "success"),
		TotalError:        total.With(controller, "error"),
		TotalRequeueAfter: total.With(controller, "requeue_after"),
		TotalTerminal:     total.With(controller, "terminal"),
		TotalRequeue:      total.With(controller, "requeue"),
		Errors: r.Counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller",
			"controller").With(controller),
		TerminalErrors: r.Counter("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller",
			"controller").With(controller),
		Panics: r.Counter("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller",
			"controller").With(controller),
		ReconcileTime: r.Histogram("controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller",
			reconcileBuckets, "controller").With(controller),
		ActiveWorkers: r.Gauge("controller_runtime_active_workers", "Number of currently used workers per controller",
			"controller").Gauge(controller),
		MaxConcurrentReconciles: r.Gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller",
			"controller").Gauge(controller),
	}
}

// defaultMetrics gives opts, when the build set no metrics of its own
// (the default build), a standard-library registry: served at /metrics,
// metering the controllers and queues. It returns that registry, or nil
// when the build brought its own metrics.
func defaultMetrics(opts *Options) *metrics.Registry {
	if opts.Metrics != nil {
		return nil
	}
	reg := metrics.NewRegistry()
	opts.Metrics = reg
	p := registryProvider{reg}
	if opts.ReconcileMetrics == nil {
		opts.ReconcileMetrics = p
	}
	if opts.QueueMetrics == nil {
		opts.QueueMetrics = p
	}
	return reg
}

// leaseName is the name leader_election_master_status reports: the lease
// kube-controller-manager campaigns for.
const leaseName = "kube-controller-manager"

// controlPlaneMetrics adds to reg the series read from the control plane
// at each scrape:
//
//	leader_election_master_status{name}  1 while this process's controllers lead, else 0
//	scheduler_pending_pods{queue}        pods of the default scheduler not yet bound:
//	                                     queue "unschedulable" (PodScheduled=False), "active" otherwise
func controlPlaneMetrics(reg *metrics.Registry, cp *controlplane.ControlPlane) {
	reg.GaugeFunc("leader_election_master_status",
		"Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
		[]string{"name"}, func() []metrics.Sample {
			v := 0.0
			if cp.Manager.Leading() {
				v = 1
			}
			return []metrics.Sample{{Labels: []string{leaseName}, Value: v}}
		})
	reg.CounterFunc("scheduler_schedule_attempts_total",
		"Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
		[]string{"profile", "result"}, func() []metrics.Sample {
			if cp.Scheduler == nil {
				return nil
			}
			a := cp.Scheduler.Attempts()
			return []metrics.Sample{
				{Labels: []string{scheduler.DefaultSchedulerName, "error"}, Value: float64(a.Error)},
				{Labels: []string{scheduler.DefaultSchedulerName, "scheduled"}, Value: float64(a.Scheduled)},
				{Labels: []string{scheduler.DefaultSchedulerName, "unschedulable"}, Value: float64(a.Unschedulable)},
			}
		})
	reg.GaugeFunc("scheduler_pending_pods",
		"Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'unschedulable' means number of pods in unschedulablePods.",
		[]string{"queue"}, func() []metrics.Sample {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			active, unschedulable := pendingPods(ctx, cp)
			return []metrics.Sample{{Labels: []string{"active"}, Value: float64(active)},
				{Labels: []string{"unschedulable"}, Value: float64(unschedulable)}}
		})
}

// pendingPods counts the default scheduler's pods not yet bound.
func pendingPods(ctx context.Context, cp *controlplane.ControlPlane) (active, unschedulable int) {
	l, err := cp.Cluster.Pods().List(ctx, source.ListOptions{})
	if err != nil {
		return 0, 0
	}
	for _, p := range l.Items {
		if p.Spec.NodeName != "" || p.DeletionTimestamp != nil || p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
			continue
		}
		if n := p.Spec.SchedulerName; n != "" && n != scheduler.DefaultSchedulerName {
			continue
		}
		parked := false
		for _, c := range p.Status.Conditions {
			if c.Type == api.PodScheduled && c.Status == api.ConditionFalse {
				parked = true
			}
		}
		if parked {
			unschedulable++
		} else {
			active++
		}
	}
	return active, unschedulable
}

// resourceUsage is the resource metrics API's source (kubectl top): the
// simulated usage the HPA controller reads (cp.Load), CPU and memory,
// for running pods; nil when the control plane has no Load.
func resourceUsage(cp *controlplane.ControlPlane) apiserver.ResourceUsage {
	if cp.Load == nil {
		return nil
	}
	return func(ctx context.Context, p *api.Pod) (cpu, mem int64, at time.Time, window time.Duration, ok bool) {
		if p.Status.Phase != api.PodRunning {
			return 0, 0, time.Time{}, 0, false
		}
		sel := api.SelectorFromSet(p.Labels)
		c, err := cp.Load.PodMetrics(ctx, p.Namespace, sel, api.ResourceCPU)
		if err != nil {
			return 0, 0, time.Time{}, 0, false
		}
		m, err := cp.Load.PodMetrics(ctx, p.Namespace, sel, api.ResourceMemory)
		if err != nil {
			return 0, 0, time.Time{}, 0, false
		}
		cs, ok := c[p.Name]
		if !ok {
			return 0, 0, time.Time{}, 0, false
		}
		return cs.Value, m[p.Name].Value / 1000, cs.Timestamp, cs.Window, true
	}
}
