package api

// Protocol is a network protocol: TCP (the default), UDP or SCTP.
type Protocol string

// The protocols.
const (
	ProtocolTCP  Protocol = "TCP"
	ProtocolUDP  Protocol = "UDP"
	ProtocolSCTP Protocol = "SCTP"
)

// PullPolicy says when the kubelet pulls a container's image.
type PullPolicy string

// The pull policies.
const (
	PullAlways       PullPolicy = "Always"
	PullNever        PullPolicy = "Never"
	PullIfNotPresent PullPolicy = "IfNotPresent"
)

// Container is one container of a pod.
type Container struct {
	// Name is unique within the pod.
	Name string `json:"name"`
	// Image is the container image reference.
	Image string `json:"image,omitempty"`
	// Command replaces the image's entrypoint.
	Command []string `json:"command,omitempty"`
	// Args replace the image's cmd.
	Args []string `json:"args,omitempty"`
	// WorkingDir overrides the image's working directory.
	WorkingDir string `json:"workingDir,omitempty"`
	// Ports the container exposes.
	Ports []ContainerPort `json:"ports,omitempty"`
	// EnvFrom populates environment variables from config maps and secrets.
	EnvFrom []EnvFromSource `json:"envFrom,omitempty"`
	// Env sets environment variables.
	Env []EnvVar `json:"env,omitempty"`
	// Resources are the container's requests and limits.
	Resources ResourceRequirements `json:"resources,omitzero"`
	// VolumeMounts mount the pod's volumes into the container.
	VolumeMounts []VolumeMount `json:"volumeMounts,omitempty"`
	// LivenessProbe restarts the container when it fails.
	LivenessProbe *Probe `json:"livenessProbe,omitempty"`
	// ReadinessProbe removes the pod from service endpoints when it fails.
	ReadinessProbe *Probe `json:"readinessProbe,omitempty"`
	// StartupProbe holds off the other probes until it succeeds.
	StartupProbe *Probe `json:"startupProbe,omitempty"`
	// Lifecycle holds hooks run after start and before stop.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// RestartPolicy "Always" on an init container makes it a sidecar.
	RestartPolicy *ContainerRestartPolicy `json:"restartPolicy,omitempty"`
	// TerminationMessagePath is where the container writes its last words.
	TerminationMessagePath string `json:"terminationMessagePath,omitempty"`
	// TerminationMessagePolicy is File or FallbackToLogsOnError.
	TerminationMessagePolicy string `json:"terminationMessagePolicy,omitempty"`
	// ImagePullPolicy defaults to Always for :latest, IfNotPresent otherwise.
	ImagePullPolicy PullPolicy `json:"imagePullPolicy,omitempty"`
	// SecurityContext holds container-level security attributes.
	SecurityContext *SecurityContext `json:"securityContext,omitempty"`
	// Stdin keeps a stdin buffer open.
	Stdin bool `json:"stdin,omitempty"`
	// StdinOnce closes stdin after the first attach ends.
	StdinOnce bool `json:"stdinOnce,omitempty"`
	// TTY allocates a terminal.
	TTY bool `json:"tty,omitempty"`
}

// ContainerPort is a port a container listens on.
type ContainerPort struct {
	// Name is an IANA service name, referable from a Service's targetPort.
	Name string `json:"name,omitempty"`
	// HostPort exposes the port on the node.
	HostPort int32 `json:"hostPort,omitempty"`
	// ContainerPort is the port number in the pod's network namespace.
	ContainerPort int32 `json:"containerPort"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
	// HostIP binds the host port to one node IP.
	HostIP string `json:"hostIP,omitempty"`
}

// EnvVar is one environment variable: a literal Value or a ValueFrom source.
type EnvVar struct {
	// Name of the variable.
	Name string `json:"name"`
	// Value of the variable; $(VAR) references expand.
	Value string `json:"value,omitempty"`
	// ValueFrom takes the value from elsewhere.
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource is the source of an environment variable's value.
type EnvVarSource struct {
	// FieldRef selects a field of the pod.
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty"`
	// ResourceFieldRef selects a resource of the container.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	// ConfigMapKeyRef selects a key of a config map.
	ConfigMapKeyRef *ConfigMapKeySelector `json:"configMapKeyRef,omitempty"`
	// SecretKeyRef selects a key of a secret.
	SecretKeyRef *SecretKeySelector `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector selects a field of the pod, e.g. "metadata.name".
type ObjectFieldSelector struct {
	// APIVersion the FieldPath is written in; defaults to "v1".
	APIVersion string `json:"apiVersion,omitempty"`
	// FieldPath is the selected field.
	FieldPath string `json:"fieldPath"`
}

// ResourceFieldSelector selects a container resource, e.g. "limits.cpu".
type ResourceFieldSelector struct {
	// ContainerName defaults to the container being configured.
	ContainerName string `json:"containerName,omitempty"`
	// Resource is the selected resource.
	Resource string `json:"resource"`
	// Divisor scales the value; defaults to 1.
	Divisor Quantity `json:"divisor,omitzero"`
}

// ConfigMapKeySelector selects a key of a config map.
type ConfigMapKeySelector struct {
	// LocalObjectReference names the config map.
	LocalObjectReference `json:",inline"`
	// Key to select.
	Key string `json:"key"`
	// Optional makes a missing config map or key not an error.
	Optional *bool `json:"optional,omitempty"`
}

// SecretKeySelector selects a key of a secret.
type SecretKeySelector struct {
	// LocalObjectReference names the secret.
	LocalObjectReference `json:",inline"`
	// Key to select.
	Key string `json:"key"`
	// Optional makes a missing secret or key not an error.
	Optional *bool `json:"optional,omitempty"`
}

// EnvFromSource populates variables from every key of a config map or secret.
type EnvFromSource struct {
	// Prefix is prepended to every key.
	Prefix string `json:"prefix,omitempty"`
	// ConfigMapRef names the config map.
	ConfigMapRef *ConfigMapEnvSource `json:"configMapRef,omitempty"`
	// SecretRef names the secret.
	SecretRef *SecretEnvSource `json:"secretRef,omitempty"`
}

// ConfigMapEnvSource names a config map for EnvFrom.
type ConfigMapEnvSource struct {
	// LocalObjectReference names the config map.
	LocalObjectReference `json:",inline"`
	// Optional makes a missing config map not an error.
	Optional *bool `json:"optional,omitempty"`
}

// SecretEnvSource names a secret for EnvFrom.
type SecretEnvSource struct {
	// LocalObjectReference names the secret.
	LocalObjectReference `json:",inline"`
	// Optional makes a missing secret not an error.
	Optional *bool `json:"optional,omitempty"`
}

// ResourceRequirements are a container's resource requests and limits.
type ResourceRequirements struct {
	// Limits are the most the container may use.
	Limits ResourceList `json:"limits,omitempty"`
	// Requests are what the scheduler reserves; they default to Limits.
	Requests ResourceList `json:"requests,omitempty"`
}

// VolumeMount mounts a pod volume into a container.
type VolumeMount struct {
	// Name of the pod volume.
	Name string `json:"name"`
	// ReadOnly mounts the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
	// MountPath is the path in the container.
	MountPath string `json:"mountPath"`
	// SubPath mounts a path within the volume.
	SubPath string `json:"subPath,omitempty"`
	// MountPropagation is None, HostToContainer or Bidirectional.
	MountPropagation *string `json:"mountPropagation,omitempty"`
	// SubPathExpr is SubPath with $(VAR) expansion.
	SubPathExpr string `json:"subPathExpr,omitempty"`
}

// ContainerRestartPolicy is the restart policy of one container; only
// "Always" (a sidecar init container) is defined.
type ContainerRestartPolicy string
