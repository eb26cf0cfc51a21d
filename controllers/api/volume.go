package api

// Volume is a named volume of a pod; exactly one source is set.
type Volume struct {
	// Name is unique within the pod; VolumeMounts refer to it.
	Name string `json:"name"`
	// VolumeSource is where the volume's data comes from.
	VolumeSource `json:",inline"`
}

// VolumeSource is the source of a pod volume. Only the sources a
// reference control plane runs are modelled.
type VolumeSource struct {
	// HostPath mounts a path of the node.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty"`
	// EmptyDir is a scratch directory that lives as long as the pod.
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty"`
	// Secret mounts the keys of a secret as files.
	Secret *SecretVolumeSource `json:"secret,omitempty"`
	// PersistentVolumeClaim mounts the volume bound to a claim.
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	// ConfigMap mounts the keys of a config map as files.
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
	// NFS mounts an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty"`
	// Projected merges secrets, config maps, downward API files and
	// service account tokens into one directory (the kube-api-access
	// volume of every pod).
	Projected *ProjectedVolumeSource `json:"projected,omitempty"`
	// DownwardAPI exposes pod fields as files.
	DownwardAPI *DownwardAPIVolumeSource `json:"downwardAPI,omitempty"`
	// CSI is an inline volume of a CSI driver.
	CSI *CSIVolumeSource `json:"csi,omitempty"`
	// Ephemeral is a generic ephemeral volume: a claim made from a
	// template for the pod, living as long as the pod (its owner).
	Ephemeral *EphemeralVolumeSource `json:"ephemeral,omitempty"`
}

// EphemeralVolumeSource is a generic ephemeral volume: the
// ephemeral-volume-controller creates the claim <pod>-<volume> from
// VolumeClaimTemplate, owned by the pod.
type EphemeralVolumeSource struct {
	// VolumeClaimTemplate is the claim to create; required.
	VolumeClaimTemplate *PersistentVolumeClaimTemplate `json:"volumeClaimTemplate,omitempty"`
}

// PersistentVolumeClaimTemplate is the template of an ephemeral
// volume's claim: its labels and annotations are copied to the claim
// (name and namespace are not allowed: the claim is named after the pod).
type PersistentVolumeClaimTemplate struct {
	// ObjectMeta is the claim's labels and annotations.
	ObjectMeta `json:"metadata,omitzero"`
	// Spec is copied into the claim unchanged.
	Spec PersistentVolumeClaimSpec `json:"spec"`
}

// HostPathType checks what a host path is before mounting it.
type HostPathType string

// HostPathVolumeSource is a path on the node.
type HostPathVolumeSource struct {
	// Path on the node.
	Path string `json:"path"`
	// Type of the path; "" skips the check.
	Type *HostPathType `json:"type,omitempty"`
}

// StorageMedium is the backing of an emptyDir: "" (node disk) or "Memory".
type StorageMedium string

// EmptyDirVolumeSource is a scratch directory.
type EmptyDirVolumeSource struct {
	// Medium backs the directory.
	Medium StorageMedium `json:"medium,omitempty"`
	// SizeLimit bounds the directory's size.
	SizeLimit *Quantity `json:"sizeLimit,omitempty"`
}

// KeyToPath projects one key to a file path.
type KeyToPath struct {
	// Key to project.
	Key string `json:"key"`
	// Path of the file, relative to the mount.
	Path string `json:"path"`
	// Mode of the file.
	Mode *int32 `json:"mode,omitempty"`
}

// SecretVolumeSource mounts a secret.
type SecretVolumeSource struct {
	// SecretName names the secret in the pod's namespace.
	SecretName string `json:"secretName,omitempty"`
	// Items project selected keys; all keys when empty.
	Items []KeyToPath `json:"items,omitempty"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
	// Optional makes a missing secret not an error.
	Optional *bool `json:"optional,omitempty"`
}

// ConfigMapVolumeSource mounts a config map.
type ConfigMapVolumeSource struct {
	// LocalObjectReference names the config map.
	LocalObjectReference `json:",inline"`
	// Items project selected keys; all keys when empty.
	Items []KeyToPath `json:"items,omitempty"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
	// Optional makes a missing config map not an error.
	Optional *bool `json:"optional,omitempty"`
}

// PersistentVolumeClaimVolumeSource mounts a claim's volume.
type PersistentVolumeClaimVolumeSource struct {
	// ClaimName names the claim in the pod's namespace.
	ClaimName string `json:"claimName"`
	// ReadOnly mounts the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// NFSVolumeSource is an NFS export.
type NFSVolumeSource struct {
	// Server is the NFS server's host or IP.
	Server string `json:"server"`
	// Path of the export.
	Path string `json:"path"`
	// ReadOnly mounts the export read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// ProjectedVolumeSource merges several sources into one directory.
type ProjectedVolumeSource struct {
	// Sources to merge.
	Sources []VolumeProjection `json:"sources"`
	// DefaultMode of the files.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
}

// VolumeProjection is one source of a projected volume; one member is set.
type VolumeProjection struct {
	// Secret projects keys of a secret.
	Secret *SecretProjection `json:"secret,omitempty"`
	// DownwardAPI projects pod fields.
	DownwardAPI *DownwardAPIProjection `json:"downwardAPI,omitempty"`
	// ConfigMap projects keys of a config map.
	ConfigMap *ConfigMapProjection `json:"configMap,omitempty"`
	// ServiceAccountToken projects a bound token.
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
}

// SecretProjection projects keys of a secret.
type SecretProjection struct {
	// LocalObjectReference names the secret.
	LocalObjectReference `json:",inline"`
	// Items project selected keys; all keys when empty.
	Items []KeyToPath `json:"items,omitempty"`
	// Optional makes a missing secret not an error.
	Optional *bool `json:"optional,omitempty"`
}

// ConfigMapProjection projects keys of a config map.
type ConfigMapProjection struct {
	// LocalObjectReference names the config map.
	LocalObjectReference `json:",inline"`
	// Items project selected keys; all keys when empty.
	Items []KeyToPath `json:"items,omitempty"`
	// Optional makes a missing config map not an error.
	Optional *bool `json:"optional,omitempty"`
}

// DownwardAPIProjection projects pod fields.
type DownwardAPIProjection struct {
	// Items are the files.
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// DownwardAPIVolumeFile is one file holding a pod field or resource.
type DownwardAPIVolumeFile struct {
	// Path of the file.
	Path string `json:"path"`
	// FieldRef selects a pod field.
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty"`
	// ResourceFieldRef selects a container resource.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	// Mode of the file.
	Mode *int32 `json:"mode,omitempty"`
}

// ServiceAccountTokenProjection projects a token of the pod's service account.
type ServiceAccountTokenProjection struct {
	// Audience of the token.
	Audience string `json:"audience,omitempty"`
	// ExpirationSeconds of the token; defaults to 3600.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	// Path of the file.
	Path string `json:"path"`
}

// DownwardAPIVolumeSource exposes pod fields as files.
type DownwardAPIVolumeSource struct {
	// Items are the files.
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
	// DefaultMode of the files.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
}

// CSIVolumeSource is an inline volume of a CSI driver.
type CSIVolumeSource struct {
	// Driver name.
	Driver string `json:"driver"`
	// ReadOnly mount.
	ReadOnly *bool `json:"readOnly,omitempty"`
	// FSType to mount.
	FSType *string `json:"fsType,omitempty"`
	// VolumeAttributes passed to the driver.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty"`
	// NodePublishSecretRef names a secret for the driver.
	NodePublishSecretRef *LocalObjectReference `json:"nodePublishSecretRef,omitempty"`
}
