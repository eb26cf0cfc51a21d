package api

// ReplicaSet keeps a number of identical pods running (apps/v1).
type ReplicaSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired replica set.
	Spec ReplicaSetSpec `json:"spec,omitzero"`
	// Status is the observed replica set.
	Status ReplicaSetStatus `json:"status,omitzero"`
}

// ReplicaSetSpec is the desired state of a replica set.
type ReplicaSetSpec struct {
	// Replicas defaults to 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds a new pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector selects the pods the replica set owns; must match the template.
	Selector *LabelSelector `json:"selector"`
	// Template is the pod template.
	Template PodTemplateSpec `json:"template,omitzero"`
}

// ReplicaSetStatus is the observed state of a replica set.
type ReplicaSetStatus struct {
	// Replicas is the number of pods.
	Replicas int32 `json:"replicas"`
	// FullyLabeledReplicas have all the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty"`
	// ReadyReplicas are ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// AvailableReplicas have been ready for MinReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// TerminatingReplicas are being deleted.
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty"`
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions of the replica set (ReplicaFailure).
	Conditions []ReplicaSetCondition `json:"conditions,omitempty"`
}

// ReplicaSetCondition is one condition of a replica set.
type ReplicaSetCondition struct {
	// Type is e.g. "ReplicaFailure".
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

// ReplicationController is the map-selector predecessor of ReplicaSet (core/v1).
type ReplicationController struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired controller.
	Spec ReplicationControllerSpec `json:"spec,omitzero"`
	// Status is the observed controller.
	Status ReplicationControllerStatus `json:"status,omitzero"`
}

// ReplicationControllerSpec is the desired state of a replication controller.
type ReplicationControllerSpec struct {
	// Replicas defaults to 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReadySeconds a new pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// Selector is an equality selector; defaults to the template's labels.
	Selector map[string]string `json:"selector,omitempty"`
	// Template is the pod template.
	Template *PodTemplateSpec `json:"template,omitempty"`
}

// ReplicationControllerStatus is the observed state of a replication controller.
type ReplicationControllerStatus struct {
	// Replicas is the number of pods.
	Replicas int32 `json:"replicas"`
	// FullyLabeledReplicas have all the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty"`
	// ReadyReplicas are ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// AvailableReplicas have been ready for MinReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions of the controller.
	Conditions []ReplicaSetCondition `json:"conditions,omitempty"`
}

// Deployment rolls a pod template out through replica sets (apps/v1).
type Deployment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired deployment.
	Spec DeploymentSpec `json:"spec,omitzero"`
	// Status is the observed deployment.
	Status DeploymentStatus `json:"status,omitzero"`
}

// DeploymentStrategyType is RollingUpdate (default) or Recreate.
type DeploymentStrategyType string

// The deployment strategies.
const (
	RecreateDeploymentStrategyType      DeploymentStrategyType = "Recreate"
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentSpec is the desired state of a deployment.
type DeploymentSpec struct {
	// Replicas defaults to 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector selects the pods; must match the template.
	Selector *LabelSelector `json:"selector"`
	// Template is the pod template.
	Template PodTemplateSpec `json:"template,omitzero"`
	// Strategy replaces old pods with new ones.
	Strategy DeploymentStrategy `json:"strategy,omitzero"`
	// MinReadySeconds a new pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is the number of old replica sets kept; defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// Paused stops the rollout.
	Paused bool `json:"paused,omitempty"`
	// ProgressDeadlineSeconds before a stalled rollout is reported; defaults to 600.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty"`
}

// DeploymentStrategy is how a deployment replaces pods.
type DeploymentStrategy struct {
	// Type is RollingUpdate or Recreate.
	Type DeploymentStrategyType `json:"type,omitempty"`
	// RollingUpdate tunes a rolling update.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDeployment bounds a rolling update.
type RollingUpdateDeployment struct {
	// MaxUnavailable pods below the desired count, a number or a percentage
	// rounded down; defaults to 25%.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge pods above the desired count, a number or a percentage
	// rounded up; defaults to 25%.
	MaxSurge *IntOrString `json:"maxSurge,omitempty"`
}

// DeploymentStatus is the observed state of a deployment.
type DeploymentStatus struct {
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is the number of pods of all the deployment's replica sets.
	Replicas int32 `json:"replicas,omitempty"`
	// UpdatedReplicas run the current template.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
	// ReadyReplicas are ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// AvailableReplicas have been ready for MinReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// UnavailableReplicas are still needed for full capacity.
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty"`
	// TerminatingReplicas are being deleted.
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty"`
	// Conditions are Available, Progressing and ReplicaFailure.
	Conditions []DeploymentCondition `json:"conditions,omitempty"`
	// CollisionCount disambiguates replica set names on hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
}

// DeploymentCondition is one condition of a deployment.
type DeploymentCondition struct {
	// Type is Available, Progressing or ReplicaFailure.
	Type string `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastUpdateTime is when the condition was last updated.
	LastUpdateTime Time `json:"lastUpdateTime,omitzero"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message explains the condition.
	Message string `json:"message,omitempty"`
}
