package api

// PodPhase is the coarse lifecycle state of a pod.
type PodPhase string

// The pod phases.
const (
	PodPending   PodPhase = "Pending"
	PodRunning   PodPhase = "Running"
	PodSucceeded PodPhase = "Succeeded"
	PodFailed    PodPhase = "Failed"
	PodUnknown   PodPhase = "Unknown"
)

// PodConditionType names a pod condition.
type PodConditionType string

// The pod conditions.
const (
	PodScheduled    PodConditionType = "PodScheduled"
	PodInitialized  PodConditionType = "Initialized"
	ContainersReady PodConditionType = "ContainersReady"
	PodReady        PodConditionType = "Ready"
)

// PodQOSClass is the pod's quality-of-service class.
type PodQOSClass string

// PodStatus is the observed state of a pod.
type PodStatus struct {
	// Phase is the pod's lifecycle phase.
	Phase PodPhase `json:"phase,omitempty"`
	// Conditions are the pod's current conditions.
	Conditions []PodCondition `json:"conditions,omitempty"`
	// Message explains the pod's state.
	Message string `json:"message,omitempty"`
	// Reason is a CamelCase reason for the pod's state, e.g. "Evicted".
	Reason string `json:"reason,omitempty"`
	// NominatedNodeName is the node preemption made room on.
	NominatedNodeName string `json:"nominatedNodeName,omitempty"`
	// HostIP is the primary IP of the pod's node.
	HostIP string `json:"hostIP,omitempty"`
	// HostIPs are the IPs of the pod's node.
	HostIPs []HostIP `json:"hostIPs,omitempty"`
	// PodIP is the pod's primary IP.
	PodIP string `json:"podIP,omitempty"`
	// PodIPs are the pod's IPs, the first equal to PodIP.
	PodIPs []PodIP `json:"podIPs,omitempty"`
	// StartTime is when the kubelet acknowledged the pod.
	StartTime *Time `json:"startTime,omitempty"`
	// InitContainerStatuses report the init containers.
	InitContainerStatuses []ContainerStatus `json:"initContainerStatuses,omitempty"`
	// ContainerStatuses report the containers.
	ContainerStatuses []ContainerStatus `json:"containerStatuses,omitempty"`
	// EphemeralContainerStatuses report the ephemeral containers.
	EphemeralContainerStatuses []ContainerStatus `json:"ephemeralContainerStatuses,omitempty"`
	// QOSClass is Guaranteed, Burstable or BestEffort.
	QOSClass PodQOSClass `json:"qosClass,omitempty"`
	// ObservedGeneration is the pod generation the status reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// PodCondition is one condition of a pod.
type PodCondition struct {
	// Type of the condition.
	Type PodConditionType `json:"type"`
	// ObservedGeneration is the pod generation the condition reflects.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastProbeTime is when the condition was last probed.
	LastProbeTime Time `json:"lastProbeTime,omitzero"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty"`
	// Message explains the last transition.
	Message string `json:"message,omitempty"`
}

// HostIP is one IP of a pod's node.
type HostIP struct {
	// IP address.
	IP string `json:"ip"`
}

// PodIP is one IP of a pod.
type PodIP struct {
	// IP address.
	IP string `json:"ip"`
}

// ContainerStatus reports one container of a pod.
type ContainerStatus struct {
	// Name of the container.
	Name string `json:"name"`
	// State is the container's current state.
	State ContainerState `json:"state,omitzero"`
	// LastTerminationState is the state of the previous run.
	LastTerminationState ContainerState `json:"lastState,omitzero"`
	// Ready reports whether the readiness probe passes.
	Ready bool `json:"ready"`
	// RestartCount counts restarts of the container.
	RestartCount int32 `json:"restartCount"`
	// Image the container runs.
	Image string `json:"image"`
	// ImageID of the image the container runs.
	ImageID string `json:"imageID"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty"`
	// Started reports whether the startup probe has passed.
	Started *bool `json:"started,omitempty"`
	// AllocatedResources are the resources allocated to the container.
	AllocatedResources ResourceList `json:"allocatedResources,omitempty"`
	// Resources are the requests and limits the runtime applied.
	Resources *ResourceRequirements `json:"resources,omitempty"`
	// VolumeMounts report the container's mounts.
	VolumeMounts []VolumeMountStatus `json:"volumeMounts,omitempty"`
	// User is the identity of the container's first process.
	User *ContainerUser `json:"user,omitempty"`
}

// VolumeMountStatus reports one mount of a container.
type VolumeMountStatus struct {
	// Name of the volume.
	Name string `json:"name"`
	// MountPath in the container.
	MountPath string `json:"mountPath"`
	// ReadOnly mount.
	ReadOnly bool `json:"readOnly,omitempty"`
	// RecursiveReadOnly is Disabled or Enabled.
	RecursiveReadOnly *string `json:"recursiveReadOnly,omitempty"`
}

// ContainerUser is the identity of a container's process.
type ContainerUser struct {
	// Linux identity.
	Linux *LinuxContainerUser `json:"linux,omitempty"`
}

// LinuxContainerUser is a Linux process identity.
type LinuxContainerUser struct {
	// UID of the process.
	UID int64 `json:"uid"`
	// GID of the process.
	GID int64 `json:"gid"`
	// SupplementalGroups of the process.
	SupplementalGroups []int64 `json:"supplementalGroups,omitempty"`
}

// ContainerState is a container's state: at most one member is set.
type ContainerState struct {
	// Waiting is set while the container is not yet running.
	Waiting *ContainerStateWaiting `json:"waiting,omitempty"`
	// Running is set while the container runs.
	Running *ContainerStateRunning `json:"running,omitempty"`
	// Terminated is set once the container has exited.
	Terminated *ContainerStateTerminated `json:"terminated,omitempty"`
}

// ContainerStateWaiting is a container that is not running yet.
type ContainerStateWaiting struct {
	// Reason is e.g. "ContainerCreating" or "CrashLoopBackOff".
	Reason string `json:"reason,omitempty"`
	// Message explains the wait.
	Message string `json:"message,omitempty"`
}

// ContainerStateRunning is a running container.
type ContainerStateRunning struct {
	// StartedAt is when the container started.
	StartedAt Time `json:"startedAt,omitzero"`
}

// ContainerStateTerminated is a container that has exited.
type ContainerStateTerminated struct {
	// ExitCode of the container's process.
	ExitCode int32 `json:"exitCode"`
	// Signal that killed the process, if any.
	Signal int32 `json:"signal,omitempty"`
	// Reason is e.g. "Completed", "Error" or "OOMKilled".
	Reason string `json:"reason,omitempty"`
	// Message explains the termination.
	Message string `json:"message,omitempty"`
	// StartedAt is when the run started.
	StartedAt Time `json:"startedAt,omitzero"`
	// FinishedAt is when the run ended.
	FinishedAt Time `json:"finishedAt,omitzero"`
	// ContainerID is "<runtime>://<id>".
	ContainerID string `json:"containerID,omitempty"`
}
