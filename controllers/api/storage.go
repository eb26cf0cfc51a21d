package api

// PersistentVolumeAccessMode is ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.
type PersistentVolumeAccessMode string

// PersistentVolumeReclaimPolicy is Retain, Delete or Recycle.
type PersistentVolumeReclaimPolicy string

// PersistentVolumeMode is Filesystem (default) or Block.
type PersistentVolumeMode string

// PersistentVolume is a piece of storage in the cluster (core/v1, cluster-scoped).
type PersistentVolume struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the volume.
	Spec PersistentVolumeSpec `json:"spec,omitzero"`
	// Status is its binding phase.
	Status PersistentVolumeStatus `json:"status,omitzero"`
}

// PersistentVolumeSpec describes a persistent volume.
type PersistentVolumeSpec struct {
	// Capacity, usually just "storage".
	Capacity ResourceList `json:"capacity,omitempty"`
	// PersistentVolumeSource is where the storage is.
	PersistentVolumeSource `json:",inline"`
	// AccessModes the volume supports.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// ClaimRef is the claim bound to the volume.
	ClaimRef *ObjectReference `json:"claimRef,omitempty"`
	// PersistentVolumeReclaimPolicy applies when the claim is released.
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty"`
	// StorageClassName is the volume's class.
	StorageClassName string `json:"storageClassName,omitempty"`
	// MountOptions are passed to mount.
	MountOptions []string `json:"mountOptions,omitempty"`
	// VolumeMode is Filesystem or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty"`
	// NodeAffinity restricts the nodes that can reach the volume.
	NodeAffinity *VolumeNodeAffinity `json:"nodeAffinity,omitempty"`
}

// PersistentVolumeSource is the storage of a persistent volume; one member is set.
type PersistentVolumeSource struct {
	// HostPath is a path on one node (testing only).
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty"`
	// Local is a local disk of one node.
	Local *LocalVolumeSource `json:"local,omitempty"`
	// NFS is an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty"`
	// CSI is a volume of a CSI driver.
	CSI *CSIPersistentVolumeSource `json:"csi,omitempty"`
}

// CSIPersistentVolumeSource is a persistent volume of a CSI driver.
type CSIPersistentVolumeSource struct {
	// Driver name.
	Driver string `json:"driver"`
	// VolumeHandle is the driver's id of the volume.
	VolumeHandle string `json:"volumeHandle"`
	// ReadOnly mount.
	ReadOnly bool `json:"readOnly,omitempty"`
	// FSType to mount.
	FSType string `json:"fsType,omitempty"`
	// VolumeAttributes passed to the driver.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty"`
	// ControllerPublishSecretRef names a secret for ControllerPublishVolume.
	ControllerPublishSecretRef *SecretReference `json:"controllerPublishSecretRef,omitempty"`
	// NodeStageSecretRef names a secret for NodeStageVolume.
	NodeStageSecretRef *SecretReference `json:"nodeStageSecretRef,omitempty"`
	// NodePublishSecretRef names a secret for NodePublishVolume.
	NodePublishSecretRef *SecretReference `json:"nodePublishSecretRef,omitempty"`
	// ControllerExpandSecretRef names a secret for ControllerExpandVolume.
	ControllerExpandSecretRef *SecretReference `json:"controllerExpandSecretRef,omitempty"`
	// NodeExpandSecretRef names a secret for NodeExpandVolume.
	NodeExpandSecretRef *SecretReference `json:"nodeExpandSecretRef,omitempty"`
}

// SecretReference names a secret in any namespace.
type SecretReference struct {
	// Name of the secret.
	Name string `json:"name,omitempty"`
	// Namespace of the secret.
	Namespace string `json:"namespace,omitempty"`
}

// LocalVolumeSource is a local disk, partition or directory.
type LocalVolumeSource struct {
	// Path on the node.
	Path string `json:"path"`
	// FSType of a block device.
	FSType *string `json:"fsType,omitempty"`
}

// VolumeNodeAffinity restricts the nodes a volume can be used from.
type VolumeNodeAffinity struct {
	// Required node selector.
	Required *NodeSelector `json:"required,omitempty"`
}

// PersistentVolumePhase is Pending, Available, Bound, Released or Failed.
type PersistentVolumePhase string

// PersistentVolumeStatus is the observed state of a persistent volume.
type PersistentVolumeStatus struct {
	// Phase of the volume.
	Phase PersistentVolumePhase `json:"phase,omitempty"`
	// Message explains the phase.
	Message string `json:"message,omitempty"`
	// Reason is a CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// LastPhaseTransitionTime is when Phase last changed.
	LastPhaseTransitionTime *Time `json:"lastPhaseTransitionTime,omitempty"`
}

// PersistentVolumeClaim is a request for storage (core/v1).
type PersistentVolumeClaim struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the request.
	Spec PersistentVolumeClaimSpec `json:"spec,omitzero"`
	// Status is the binding.
	Status PersistentVolumeClaimStatus `json:"status,omitzero"`
}

// PersistentVolumeClaimSpec is a storage request.
type PersistentVolumeClaimSpec struct {
	// AccessModes requested.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// Selector restricts the volumes that may bind.
	Selector *LabelSelector `json:"selector,omitempty"`
	// Resources requested, usually "storage".
	Resources VolumeResourceRequirements `json:"resources,omitzero"`
	// VolumeName binds to one volume by name.
	VolumeName string `json:"volumeName,omitempty"`
	// StorageClassName requested; nil means the default class.
	StorageClassName *string `json:"storageClassName,omitempty"`
	// VolumeMode is Filesystem or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty"`
	// DataSource populates the volume from a snapshot or another claim.
	DataSource *TypedLocalObjectReference `json:"dataSource,omitempty"`
	// DataSourceRef is DataSource that may name any populator object.
	DataSourceRef *TypedObjectReference `json:"dataSourceRef,omitempty"`
}

// TypedLocalObjectReference names an object of any group in the same namespace.
type TypedLocalObjectReference struct {
	// APIGroup of the referent; nil for the core group.
	APIGroup *string `json:"apiGroup"`
	// Kind of the referent.
	Kind string `json:"kind"`
	// Name of the referent.
	Name string `json:"name"`
}

// TypedObjectReference names an object of any group, in any namespace.
type TypedObjectReference struct {
	// APIGroup of the referent; nil for the core group.
	APIGroup *string `json:"apiGroup"`
	// Kind of the referent.
	Kind string `json:"kind"`
	// Name of the referent.
	Name string `json:"name"`
	// Namespace of the referent.
	Namespace *string `json:"namespace,omitempty"`
}

// VolumeResourceRequirements are a claim's storage requests and limits.
type VolumeResourceRequirements struct {
	// Limits on the volume's size.
	Limits ResourceList `json:"limits,omitempty"`
	// Requests for the volume's size.
	Requests ResourceList `json:"requests,omitempty"`
}

// PersistentVolumeClaimPhase is Pending, Bound or Lost.
type PersistentVolumeClaimPhase string

// PersistentVolumeClaimStatus is the observed state of a claim.
type PersistentVolumeClaimStatus struct {
	// Phase of the claim.
	Phase PersistentVolumeClaimPhase `json:"phase,omitempty"`
	// AccessModes of the bound volume.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// Capacity of the bound volume.
	Capacity ResourceList `json:"capacity,omitempty"`
	// Conditions of the claim, e.g. Resizing.
	Conditions []PersistentVolumeClaimCondition `json:"conditions,omitempty"`
	// AllocatedResources are what the claim was last resized to.
	AllocatedResources ResourceList `json:"allocatedResources,omitempty"`
}

// PersistentVolumeClaimCondition is one condition of a claim.
type PersistentVolumeClaimCondition struct {
	// Type of the condition.
	Type string `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastProbeTime is when the condition was last probed.
	LastProbeTime Time `json:"lastProbeTime,omitzero"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message explains the condition.
	Message string `json:"message,omitempty"`
}

// VolumeBindingMode is Immediate (default) or WaitForFirstConsumer.
type VolumeBindingMode string

// StorageClass describes a class of dynamically provisioned storage
// (storage.k8s.io/v1, cluster-scoped). It has no spec: its fields are top level.
type StorageClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Provisioner is the volume plugin that provisions volumes.
	Provisioner string `json:"provisioner"`
	// Parameters for the provisioner.
	Parameters map[string]string `json:"parameters,omitempty"`
	// ReclaimPolicy of provisioned volumes; defaults to Delete.
	ReclaimPolicy *PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty"`
	// MountOptions of provisioned volumes.
	MountOptions []string `json:"mountOptions,omitempty"`
	// AllowVolumeExpansion lets claims grow.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty"`
	// VolumeBindingMode says when volumes are bound.
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty"`
	// AllowedTopologies restrict where volumes are provisioned.
	AllowedTopologies []TopologySelectorTerm `json:"allowedTopologies,omitempty"`
}

// TopologySelectorTerm is a conjunction of topology label requirements.
type TopologySelectorTerm struct {
	// MatchLabelExpressions are ANDed.
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty"`
}

// TopologySelectorLabelRequirement requires a label to have one of Values.
type TopologySelectorLabelRequirement struct {
	// Key of the label.
	Key string `json:"key"`
	// Values allowed.
	Values []string `json:"values"`
}
