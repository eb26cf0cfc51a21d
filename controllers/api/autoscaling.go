package api

// HorizontalPodAutoscaler scales a workload on observed metrics
// (autoscaling/v2): Resource, ContainerResource, Pods and Object metrics
// are computed; External metrics decode but fail in the controller (no
// external metrics API is served).
type HorizontalPodAutoscaler struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired autoscaler.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitzero"`
	// Status is the observed autoscaler.
	Status HorizontalPodAutoscalerStatus `json:"status,omitzero"`
}

// CrossVersionObjectReference names the scaled workload.
type CrossVersionObjectReference struct {
	// Kind of the workload, e.g. "Deployment".
	Kind string `json:"kind"`
	// Name of the workload.
	Name string `json:"name"`
	// APIVersion of the workload.
	APIVersion string `json:"apiVersion,omitempty"`
}

// HorizontalPodAutoscalerSpec is the desired state of an autoscaler.
type HorizontalPodAutoscalerSpec struct {
	// ScaleTargetRef is the scaled workload.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef"`
	// MinReplicas defaults to 1.
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the upper bound.
	MaxReplicas int32 `json:"maxReplicas"`
	// Metrics to scale on; defaults to 80% average CPU utilization.
	Metrics []MetricSpec `json:"metrics,omitempty"`
	// Behavior tunes scaling up and down.
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty"`
}

// HorizontalPodAutoscalerBehavior tunes scaling in each direction.
type HorizontalPodAutoscalerBehavior struct {
	// ScaleUp rules.
	ScaleUp *HPAScalingRules `json:"scaleUp,omitempty"`
	// ScaleDown rules.
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty"`
}

// HPAScalingRules bound the rate of scaling in one direction.
type HPAScalingRules struct {
	// StabilizationWindowSeconds over which recommendations are smoothed.
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty"`
	// SelectPolicy is Max, Min or Disabled.
	SelectPolicy *string `json:"selectPolicy,omitempty"`
	// Policies bound the change per period.
	Policies []HPAScalingPolicy `json:"policies,omitempty"`
	// Tolerance is the ratio change below which no scaling happens.
	Tolerance *Quantity `json:"tolerance,omitempty"`
}

// HPAScalingPolicy allows a change of Value pods or percent per PeriodSeconds.
type HPAScalingPolicy struct {
	// Type is Pods or Percent.
	Type string `json:"type"`
	// Value of the change.
	Value int32 `json:"value"`
	// PeriodSeconds of the window.
	PeriodSeconds int32 `json:"periodSeconds"`
}

// MetricSourceType is the kind of a metric: Resource, Pods, Object,
// External or ContainerResource.
type MetricSourceType string

// The metric source types of autoscaling/v2.
const (
	ResourceMetricSourceType          MetricSourceType = "Resource"
	PodsMetricSourceType              MetricSourceType = "Pods"
	ObjectMetricSourceType            MetricSourceType = "Object"
	ExternalMetricSourceType          MetricSourceType = "External"
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
)

// The metric target types of autoscaling/v2.
const (
	UtilizationMetricType  MetricTargetType = "Utilization"
	ValueMetricType        MetricTargetType = "Value"
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// MetricSpec is one metric to scale on; the field named by Type is set.
type MetricSpec struct {
	// Type is Resource, Pods, Object, External or ContainerResource.
	Type MetricSourceType `json:"type"`
	// Object is a metric describing one object (e.g. requests per second
	// of an Ingress).
	Object *ObjectMetricSource `json:"object,omitempty"`
	// Pods is a metric of each pod of the target, averaged.
	Pods *PodsMetricSource `json:"pods,omitempty"`
	// Resource is a per-pod resource metric such as CPU.
	Resource *ResourceMetricSource `json:"resource,omitempty"`
	// External is a metric from outside the cluster (not computed by
	// ctrlkit).
	External *ExternalMetricSource `json:"external,omitempty"`
	// ContainerResource is a resource metric of one container of each
	// pod (not computed by ctrlkit).
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty"`
}

// MetricIdentifier names a metric and optionally narrows it with a
// label selector on the metric's labels.
type MetricIdentifier struct {
	// Name of the metric.
	Name string `json:"name"`
	// Selector narrows the metric's series.
	Selector *LabelSelector `json:"selector,omitempty"`
}

// PodsMetricSource targets a metric of the target's pods, averaged over
// them; only AverageValue targets are allowed.
type PodsMetricSource struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric"`
	// Target is an AverageValue.
	Target MetricTarget `json:"target"`
}

// ObjectMetricSource targets a metric describing one object of the
// autoscaler's namespace; Value or AverageValue targets.
type ObjectMetricSource struct {
	// DescribedObject is the object the metric describes.
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
	// Target is a Value or an AverageValue (divided by the pods).
	Target MetricTarget `json:"target"`
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric"`
}

// ExternalMetricSource targets a metric not tied to any Kubernetes
// object.
type ExternalMetricSource struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric"`
	// Target is a Value or an AverageValue.
	Target MetricTarget `json:"target"`
}

// ContainerResourceMetricSource targets a resource of one container of
// each pod.
type ContainerResourceMetricSource struct {
	// Name of the resource.
	Name ResourceName `json:"name"`
	// Target value.
	Target MetricTarget `json:"target"`
	// Container is the name of the container.
	Container string `json:"container"`
}

// ResourceMetricSource targets a resource of the pods, e.g. cpu utilization.
type ResourceMetricSource struct {
	// Name of the resource.
	Name ResourceName `json:"name"`
	// Target value.
	Target MetricTarget `json:"target"`
}

// MetricTargetType is Utilization, Value or AverageValue.
type MetricTargetType string

// MetricTarget is the target of a metric.
type MetricTarget struct {
	// Type of the target.
	Type MetricTargetType `json:"type"`
	// Value target.
	Value *Quantity `json:"value,omitempty"`
	// AverageValue target across pods.
	AverageValue *Quantity `json:"averageValue,omitempty"`
	// AverageUtilization target, percent of the request.
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerStatus is the observed state of an autoscaler.
type HorizontalPodAutoscalerStatus struct {
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// LastScaleTime is when the autoscaler last scaled.
	LastScaleTime *Time `json:"lastScaleTime,omitempty"`
	// CurrentReplicas observed.
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// DesiredReplicas computed.
	DesiredReplicas int32 `json:"desiredReplicas"`
	// CurrentMetrics observed.
	CurrentMetrics []MetricStatus `json:"currentMetrics,omitempty"`
	// Conditions of the autoscaler.
	Conditions []HorizontalPodAutoscalerCondition `json:"conditions,omitempty"`
}

// MetricStatus is one observed metric.
type MetricStatus struct {
	// Type is Resource, ContainerResource, Pods, Object or External;
	// empty for a metric the controller could not read (kcm leaves its
	// entry zero, so that statuses line up with spec.metrics).
	Type MetricSourceType `json:"type"`
	// Object is the observed object metric.
	Object *ObjectMetricStatus `json:"object,omitempty"`
	// Pods is the observed pods metric.
	Pods *PodsMetricStatus `json:"pods,omitempty"`
	// Resource is the observed resource metric.
	Resource *ResourceMetricStatus `json:"resource,omitempty"`
	// ContainerResource is the observed resource metric of one
	// container of the pods.
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty"`
	// External is the observed external metric.
	External *ExternalMetricStatus `json:"external,omitempty"`
}

// ContainerResourceMetricStatus is an observed resource metric of one
// container of each pod.
type ContainerResourceMetricStatus struct {
	// Name of the resource.
	Name ResourceName `json:"name"`
	// Current value.
	Current MetricValueStatus `json:"current"`
	// Container is the name of the container.
	Container string `json:"container"`
}

// ExternalMetricStatus is an observed external metric.
type ExternalMetricStatus struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric"`
	// Current holds the Value, or the AverageValue per pod.
	Current MetricValueStatus `json:"current"`
}

// PodsMetricStatus is an observed pods metric: its average over the
// pods.
type PodsMetricStatus struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric"`
	// Current holds the AverageValue.
	Current MetricValueStatus `json:"current"`
}

// ObjectMetricStatus is an observed object metric.
type ObjectMetricStatus struct {
	// Metric identifies the metric.
	Metric MetricIdentifier `json:"metric"`
	// Current holds the Value, or the AverageValue per pod.
	Current MetricValueStatus `json:"current"`
	// DescribedObject is the object the metric describes.
	DescribedObject CrossVersionObjectReference `json:"describedObject"`
}

// ResourceMetricStatus is an observed resource metric.
type ResourceMetricStatus struct {
	// Name of the resource.
	Name ResourceName `json:"name"`
	// Current value.
	Current MetricValueStatus `json:"current"`
}

// MetricValueStatus is the current value of a metric.
type MetricValueStatus struct {
	// Value observed.
	Value *Quantity `json:"value,omitempty"`
	// AverageValue across pods.
	AverageValue *Quantity `json:"averageValue,omitempty"`
	// AverageUtilization across pods, percent of the request.
	AverageUtilization *int32 `json:"averageUtilization,omitempty"`
}

// HorizontalPodAutoscalerCondition is one condition of an autoscaler.
type HorizontalPodAutoscalerCondition struct {
	// Type is AbleToScale, ScalingActive or ScalingLimited.
	Type string `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message explains the condition.
	Message string `json:"message,omitempty"`
}

// Scale is autoscaling/v1 Scale, the scale subresource of Deployments,
// ReplicaSets, StatefulSets and ReplicationControllers: the replicas of
// the scaled object and the selector of its pods. It is not a stored
// kind; its metadata is the scaled object's.
type Scale struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec holds the desired replicas.
	Spec ScaleSpec `json:"spec"`
	// Status holds the observed replicas and the pod selector.
	Status ScaleStatus `json:"status"`
}

// ScaleSpec is autoscaling/v1 ScaleSpec.
type ScaleSpec struct {
	// Replicas is the desired number of replicas.
	Replicas int32 `json:"replicas"`
}

// ScaleStatus is autoscaling/v1 ScaleStatus.
type ScaleStatus struct {
	// Replicas is the observed number of replicas.
	Replicas int32 `json:"replicas"`
	// Selector is the label selector of the pods, in string form.
	Selector string `json:"selector,omitempty"`
}
