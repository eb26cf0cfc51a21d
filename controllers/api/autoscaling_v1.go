package api

// HorizontalPodAutoscalerV1 is autoscaling/v1 HorizontalPodAutoscaler,
// the older version of HorizontalPodAutoscaler (autoscaling/v2) that
// kube-apiserver still serves over the same storage: it scales on the
// average CPU utilization of the target's pods only. It is not a stored
// kind: package apiserver converts it to and from HorizontalPodAutoscaler,
// keeping in kube's autoscaling.alpha.kubernetes.io annotations what v1
// cannot express.
type HorizontalPodAutoscalerV1 struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired autoscaler.
	Spec HorizontalPodAutoscalerSpecV1 `json:"spec,omitzero"`
	// Status is the observed autoscaler.
	Status HorizontalPodAutoscalerStatusV1 `json:"status,omitzero"`
}

// HorizontalPodAutoscalerSpecV1 is autoscaling/v1
// HorizontalPodAutoscalerSpec.
type HorizontalPodAutoscalerSpecV1 struct {
	// ScaleTargetRef is the scaled workload.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef"`
	// MinReplicas is the lower bound; defaults to 1.
	MinReplicas *int32 `json:"minReplicas,omitempty"`
	// MaxReplicas is the upper bound.
	MaxReplicas int32 `json:"maxReplicas"`
	// TargetCPUUtilizationPercentage is the target average CPU
	// utilization of the pods, percent of their request; when unset, 80%
	// (unless the autoscaler has other metrics).
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty"`
}

// HorizontalPodAutoscalerStatusV1 is autoscaling/v1
// HorizontalPodAutoscalerStatus.
type HorizontalPodAutoscalerStatusV1 struct {
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
	// LastScaleTime is when the autoscaler last scaled.
	LastScaleTime *Time `json:"lastScaleTime,omitempty"`
	// CurrentReplicas observed.
	CurrentReplicas int32 `json:"currentReplicas"`
	// DesiredReplicas computed.
	DesiredReplicas int32 `json:"desiredReplicas"`
	// CurrentCPUUtilizationPercentage is the current average CPU
	// utilization of the pods, percent of their request.
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty"`
}
