package api

// The preemption policies of a pod and a priority class.
const (
	// PreemptLowerPriority lets a pod preempt pods of lower priority.
	PreemptLowerPriority PreemptionPolicy = "PreemptLowerPriority"
	// PreemptNever keeps a pod from preempting others.
	PreemptNever PreemptionPolicy = "Never"
)

// The system priority classes kube-apiserver creates, and the highest
// value a user-defined class may have.
const (
	// SystemClusterCritical is the class of cluster-critical add-ons.
	SystemClusterCritical = "system-cluster-critical"
	// SystemNodeCritical is the class of node-critical pods.
	SystemNodeCritical = "system-node-critical"
	// SystemCriticalPriority is system-cluster-critical's value; a
	// user-defined class may not exceed HighestUserDefinablePriority.
	SystemCriticalPriority int32 = 2 * HighestUserDefinablePriority
	// HighestUserDefinablePriority is the highest value of a class not
	// named system-.
	HighestUserDefinablePriority int32 = 1000000000
)

// PriorityClass maps a priority class name to the integer priority of
// the pods that name it (scheduling.k8s.io/v1, cluster-scoped). It has
// no spec: its fields are top level.
type PriorityClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Value is the priority of the class's pods; higher is more
	// important.
	Value int32 `json:"value"`
	// GlobalDefault makes the class the one of pods that name none; at
	// most one class may have it.
	GlobalDefault bool `json:"globalDefault,omitempty"`
	// Description says when to use the class.
	Description string `json:"description,omitempty"`
	// PreemptionPolicy is PreemptLowerPriority (the default) or
	// PreemptNever.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty"`
}
