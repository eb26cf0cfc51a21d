package hpa

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// The condition types of an autoscaler.
const (
	AbleToScale    = "AbleToScale"
	ScalingActive  = "ScalingActive"
	ScalingLimited = "ScalingLimited"
)

// DefaultSyncPeriod is --horizontal-pod-autoscaler-sync-period.
const DefaultSyncPeriod = 15 * time.Second

// DefaultWorkers is --concurrent-horizontal-pod-autoscaler-syncs.
const DefaultWorkers = 5

// Options configures a Controller. Metrics is required.
type Options struct {
	// ReconcileMetrics and QueueMetrics, if set, meter the controller's
	// reconciles (controller_runtime_reconcile_*) and its work queue
	// (workqueue_*, named after the controller). Default: none.
	ReconcileMetrics reconcile.MetricsProvider
	QueueMetrics     workqueue.MetricsProvider
	// Metrics reports the pods' usage. Required (a *Load in
	// simulations).
	Metrics MetricsClient
	// SyncPeriod is how often each autoscaler is evaluated. Default
	// DefaultSyncPeriod.
	SyncPeriod time.Duration
	// Tolerance is used for directions whose behavior sets none.
	// Default DefaultTolerance; negative is an error.
	Tolerance float64
	// Readiness tunes how fresh pods count; zero fields default to
	// DefaultCPUInitializationPeriod and DefaultInitialReadinessDelay.
	Readiness Readiness
	// Workers is the number of autoscalers synced concurrently.
	// Default DefaultWorkers.
	Workers int
	// Logger receives the controller's logs. Default slog.Default().
	Logger *slog.Logger
	// Recorder receives kcm's events of an autoscaler: SuccessfulRescale,
	// FailedRescale, FailedGetScale, FailedComputeMetricsReplicas,
	// SelectorRequired, InvalidSelector and one per metric that failed
	// (FailedGetResourceMetric, …). Default: none.
	Recorder events.Recorder
}

// Controller is the horizontal pod autoscaler. Create it with New, run
// it with Run.
type Controller struct {
	opts Options
	// hpaR writes the autoscalers' status; scalers are the scale
	// subresources of the kinds it scales, by kind.
	hpaR    client.Resource[*api.HorizontalPodAutoscaler]
	scalers map[string]scaler
	hpas    *informer.Informer[*api.HorizontalPodAutoscaler]
	pods    *informer.Informer[*api.Pod]
	ctl     *reconcile.Controller[string]
	log     *slog.Logger

	mu sync.Mutex
	// states holds each autoscaler's State; guarded by mu (a State
	// itself is used by the one worker syncing its key).
	states map[string]*State
}

// New returns the autoscaler of c over the shared informers of f
// ("horizontalpodautoscalers", "pods"); its targets' scale subresources
// are read live at each sync, as kcm's are. Start f after New, then Run.
func New(c client.Client, f *informer.Factory, opts Options) (*Controller, error) {
	switch {
	case c == nil || f == nil:
		return nil, errors.New("hpa: client and factory are required")
	case opts.Metrics == nil:
		return nil, errors.New("hpa: Options.Metrics is required")
	case opts.SyncPeriod < 0 || opts.Tolerance < 0 || opts.Workers < 0:
		return nil, errors.New("hpa: negative SyncPeriod, Tolerance or Workers")
	}
	if opts.SyncPeriod == 0 {
		opts.SyncPeriod = DefaultSyncPeriod
	}
	if opts.Tolerance == 0 {
		opts.Tolerance = DefaultTolerance
	}
	if opts.Readiness.CPUInitializationPeriod == 0 {
		opts.Readiness.CPUInitializationPeriod = DefaultCPUInitializationPeriod
	}
	if opts.Readiness.InitialReadinessDelay == 0 {
		opts.Readiness.InitialReadinessDelay = DefaultInitialReadinessDelay
	}
	if opts.Workers == 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	h := &Controller{opts: opts, log: opts.Logger.With("controller", "horizontal-pod-autoscaler"), states: map[string]*State{}}
	lo := opts.Logger
	var err error
	if h.hpaR, err = client.For[*api.HorizontalPodAutoscaler](c); err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	deps, err := client.For[*api.Deployment](c)
	if err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	rss, err := client.For[*api.ReplicaSet](c)
	if err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	stss, err := client.For[*api.StatefulSet](c)
	if err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	h.scalers = map[string]scaler{"Deployment": deps, "ReplicaSet": rss, "StatefulSet": stss}
	if h.hpas, err = informer.Shared(f, "horizontalpodautoscalers", source.ListWatcher[*api.HorizontalPodAutoscaler](h.hpaR), api.Key[*api.HorizontalPodAutoscaler], informer.Options[*api.HorizontalPodAutoscaler]{Logger: lo}); err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	if h.pods, err = informer.Shared(f, "pods", source.ListWatcher[*api.Pod](pods), api.Key[*api.Pod], informer.Options[*api.Pod]{Logger: lo}); err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	if h.ctl, err = reconcile.New("horizontal-pod-autoscaler", reconcile.Func[string](h.sync), reconcile.Options[string]{Metrics: opts.ReconcileMetrics, QueueMetrics: opts.QueueMetrics, Workers: opts.Workers, Logger: lo}); err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	// kcm: an autoscaler is (re)queued on its add and update, and then
	// every sync period; a delete forgets it.
	if _, err := reconcile.WatchEvents(h.ctl, h.hpas, reconcile.Events[*api.HorizontalPodAutoscaler, string]{
		Map: reconcile.ByKey(api.Key[*api.HorizontalPodAutoscaler]),
		Update: func(old, cur *api.HorizontalPodAutoscaler) []string {
			if old.Generation != cur.Generation {
				return []string{api.Key(cur)}
			}
			return nil
		},
	}, reconcile.WatchOptions{Handler: informer.HandlerOptions{Name: h.ctl.Name()}}); err != nil {
		return nil, fmt.Errorf("hpa: %w", err)
	}
	if err := h.ctl.AddSyncCheck(h.pods.HasSynced); err != nil {
		return nil, err
	}
	return h, nil
}

// Run syncs autoscalers until ctx ends and returns after every worker
// has exited: ctx's error after a clean drain, or the drain's error (it
// wraps reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted) if
// reconciles in flight had to be cancelled.
func (h *Controller) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("hpa: Run: context is nil")
	}
	return h.ctl.Run(ctx)
}

// target is the scale subresource of a workload.
type target struct {
	replicas       int32  // spec.replicas
	statusReplicas int32  // status.replicas
	selector       string // status.selector, in string form
}

// target reads the scale subresource of the autoscaler's target live, as
// kcm's HPA does at every sync: a target created just before its
// autoscaler is found even when its informer has not seen it yet.
func (h *Controller) target(ctx context.Context, ns string, ref api.CrossVersionObjectReference) (target, error) {
	s, ok := h.scalers[ref.Kind]
	if !ok {
		return target{}, fmt.Errorf("the HPA controller cannot scale a %s", ref.Kind)
	}
	key := api.NamespacedKey(ns, ref.Name)
	sc, err := s.GetScale(ctx, key)
	if client.IsNotFound(err) {
		return target{}, fmt.Errorf("%s %s not found", ref.Kind, key)
	}
	if err != nil {
		return target{}, err
	}
	return target{replicas: sc.Spec.Replicas, statusReplicas: sc.Status.Replicas, selector: sc.Status.Selector}, nil
}

// scaler is the scale subresource of one kind.
type scaler interface {
	GetScale(ctx context.Context, key string) (*api.Scale, error)
	UpdateScale(ctx context.Context, key string, scale *api.Scale) (*api.Scale, error)
}

// scale writes the target's replicas through its scale subresource, as
// kcm's HPA does: read the scale, set spec.replicas, write it back on the
// condition that the target has not changed since (a conflict is
// retried by the next sync).
func (h *Controller) scale(ctx context.Context, ns string, ref api.CrossVersionObjectReference, n int32) error {
	s, ok := h.scalers[ref.Kind]
	if !ok {
		return fmt.Errorf("cannot scale a %s", ref.Kind)
	}
	key := api.NamespacedKey(ns, ref.Name)
	sc, err := s.GetScale(ctx, key)
	if err != nil {
		return err
	}
	sc.Spec.Replicas = n
	_, err = s.UpdateScale(ctx, key, sc)
	return err
}

func (h *Controller) state(key string) *State {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.states[key]
	if !ok {
		s = &State{}
		h.states[key] = s
	}
	return s
}

// sync is kcm's reconcileAutoscaler for one autoscaler.
func (h *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	cached, ok := h.hpas.Lister().Get(key)
	if !ok {
		h.mu.Lock()
		delete(h.states, key)
		h.mu.Unlock()
		return reconcile.Result{}, nil
	}
	next := reconcile.Result{RequeueAfter: h.opts.SyncPeriod}
	hpa := cached.DeepCopy()
	now := time.Now()
	st := &hpa.Status
	tgt, err := h.target(ctx, hpa.Namespace, hpa.Spec.ScaleTargetRef)
	if err != nil {
		h.record(hpa, events.Warning, "FailedGetScale", err.Error())
		setCondition(st, AbleToScale, api.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: "+err.Error(), now)
		return next, h.writeStatus(ctx, cached, hpa)
	}
	setCondition(st, AbleToScale, api.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale", now)
	current := tgt.replicas
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	desired := int32(0)
	rescale := true
	var reason string
	switch {
	case current == 0 && minReplicas != 0:
		rescale = false
		setCondition(st, ScalingActive, api.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero", now)
	case current > hpa.Spec.MaxReplicas:
		desired, reason = hpa.Spec.MaxReplicas, "Current number of replicas above Spec.MaxReplicas"
	case current < minReplicas:
		desired, reason = minReplicas, "Current number of replicas below Spec.MinReplicas"
	default:
		proposed, metric, statuses, fail, err := h.computeReplicas(ctx, hpa, tgt, current, now)
		st.CurrentMetrics = statuses
		if fail != nil {
			st.CurrentReplicas = current
			setCondition(st, ScalingActive, api.ConditionFalse, fail.reason, fail.message, now)
			if werr := h.writeStatus(ctx, cached, hpa); werr != nil {
				return next, werr
			}
			h.record(hpa, events.Warning, "FailedComputeMetricsReplicas", err.Error())
			h.log.Warn("hpa: cannot compute replicas", "hpa", key, "err", err)
			return next, nil
		}
		if err != nil {
			// Some metrics failed, but not so that scaling must wait (kcm
			// scales on the others and reports the error).
			h.log.Warn("hpa: some metrics failed", "hpa", key, "err", err)
		}
		setCondition(st, ScalingActive, api.ConditionTrue, "ValidMetricFound",
			fmt.Sprintf("the HPA was able to successfully calculate a replica count from %s", metric), now)
		switch {
		case proposed > current:
			reason = metric + " above target"
		case proposed < current:
			reason = "All metrics below target"
		}
		b := DefaultBehavior(hpa.Spec.Behavior)
		var l Limit
		desired, l = h.state(key).Normalize(now, b, current, proposed, minReplicas, hpa.Spec.MaxReplicas)
		setCondition(st, AbleToScale, api.ConditionTrue, l.StabilizedReason, l.StabilizedMessage, now)
		limited := api.ConditionFalse
		if l.Limited {
			limited = api.ConditionTrue
		}
		setCondition(st, ScalingLimited, limited, l.LimitedReason, l.LimitedMessage, now)
		rescale = desired != current
	}
	if rescale {
		if err := h.scale(ctx, hpa.Namespace, hpa.Spec.ScaleTargetRef, desired); err != nil {
			h.record(hpa, events.Warning, "FailedRescale", fmt.Sprintf("New size: %d; reason: %s; error: %v", desired, reason, err))
			setCondition(st, AbleToScale, api.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: "+err.Error(), now)
			if werr := h.writeStatus(ctx, cached, hpa); werr != nil {
				return next, werr
			}
			return next, fmt.Errorf("hpa: %s: rescale: %w", key, err)
		}
		setCondition(st, AbleToScale, api.ConditionTrue, "SucceededRescale", fmt.Sprintf("the HPA controller was able to update the target scale to %d", desired), now)
		h.record(hpa, events.Normal, "SuccessfulRescale", fmt.Sprintf("New size: %d; reason: %s", desired, reason))
		h.state(key).RecordScale(now, DefaultBehavior(hpa.Spec.Behavior), current, desired)
		h.log.Info("hpa: rescaled", "hpa", key, "from", current, "to", desired, "reason", reason)
		t := api.NewTime(now)
		st.LastScaleTime = &t
	} else {
		desired = current
	}
	st.CurrentReplicas = current // kcm reports the scale's spec.replicas
	st.DesiredReplicas = desired
	gen := hpa.Generation
	st.ObservedGeneration = &gen
	return next, h.writeStatus(ctx, cached, hpa)
}

// scalingInactive is why computeReplicas could not propose a count: the
// reason and message of the ScalingActive False condition.
type scalingInactive struct {
	reason, message string
}

// computeReplicas is kcm's computeReplicasForMetrics: it evaluates every
// metric of the autoscaler (80% cpu utilization when it has none), one
// status per metric in spec order (a zero status for a metric that
// failed), and returns the largest proposal. With a failure it also
// returns kcm's "invalid metrics" error; the proposal stands (fail nil)
// unless every metric failed or the others would scale down, when fail
// says why (the first failure's condition).
func (h *Controller) computeReplicas(ctx context.Context, hpa *api.HorizontalPodAutoscaler, tgt target, current int32, now time.Time) (int32, string, []api.MetricStatus, *scalingInactive, error) {
	metrics := hpa.Spec.Metrics
	if len(metrics) == 0 {
		eighty := int32(80)
		metrics = []api.MetricSpec{{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricSource{Name: api.ResourceCPU,
			Target: api.MetricTarget{Type: api.UtilizationMetricType, AverageUtilization: &eighty}}}}
	}
	if tgt.selector == "" {
		h.record(hpa, events.Warning, "SelectorRequired", "selector is required")
		return 0, "", nil, &scalingInactive{"InvalidSelector", "the HPA target's scale is missing a selector"}, errors.New("selector is required")
	}
	sel, err := api.ParseSelector(tgt.selector)
	if err != nil {
		msg := fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		h.record(hpa, events.Warning, "InvalidSelector", msg)
		return 0, "", nil, &scalingInactive{"InvalidSelector", msg}, errors.New(msg)
	}
	tol := Tolerance{ScaleDown: h.opts.Tolerance, ScaleUp: h.opts.Tolerance}
	if b := hpa.Spec.Behavior; b != nil {
		if b.ScaleDown != nil && b.ScaleDown.Tolerance != nil {
			tol.ScaleDown = float64(b.ScaleDown.Tolerance.MilliValue()) / 1000
		}
		if b.ScaleUp != nil && b.ScaleUp.Tolerance != nil {
			tol.ScaleUp = float64(b.ScaleUp.Tolerance.MilliValue()) / 1000
		}
	}
	pods := h.pods.Lister().Namespace(hpa.Namespace).List(func(p *api.Pod) bool { return sel.Matches(p.Labels) })
	e := metricEval{h: h, hpa: hpa, tgt: tgt, current: current, sel: sel, pods: pods, tol: tol, now: now}
	best, bestName := int32(0), ""
	statuses := make([]api.MetricStatus, len(metrics))
	var first *metricFailure
	invalid := 0
	for i, m := range metrics {
		n, name, status, f := e.metric(ctx, m)
		if f != nil {
			// kcm records an event for each metric that fails.
			h.record(hpa, events.Warning, f.reason, f.cause.Error())
			if first == nil {
				first = f
			}
			invalid++
			continue
		}
		statuses[i] = status
		if best == 0 || n > best {
			best, bestName = n, name
		}
	}
	if first == nil {
		return best, bestName, statuses, nil, nil
	}
	err = fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", invalid, len(metrics), first.err)
	// kcm: a metric that fails blocks a scale-down but not a scale-up.
	if invalid >= len(metrics) || best < current {
		return 0, "", statuses, &scalingInactive{first.reason, "the HPA was unable to compute the replica count: " + first.cause.Error()}, err
	}
	return best, bestName, statuses, nil, err
}

// metricEval computes the proposals of one autoscaler's metrics.
type metricEval struct {
	h       *Controller
	hpa     *api.HorizontalPodAutoscaler
	tgt     target
	current int32
	sel     api.Selector
	pods    []*api.Pod
	tol     Tolerance
	now     time.Time
}

// metricFailure is a metric that failed: the reason of the ScalingActive
// condition and of the event kcm records, the cause that both report,
// and the error naming the metric (what FailedComputeMetricsReplicas
// reports).
type metricFailure struct {
	reason     string
	cause, err error
}

// metric is kcm's computeReplicasForMetric for one metric: its proposal,
// its name in the ScalingActive message and its status, or why it
// failed.
func (e *metricEval) metric(ctx context.Context, m api.MetricSpec) (int32, string, api.MetricStatus, *metricFailure) {
	var none api.MetricStatus
	fail := func(reason string, cause error, format string, args ...any) (int32, string, api.MetricStatus, *metricFailure) {
		return 0, "", none, &metricFailure{reason: reason, cause: cause, err: fmt.Errorf(format+": %w", append(args, cause)...)}
	}
	switch {
	case m.Type == api.ResourceMetricSourceType && m.Resource != nil:
		n, name, mv, err := e.resource(ctx, m.Resource.Name, "", m.Resource.Target)
		if err != nil {
			return fail("FailedGetResourceMetric", err, "failed to get %s resource metric value", m.Resource.Name)
		}
		return n, name, api.MetricStatus{Type: api.ResourceMetricSourceType, Resource: &api.ResourceMetricStatus{Name: m.Resource.Name, Current: mv}}, nil
	case m.Type == api.ContainerResourceMetricSourceType && m.ContainerResource != nil:
		cr := m.ContainerResource
		n, name, mv, err := e.resource(ctx, cr.Name, cr.Container, cr.Target)
		if err != nil {
			return fail("FailedGetContainerResourceMetric", err, "failed to get %s container metric value", cr.Container)
		}
		return n, name, api.MetricStatus{Type: api.ContainerResourceMetricSourceType, ContainerResource: &api.ContainerResourceMetricStatus{
			Name: cr.Name, Container: cr.Container, Current: mv}}, nil
	case m.Type == api.PodsMetricSourceType && m.Pods != nil:
		n, st, err := e.podsMetric(ctx, m.Pods)
		if err != nil {
			return fail("FailedGetPodsMetric", err, "failed to get pods metric value")
		}
		return n, "pods metric " + m.Pods.Metric.Name, st, nil
	case m.Type == api.ObjectMetricSourceType && m.Object != nil:
		n, name, st, err := e.objectMetric(ctx, m.Object)
		if err != nil {
			return fail("FailedGetObjectMetric", err, "failed to get object metric value")
		}
		return n, name, st, nil
	case m.Type == api.ExternalMetricSourceType && m.External != nil:
		err := fmt.Errorf("unable to get external metric %s/%s/%v: no external metrics API (external.metrics.k8s.io) is served", e.hpa.Namespace, m.External.Metric.Name, m.External.Metric.Selector)
		return fail("FailedGetExternalMetric", fmt.Errorf("failed to get %s external metric: %w", m.External.Metric.Name, err), "failed to get %s external metric value", m.External.Metric.Name)
	}
	err := fmt.Errorf("unknown metric source type %q", m.Type)
	return 0, "", none, &metricFailure{reason: "InvalidMetricSourceType", cause: err, err: err}
}

// resource is kcm's computeStatusForResourceMetricGeneric: a Resource
// metric (container "") or a ContainerResource metric, with an
// AverageValue or an AverageUtilization target.
func (e *metricEval) resource(ctx context.Context, res api.ResourceName, container string, t api.MetricTarget) (int32, string, api.MetricValueStatus, error) {
	var none api.MetricValueStatus
	var usage map[string]PodMetric
	var err error
	if container == "" {
		usage, err = e.h.opts.Metrics.PodMetrics(ctx, e.hpa.Namespace, e.sel, res)
	} else if c, ok := e.h.opts.Metrics.(ContainerMetricsClient); ok {
		usage, err = c.ContainerMetrics(ctx, e.hpa.Namespace, e.sel, res, container)
	} else {
		err = errors.New("the metrics client serves no container metrics")
	}
	if err == nil && len(usage) == 0 && container == "" {
		// kcm's metrics client: no pod has a sample. (A container
		// metric may be empty with pods sampled: the container is
		// missing from them, and the pods count as missing below.)
		err = errNoResourceMetrics
	}
	if t.AverageValue != nil {
		if err != nil {
			return 0, "", none, fmt.Errorf("failed to get %s usage: unable to get metrics for resource %s: %w", res, res, err)
		}
		n, avg, err := RawResourceReplicas(e.current, t.AverageValue.MilliValue(), e.pods, usage, res, e.tol, e.h.opts.Readiness, e.now)
		if err != nil {
			return 0, "", none, fmt.Errorf("failed to get %s usage: %w", res, err)
		}
		q := resourceQuantity(res, avg)
		return n, fmt.Sprintf("%s resource", res), api.MetricValueStatus{AverageValue: &q}, nil
	}
	if t.AverageUtilization == nil {
		return 0, "", none, errors.New("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
	}
	if err != nil {
		return 0, "", none, fmt.Errorf("failed to get %s utilization: unable to get metrics for resource %s: %w", res, res, err)
	}
	n, util, avg, err := resourceReplicas(e.current, *t.AverageUtilization, e.pods, usage, res, container, e.tol, e.h.opts.Readiness, e.now)
	if err != nil {
		return 0, "", none, fmt.Errorf("failed to get %s utilization: %w", res, err)
	}
	name := fmt.Sprintf("%s resource utilization (percentage of request)", res)
	if container != "" {
		name = fmt.Sprintf("%s container resource utilization (percentage of request)", res)
	}
	q := resourceQuantity(res, avg)
	return n, name, api.MetricValueStatus{AverageUtilization: &util, AverageValue: &q}, nil
}

// resourceQuantity is kcm's buildQuantity: a usage in milli-units, in
// binary units for memory (as metrics-server reports it), decimal ones
// otherwise.
func resourceQuantity(res api.ResourceName, milli int64) api.Quantity {
	if res == api.ResourceMemory {
		return api.NewMilliQuantity(milli, api.BinarySI)
	}
	return api.NewMilliQuantity(milli, api.DecimalSI)
}

// record records an event about hpa, if a Recorder is set.
func (h *Controller) record(hpa *api.HorizontalPodAutoscaler, typ events.Type, reason, msg string) {
	if h.opts.Recorder == nil {
		return
	}
	h.opts.Recorder.Event(events.Ref{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Namespace: hpa.Namespace, Name: hpa.Name, UID: string(hpa.UID)}, typ, reason, msg)
}

// custom returns the custom metrics client, or an error.
func (e *metricEval) custom() (CustomMetricsClient, error) {
	c, ok := e.h.opts.Metrics.(CustomMetricsClient)
	if !ok {
		return nil, errors.New("no custom metrics API: the metrics client serves resource metrics only")
	}
	return c, nil
}

// podsMetric is kcm's computeStatusForPodsMetric.
func (e *metricEval) podsMetric(ctx context.Context, p *api.PodsMetricSource) (int32, api.MetricStatus, error) {
	var none api.MetricStatus
	if p.Target.AverageValue == nil {
		return 0, none, errors.New("invalid pods metric source: an average value target must be set")
	}
	c, err := e.custom()
	if err != nil {
		return 0, none, err
	}
	values, err := c.PodsMetric(ctx, e.hpa.Namespace, e.sel, p.Metric)
	if err != nil {
		return 0, none, fmt.Errorf("unable to get metric %s: %w", p.Metric.Name, err)
	}
	n, avg, err := PodsMetricReplicas(e.current, p.Target.AverageValue.MilliValue(), e.pods, values, e.tol, e.h.opts.Readiness, e.now)
	if err != nil {
		return 0, none, err
	}
	av := api.NewMilliQuantity(avg, api.DecimalSI)
	return n, api.MetricStatus{Type: api.PodsMetricSourceType, Pods: &api.PodsMetricStatus{Metric: *p.Metric.DeepCopy(),
		Current: api.MetricValueStatus{AverageValue: &av}}}, nil
}

// objectMetric is kcm's computeStatusForObjectMetric.
func (e *metricEval) objectMetric(ctx context.Context, o *api.ObjectMetricSource) (int32, string, api.MetricStatus, error) {
	var none api.MetricStatus
	st := api.MetricStatus{Type: api.ObjectMetricSourceType, Object: &api.ObjectMetricStatus{
		DescribedObject: o.DescribedObject, Metric: *o.Metric.DeepCopy()}}
	var value int64
	getValue := func() error {
		c, err := e.custom()
		if err != nil {
			return err
		}
		v, err := c.ObjectMetric(ctx, e.hpa.Namespace, o.DescribedObject, o.Metric)
		if err != nil {
			return fmt.Errorf("unable to get metric %s on %s %s/%s: %w", o.Metric.Name, o.DescribedObject.Kind, e.hpa.Namespace, o.DescribedObject.Name, err)
		}
		value = v.Value
		return nil
	}
	switch {
	case o.Target.Type == api.ValueMetricType && o.Target.Value != nil:
		if err := getValue(); err != nil {
			return 0, "", none, err
		}
		n, err := ObjectMetricReplicas(e.current, o.Target.Value.MilliValue(), value, e.pods, e.tol)
		if err != nil {
			return 0, "", none, err
		}
		q := api.NewMilliQuantity(value, api.DecimalSI)
		st.Object.Current.Value = &q
		return n, fmt.Sprintf("%s metric %s", o.DescribedObject.Kind, o.Metric.Name), st, nil
	case o.Target.Type == api.AverageValueMetricType && o.Target.AverageValue != nil:
		if err := getValue(); err != nil {
			return 0, "", none, fmt.Errorf("failed to get %s object metric: %w", o.Metric.Name, err)
		}
		n, perPod := ObjectPerPodMetricReplicas(e.tgt.statusReplicas, o.Target.AverageValue.MilliValue(), value, e.tol)
		q := api.NewMilliQuantity(perPod, api.DecimalSI)
		st.Object.Current.AverageValue = &q
		// kcm names an Object metric with an AverageValue target so.
		return n, fmt.Sprintf("external metric %s(%+v)", o.Metric.Name, o.Metric.Selector), st, nil
	}
	return 0, "", none, errors.New("invalid object metric source: neither a value target nor an average value target was set")
}

// setCondition sets a condition, moving its lastTransitionTime only when
// its status changes.
func setCondition(st *api.HorizontalPodAutoscalerStatus, typ string, status api.ConditionStatus, reason, msg string, now time.Time) {
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type == typ {
			if c.Status != status {
				c.LastTransitionTime = api.NewTime(now)
			}
			c.Status, c.Reason, c.Message = status, reason, msg
			return
		}
	}
	st.Conditions = append(st.Conditions, api.HorizontalPodAutoscalerCondition{Type: typ, Status: status, Reason: reason, Message: msg, LastTransitionTime: api.NewTime(now)})
}

// writeStatus writes hpa's status when it differs from cached's (the
// store drops writes that change nothing anyway).
func (h *Controller) writeStatus(ctx context.Context, cached, hpa *api.HorizontalPodAutoscaler) error {
	_, err := h.hpaR.UpdateStatus(ctx, hpa)
	if err != nil && !errors.Is(err, source.ErrNotFound) {
		return fmt.Errorf("hpa: %s: update status: %w", api.Key(cached), err)
	}
	return nil
}
