package api

// Affinity groups a pod's scheduling constraints.
type Affinity struct {
	// NodeAffinity constrains the nodes the pod may run on.
	NodeAffinity *NodeAffinity `json:"nodeAffinity,omitempty"`
	// PodAffinity co-locates the pod with other pods.
	PodAffinity *PodAffinity `json:"podAffinity,omitempty"`
	// PodAntiAffinity keeps the pod away from other pods.
	PodAntiAffinity *PodAntiAffinity `json:"podAntiAffinity,omitempty"`
}

// NodeAffinity constrains nodes by their labels and fields.
type NodeAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution must hold for the pod to be scheduled.
	RequiredDuringSchedulingIgnoredDuringExecution *NodeSelector `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	// PreferredDuringSchedulingIgnoredDuringExecution adds weights to nodes that match.
	PreferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PreferredSchedulingTerm is a weighted node selector term.
type PreferredSchedulingTerm struct {
	// Weight in 1..100.
	Weight int32 `json:"weight"`
	// Preference is the term that earns the weight.
	Preference NodeSelectorTerm `json:"preference"`
}

// PodAffinity attracts the pod to topology domains running matching pods.
type PodAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution terms must all hold.
	RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	// PreferredDuringSchedulingIgnoredDuringExecution terms add weights.
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAntiAffinity repels the pod from topology domains running matching pods.
type PodAntiAffinity struct {
	// RequiredDuringSchedulingIgnoredDuringExecution terms must all hold.
	RequiredDuringSchedulingIgnoredDuringExecution []PodAffinityTerm `json:"requiredDuringSchedulingIgnoredDuringExecution,omitempty"`
	// PreferredDuringSchedulingIgnoredDuringExecution terms add weights.
	PreferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

// PodAffinityTerm selects pods, in namespaces, whose nodes share a topology
// domain (the value of the node label TopologyKey).
type PodAffinityTerm struct {
	// LabelSelector selects the pods; nil selects none.
	LabelSelector *LabelSelector `json:"labelSelector,omitempty"`
	// Namespaces to look in; the pod's own when empty (and NamespaceSelector nil).
	Namespaces []string `json:"namespaces,omitempty"`
	// TopologyKey is the node label that defines a domain.
	TopologyKey string `json:"topologyKey"`
	// NamespaceSelector selects namespaces by label.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	// MatchLabelKeys add "key in (the pod's value)" to LabelSelector.
	MatchLabelKeys []string `json:"matchLabelKeys,omitempty"`
	// MismatchLabelKeys add "key notin (the pod's value)" to LabelSelector.
	MismatchLabelKeys []string `json:"mismatchLabelKeys,omitempty"`
}

// WeightedPodAffinityTerm is a weighted pod affinity term.
type WeightedPodAffinityTerm struct {
	// Weight in 1..100.
	Weight int32 `json:"weight"`
	// PodAffinityTerm earns the weight.
	PodAffinityTerm PodAffinityTerm `json:"podAffinityTerm"`
}

// UnsatisfiableConstraintAction is DoNotSchedule or ScheduleAnyway.
type UnsatisfiableConstraintAction string

// TopologySpreadConstraint bounds the skew of matching pods across domains.
type TopologySpreadConstraint struct {
	// MaxSkew is the largest allowed difference between domains.
	MaxSkew int32 `json:"maxSkew"`
	// TopologyKey is the node label that defines a domain.
	TopologyKey string `json:"topologyKey"`
	// WhenUnsatisfiable is DoNotSchedule or ScheduleAnyway.
	WhenUnsatisfiable UnsatisfiableConstraintAction `json:"whenUnsatisfiable"`
	// LabelSelector selects the pods counted.
	LabelSelector *LabelSelector `json:"labelSelector,omitempty"`
	// MinDomains is the least number of eligible domains.
	MinDomains *int32 `json:"minDomains,omitempty"`
	// NodeAffinityPolicy is Honor (default) or Ignore: whether node
	// affinity limits the domains counted.
	NodeAffinityPolicy *string `json:"nodeAffinityPolicy,omitempty"`
	// NodeTaintsPolicy is Honor or Ignore (default): whether taints limit
	// the domains counted.
	NodeTaintsPolicy *string `json:"nodeTaintsPolicy,omitempty"`
	// MatchLabelKeys add "key in (the pod's value)" to LabelSelector.
	MatchLabelKeys []string `json:"matchLabelKeys,omitempty"`
}

// NodeSelector is a disjunction of terms: a node matches if any term does.
type NodeSelector struct {
	// NodeSelectorTerms are ORed.
	NodeSelectorTerms []NodeSelectorTerm `json:"nodeSelectorTerms"`
}

// NodeSelectorTerm is a conjunction of requirements on a node's labels
// (MatchExpressions) and fields (MatchFields). An empty term matches nothing.
type NodeSelectorTerm struct {
	// MatchExpressions are requirements on node labels.
	MatchExpressions []NodeSelectorRequirement `json:"matchExpressions,omitempty"`
	// MatchFields are requirements on node fields (only metadata.name).
	MatchFields []NodeSelectorRequirement `json:"matchFields,omitempty"`
}

// NodeSelectorOperator relates a key to values in a NodeSelectorRequirement.
type NodeSelectorOperator string

// The node selector operators.
const (
	NodeSelectorOpIn           NodeSelectorOperator = "In"
	NodeSelectorOpNotIn        NodeSelectorOperator = "NotIn"
	NodeSelectorOpExists       NodeSelectorOperator = "Exists"
	NodeSelectorOpDoesNotExist NodeSelectorOperator = "DoesNotExist"
	NodeSelectorOpGt           NodeSelectorOperator = "Gt"
	NodeSelectorOpLt           NodeSelectorOperator = "Lt"
)

// NodeSelectorRequirement is one requirement of a node selector term.
type NodeSelectorRequirement struct {
	// Key is the label (or field) key.
	Key string `json:"key"`
	// Operator relates Key to Values.
	Operator NodeSelectorOperator `json:"operator"`
	// Values: one or more for In/NotIn, none for Exists/DoesNotExist, a
	// single integer for Gt/Lt.
	Values []string `json:"values,omitempty"`
}
