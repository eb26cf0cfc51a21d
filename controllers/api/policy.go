package api

// UnhealthyPodEvictionPolicyType says when a disruption budget lets
// unhealthy pods be evicted: IfHealthyBudget or AlwaysAllow.
type UnhealthyPodEvictionPolicyType string

// The unhealthy pod eviction policies.
const (
	// IfHealthyBudget evicts a running, not ready pod only while the
	// application is not disrupted (currentHealthy ≥ desiredHealthy).
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	// AlwaysAllow evicts running, not ready pods whatever the budget.
	AlwaysAllow UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudget bounds the voluntary disruption of a set of pods
// (policy/v1, namespaced): evictions are refused that would leave fewer
// than minAvailable, or more than maxUnavailable, of them unavailable.
type PodDisruptionBudget struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the budget.
	Spec PodDisruptionBudgetSpec `json:"spec,omitzero"`
	// Status is what the disruption controller last observed.
	Status PodDisruptionBudgetStatus `json:"status,omitzero"`
}

// PodDisruptionBudgetSpec is the desired budget: at most one of
// MinAvailable and MaxUnavailable is set.
type PodDisruptionBudgetSpec struct {
	// MinAvailable is the number or percentage of selected pods that
	// must stay available after an eviction.
	MinAvailable *IntOrString `json:"minAvailable,omitempty"`
	// Selector selects the pods the budget covers; an empty selector
	// selects every pod of the namespace.
	Selector *LabelSelector `json:"selector,omitempty"`
	// MaxUnavailable is the number or percentage of selected pods that
	// may be unavailable after an eviction.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	// UnhealthyPodEvictionPolicy is IfHealthyBudget (the default
	// behaviour when unset) or AlwaysAllow.
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty"`
}

// PodDisruptionBudgetStatus is the observed state of a budget.
type PodDisruptionBudgetStatus struct {
	// ObservedGeneration is the generation the status was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// DisruptedPods maps the pods the eviction API let go, but that
	// the controller has not yet seen deleted, to when they were evicted.
	DisruptedPods map[string]Time `json:"disruptedPods,omitempty"`
	// DisruptionsAllowed is how many more pods may be disrupted now.
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`
	// CurrentHealthy is the number of healthy pods.
	CurrentHealthy int32 `json:"currentHealthy"`
	// DesiredHealthy is the least number of healthy pods wanted.
	DesiredHealthy int32 `json:"desiredHealthy"`
	// ExpectedPods is the number of pods the budget counts.
	ExpectedPods int32 `json:"expectedPods"`
	// Conditions hold DisruptionAllowed.
	Conditions []Condition `json:"conditions,omitempty"`
}
