package api

import "encoding/json"

// StatefulSet runs pods with stable identities and storage (apps/v1).
type StatefulSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired stateful set.
	Spec StatefulSetSpec `json:"spec,omitzero"`
	// Status is the observed stateful set.
	Status StatefulSetStatus `json:"status,omitzero"`
}

// PodManagementPolicyType is OrderedReady (default) or Parallel.
type PodManagementPolicyType string

// The pod management policies.
const (
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	ParallelPodManagement     PodManagementPolicyType = "Parallel"
)

// StatefulSetSpec is the desired state of a stateful set.
type StatefulSetSpec struct {
	// Replicas defaults to 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Selector selects the pods; must match the template.
	Selector *LabelSelector `json:"selector"`
	// Template is the pod template.
	Template PodTemplateSpec `json:"template,omitzero"`
	// VolumeClaimTemplates make one claim per pod and template.
	VolumeClaimTemplates []PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
	// ServiceName is the governing headless service.
	ServiceName string `json:"serviceName,omitempty"`
	// PodManagementPolicy is OrderedReady or Parallel.
	PodManagementPolicy PodManagementPolicyType `json:"podManagementPolicy,omitempty"`
	// UpdateStrategy is how template changes reach the pods.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitzero"`
	// RevisionHistoryLimit is the number of controller revisions kept; defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
	// MinReadySeconds a new pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// PersistentVolumeClaimRetentionPolicy says what happens to claims.
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty"`
	// Ordinals sets the first ordinal.
	Ordinals *StatefulSetOrdinals `json:"ordinals,omitempty"`
}

// StatefulSetUpdateStrategy is RollingUpdate (default) or OnDelete.
type StatefulSetUpdateStrategy struct {
	// Type is RollingUpdate or OnDelete.
	Type string `json:"type,omitempty"`
	// RollingUpdate tunes a rolling update.
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty"`
}

// RollingUpdateStatefulSetStrategy tunes a stateful set's rolling update.
type RollingUpdateStatefulSetStrategy struct {
	// Partition: only ordinals >= Partition are updated.
	Partition *int32 `json:"partition,omitempty"`
	// MaxUnavailable pods during the update.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
}

// StatefulSetPersistentVolumeClaimRetentionPolicy is Retain or Delete per event.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	// WhenDeleted applies when the stateful set is deleted.
	WhenDeleted string `json:"whenDeleted,omitempty"`
	// WhenScaled applies when it is scaled down.
	WhenScaled string `json:"whenScaled,omitempty"`
}

// StatefulSetOrdinals sets the ordinal numbering.
type StatefulSetOrdinals struct {
	// Start is the first ordinal.
	Start int32 `json:"start"`
}

// StatefulSetStatus is the observed state of a stateful set.
type StatefulSetStatus struct {
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas is the number of pods.
	Replicas int32 `json:"replicas"`
	// ReadyReplicas are ready.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// CurrentReplicas run CurrentRevision.
	CurrentReplicas int32 `json:"currentReplicas,omitempty"`
	// UpdatedReplicas run UpdateRevision.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty"`
	// CurrentRevision is the revision of pods 0..CurrentReplicas-1.
	CurrentRevision string `json:"currentRevision,omitempty"`
	// UpdateRevision is the revision of the current template.
	UpdateRevision string `json:"updateRevision,omitempty"`
	// CollisionCount disambiguates revision names on hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
	// Conditions of the stateful set.
	Conditions []Condition `json:"conditions,omitempty"`
	// AvailableReplicas have been ready for MinReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas"`
}

// DaemonSet runs one pod on each eligible node (apps/v1).
type DaemonSet struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired daemon set.
	Spec DaemonSetSpec `json:"spec,omitzero"`
	// Status is the observed daemon set.
	Status DaemonSetStatus `json:"status,omitzero"`
}

// DaemonSetSpec is the desired state of a daemon set.
type DaemonSetSpec struct {
	// Selector selects the pods; must match the template.
	Selector *LabelSelector `json:"selector"`
	// Template is the pod template.
	Template PodTemplateSpec `json:"template,omitzero"`
	// UpdateStrategy is RollingUpdate (default) or OnDelete.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy,omitzero"`
	// MinReadySeconds a new pod must be ready to count as available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is the number of controller revisions kept; defaults to 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty"`
}

// DaemonSetUpdateStrategy is how template changes reach the nodes.
type DaemonSetUpdateStrategy struct {
	// Type is RollingUpdate or OnDelete.
	Type string `json:"type,omitempty"`
	// RollingUpdate tunes a rolling update.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet bounds a daemon set's rolling update.
type RollingUpdateDaemonSet struct {
	// MaxUnavailable nodes without a ready pod; defaults to 1.
	MaxUnavailable *IntOrString `json:"maxUnavailable,omitempty"`
	// MaxSurge nodes running an old and a new pod at once; defaults to 0.
	MaxSurge *IntOrString `json:"maxSurge,omitempty"`
}

// DaemonSetStatus is the observed state of a daemon set.
type DaemonSetStatus struct {
	// CurrentNumberScheduled nodes run a daemon pod and should.
	CurrentNumberScheduled int32 `json:"currentNumberScheduled"`
	// NumberMisscheduled nodes run a daemon pod but should not.
	NumberMisscheduled int32 `json:"numberMisscheduled"`
	// DesiredNumberScheduled nodes should run a daemon pod.
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled"`
	// NumberReady nodes run a ready daemon pod.
	NumberReady int32 `json:"numberReady"`
	// ObservedGeneration is the generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// UpdatedNumberScheduled nodes run the current template.
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty"`
	// NumberAvailable nodes run an available daemon pod.
	NumberAvailable int32 `json:"numberAvailable,omitempty"`
	// NumberUnavailable nodes should but do not run an available pod.
	NumberUnavailable int32 `json:"numberUnavailable,omitempty"`
	// CollisionCount disambiguates revision names on hash collisions.
	CollisionCount *int32 `json:"collisionCount,omitempty"`
	// Conditions of the daemon set.
	Conditions []Condition `json:"conditions,omitempty"`
}

// ControllerRevision is an immutable snapshot of a template, kept by
// stateful sets and daemon sets for rollback (apps/v1).
type ControllerRevision struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Data is the snapshot, as the JSON of a patch or object.
	Data json.RawMessage `json:"data,omitempty"`
	// Revision orders the revisions of one owner.
	Revision int64 `json:"revision"`
}
