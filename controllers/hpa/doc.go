// Package hpa is kube-controller-manager's horizontal pod autoscaler
// (autoscaling/v2) for Resource, ContainerResource, Pods and Object
// metrics: it sets a
// Deployment's, ReplicaSet's or StatefulSet's spec.replicas from its
// pods' cpu (or memory) utilization or from custom metrics, writing it through the target's scale
// subresource (client.Resource's GetScale and UpdateScale, conditional on
// the scale's resourceVersion), as kcm's HPA does. It depends on the
// client contract (package controllers/client: New takes a
// client.Client) and informers only.
//
// # Metrics
//
// Usage comes from a MetricsClient (the resource metrics API that
// metrics-server serves): per pod, a value in milli-units over a window
// ending at a timestamp. Load is one for simulations and tests, driven
// by a load description that can change while the cluster runs: every
// running pod of a namespace uses a set percentage of its request
// (SetUtilization), or a set amount (SetPod). A ContainerResource
// metric reads one container's usage from a ContainerMetricsClient,
// which Options.Metrics may also implement; Load does, sharing each
// pod's usage among its containers in proportion to their requests (the
// split the API server's metrics.k8s.io reports to kubectl top).
//
// Custom metrics come from a CustomMetricsClient (the custom metrics
// API, custom.metrics.k8s.io), which Options.Metrics may also implement;
// Load does, from annotations (MetricAnnotationPrefix): a running pod
// annotated
//
//	sim.ctrlkit.io/metric-<name>: "<quantity>"
//
// reports that value of the Pods metric <name> (a pod without it has no
// sample), and the object an Object metric's describedObject names
// reports the metric from the same annotation on itself (pods through
// the pods' client; other kinds through the client given to
// Load.WithObjects, which ctrlkit's control plane and manager pass). The
// simulated series carry no labels: a metric selector that requires one
// selects nothing; no selector selects the value.
//
// # The algorithm
//
// Every Options.SyncPeriod (15 s, --horizontal-pod-autoscaler-sync-period)
// each autoscaler is evaluated (kcm's reconcileAutoscaler):
//
//   - A target whose spec.replicas is 0 is not scaled (ScalingActive
//     False, ScalingDisabled). One above maxReplicas or below
//     minReplicas (default 1) is brought within them.
//   - Otherwise each metric proposes a count and the largest wins (no
//     metric: 80% cpu); a metric that fails blocks a scale-down but not
//     a scale-up. A Resource metric's count is ResourceReplicas (kcm's
//     GetResourceReplicas) for a Utilization target, RawResourceReplicas
//     (kcm's GetRawResourceReplicas) for an AverageValue target; a
//     ContainerResource metric's the same over one container's usage and
//     request (ContainerResourceReplicas); a pod's request counts its
//     containers and sidecars (restartable init containers). A Pods metric's PodsMetricReplicas (kcm's
//     GetMetricReplicas: the same grouping and damping over the pods'
//     average value against an AverageValue target, readiness ignored,
//     missing pods counted at the target on a scale-down), an Object
//     metric's ObjectMetricReplicas for a Value target (kcm's
//     GetObjectMetricReplicas: ceil(value/target × ready pods), outside
//     the tolerance) or ObjectPerPodMetricReplicas for an AverageValue
//     target (kcm's GetObjectPerPodMetricReplicas: ceil(value/target),
//     against the scale's status.replicas).
//     The pods are grouped (GroupPods): being deleted or terminal —
//     ignored; Pending or, for cpu, not ready (within the 5 min
//     initialization period: not ready, or ready for less than one metric
//     window; after it: unready and never ready) — unready; without a
//     sample — missing. The utilization is the ready pods' summed usage
//     over their summed requests, in whole percent; ratio = utilization /
//     target. Within the tolerance (10%, --horizontal-pod-autoscaler-
//     tolerance, or behavior.*.tolerance) nothing changes; otherwise
//     desired = ceil(ratio × ready pods). When pods are missing, or
//     unready on a scale-up, they are counted in the way that damps the
//     change (missing: max(100%, target) on a scale-down, 0% on a
//     scale-up; unready: 0% on a scale-up), the ratio recomputed, and the
//     change dropped if the new ratio is within tolerance or flips
//     direction.
//   - The proposal is normalized by the behavior (State.Normalize, kcm's
//     normalizeDesiredReplicasWithBehaviors), defaulted as autoscaling/v2
//     does (DefaultBehavior): stabilized — on the way up the lowest, on
//     the way down the highest recommendation of the direction's window
//     (scale-down 300 s by default; the window starts with the current
//     count) — then rate-limited by the policies over the scale events of
//     their periods (default up: the larger of +4 pods and +100% per
//     15 s; down: -100% per 15 s) and bounded by min and max.
//   - A new count is written to the target's spec.replicas (its scale)
//     and remembered as a scale event.
//
// The autoscaler's status gets currentReplicas (the target's
// spec.replicas, as kcm reports the scale's), desiredReplicas, the
// current metrics, one per metric in spec order (a Resource or
// ContainerResource metric's averageUtilization and averageValue, or
// averageValue alone for an AverageValue target, a Pods metric's
// averageValue, an Object metric's value or averageValue per pod, as kcm
// fills them; an empty entry for a metric that failed), lastScaleTime,
// observedGeneration and the conditions
// AbleToScale (SucceededGetScale, ReadyForNewScale, ScaleUpStabilized,
// ScaleDownStabilized, SucceededRescale, FailedGetScale,
// FailedUpdateScale), ScalingActive (ValidMetricFound,
// FailedGetResourceMetric, FailedGetPodsMetric, FailedGetObjectMetric,
// FailedGetExternalMetric, FailedGetContainerResourceMetric,
// InvalidSelector, ScalingDisabled) and ScalingLimited
// (DesiredWithinRange, ScaleUpLimit, ScaleDownLimit, TooManyReplicas,
// TooFewReplicas), with kcm's reasons and messages. With Options.Recorder
// it records kcm's events (source horizontal-pod-autoscaler in the
// manager): SuccessfulRescale "New size: N; reason: …", FailedRescale,
// FailedGetScale, SelectorRequired, InvalidSelector, one per metric that
// fails (its ScalingActive reason and cause) and
// FailedComputeMetricsReplicas ("invalid metrics (N invalid out of M),
// first error is: …") when no count can be proposed.
//
// # Left out
//
// Deliberately not done: External metrics (no external metrics API is
// served: an autoscaler with one has ScalingActive False,
// FailedGetExternalMetric, as on a cluster without an external metrics
// adapter); pod-level resources (PodSpec has no resources); the scale
// subresource
// of arbitrary kinds (Deployment, ReplicaSet and StatefulSet are read and
// written through their scale subresources, read live at each sync as
// kcm does); the AmbiguousSelector check (two autoscalers over the same
// pods); the v1 behavior-less
// normalization (every autoscaler has a defaulted behavior, as
// autoscaling/v2 objects do); the controller's own metrics.
//
// # Wiring and Run
//
// Its informer of autoscalers is wired with reconcile.WatchEvents: an
// autoscaler's add and delete enqueue it, an update only when its
// generation changed (the sync requeues itself every sync period); the
// pods' informer is a cache only, waited for by Run. Run returns once
// every worker has exited: ctx's error after a clean drain, or the error
// of a drain that did not end cleanly (it wraps
// reconcile.ErrShutdownTimeout or workqueue.ErrDrainAborted), never
// reduced to ctx's error.
package hpa
