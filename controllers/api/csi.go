package api

// VolumeLifecycleMode is Persistent or Ephemeral: how a CSI driver's
// volumes may be used.
type VolumeLifecycleMode string

// The volume lifecycle modes.
const (
	// VolumeLifecyclePersistent: volumes of persistent volumes.
	VolumeLifecyclePersistent VolumeLifecycleMode = "Persistent"
	// VolumeLifecycleEphemeral: inline ephemeral volumes of pods.
	VolumeLifecycleEphemeral VolumeLifecycleMode = "Ephemeral"
)

// FSGroupPolicy is ReadWriteOnceWithFSType, File or None.
type FSGroupPolicy string

// The fsGroup policies.
const (
	// ReadWriteOnceWithFSTypeFSGroupPolicy is the default.
	ReadWriteOnceWithFSTypeFSGroupPolicy FSGroupPolicy = "ReadWriteOnceWithFSType"
	// FileFSGroupPolicy always applies fsGroup.
	FileFSGroupPolicy FSGroupPolicy = "File"
	// NoneFSGroupPolicy never does.
	NoneFSGroupPolicy FSGroupPolicy = "None"
)

// CSIDriver describes a CSI volume driver installed in the cluster
// (storage.k8s.io/v1, cluster-scoped); its name is the driver's.
type CSIDriver struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the driver's capabilities.
	Spec CSIDriverSpec `json:"spec,omitzero"`
}

// CSIDriverSpec is what Kubernetes needs to know of a CSI driver.
type CSIDriverSpec struct {
	// AttachRequired says the driver needs ControllerPublishVolume
	// (a VolumeAttachment) before mounting; immutable, default true.
	AttachRequired *bool `json:"attachRequired,omitempty"`
	// PodInfoOnMount passes the pod's name, namespace and uid at mount;
	// default false.
	PodInfoOnMount *bool `json:"podInfoOnMount,omitempty"`
	// VolumeLifecycleModes the driver supports; default Persistent.
	VolumeLifecycleModes []VolumeLifecycleMode `json:"volumeLifecycleModes,omitempty"`
	// StorageCapacity says the driver reports CSIStorageCapacity;
	// default false.
	StorageCapacity *bool `json:"storageCapacity,omitempty"`
	// FSGroupPolicy says whether the volume supports fsGroup; default
	// ReadWriteOnceWithFSType.
	FSGroupPolicy *FSGroupPolicy `json:"fsGroupPolicy,omitempty"`
	// TokenRequests are the service account tokens passed at mount.
	TokenRequests []TokenRequest `json:"tokenRequests,omitempty"`
	// RequiresRepublish makes the kubelet call NodePublishVolume
	// periodically; default false.
	RequiresRepublish *bool `json:"requiresRepublish,omitempty"`
	// SELinuxMount says the driver supports the -o context mount option.
	SELinuxMount *bool `json:"seLinuxMount,omitempty"`
	// NodeAllocatableUpdatePeriodSeconds is how often the kubelet
	// updates the node's allocatable from the driver (at least 10).
	NodeAllocatableUpdatePeriodSeconds *int64 `json:"nodeAllocatableUpdatePeriodSeconds,omitempty"`
}

// TokenRequest is one service account token a CSI driver receives.
type TokenRequest struct {
	// Audience of the token.
	Audience string `json:"audience"`
	// ExpirationSeconds of the token (at least 10 minutes).
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
}

// CSINode lists the CSI drivers installed on a node (storage.k8s.io/v1,
// cluster-scoped); its name is the node's.
type CSINode struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec lists the drivers.
	Spec CSINodeSpec `json:"spec,omitzero"`
}

// CSINodeSpec lists a node's CSI drivers.
type CSINodeSpec struct {
	// Drivers installed on the node.
	Drivers []CSINodeDriver `json:"drivers"`
}

// CSINodeDriver is one CSI driver on a node.
type CSINodeDriver struct {
	// Name of the driver.
	Name string `json:"name"`
	// NodeID is the driver's id of the node.
	NodeID string `json:"nodeID"`
	// TopologyKeys are the node label keys the driver uses for topology.
	TopologyKeys []string `json:"topologyKeys,omitempty"`
	// Allocatable is how many volumes of the driver the node can hold.
	Allocatable *VolumeNodeResources `json:"allocatable,omitempty"`
}

// VolumeNodeResources is a limit on a node's volumes.
type VolumeNodeResources struct {
	// Count is the most volumes of the driver the node can use.
	Count *int32 `json:"count,omitempty"`
}

// VolumeAttachment records the intent to attach a volume to a node
// (storage.k8s.io/v1, cluster-scoped).
type VolumeAttachment struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the attachment wanted; immutable.
	Spec VolumeAttachmentSpec `json:"spec,omitzero"`
	// Status is the attacher's report.
	Status VolumeAttachmentStatus `json:"status,omitzero"`
}

// VolumeAttachmentSpec is an attacher, a volume and a node.
type VolumeAttachmentSpec struct {
	// Attacher is the name of the volume driver that attaches.
	Attacher string `json:"attacher"`
	// Source is the volume.
	Source VolumeAttachmentSource `json:"source,omitzero"`
	// NodeName is the node to attach to.
	NodeName string `json:"nodeName"`
}

// VolumeAttachmentSource is a persistent volume or an inline volume;
// exactly one is set.
type VolumeAttachmentSource struct {
	// PersistentVolumeName names the volume.
	PersistentVolumeName *string `json:"persistentVolumeName,omitempty"`
	// InlineVolumeSpec is a volume migrated from an in-tree plugin.
	InlineVolumeSpec *PersistentVolumeSpec `json:"inlineVolumeSpec,omitempty"`
}

// VolumeAttachmentStatus is the attacher's report.
type VolumeAttachmentStatus struct {
	// Attached says the volume is attached.
	Attached bool `json:"attached"`
	// AttachmentMetadata is returned by a successful attach.
	AttachmentMetadata map[string]string `json:"attachmentMetadata,omitempty"`
	// AttachError is the last attach error.
	AttachError *VolumeError `json:"attachError,omitempty"`
	// DetachError is the last detach error.
	DetachError *VolumeError `json:"detachError,omitempty"`
}

// VolumeError is an attach or detach error.
type VolumeError struct {
	// Time of the error.
	Time Time `json:"time,omitzero"`
	// Message of the error.
	Message string `json:"message,omitempty"`
	// ErrorCode is the numeric gRPC code.
	ErrorCode *int32 `json:"errorCode,omitempty"`
}
