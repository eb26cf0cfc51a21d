package api

// Node is a machine pods run on (core/v1, cluster-scoped).
type Node struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired node.
	Spec NodeSpec `json:"spec,omitzero"`
	// Status is the observed node, reported by its kubelet.
	Status NodeStatus `json:"status,omitzero"`
}

// NodeSpec is the desired state of a node.
type NodeSpec struct {
	// PodCIDR is the node's pod IP range.
	PodCIDR string `json:"podCIDR,omitempty"`
	// PodCIDRs are the node's pod IP ranges, the first equal to PodCIDR.
	PodCIDRs []string `json:"podCIDRs,omitempty"`
	// ProviderID is the cloud provider's id of the machine.
	ProviderID string `json:"providerID,omitempty"`
	// Unschedulable cordons the node: no new pods are scheduled onto it.
	Unschedulable bool `json:"unschedulable,omitempty"`
	// Taints repel pods that do not tolerate them.
	Taints []Taint `json:"taints,omitempty"`
}

// NodePhase is the deprecated lifecycle phase of a node.
type NodePhase string

// NodeConditionType names a node condition.
type NodeConditionType string

// The node conditions.
const (
	NodeReady              NodeConditionType = "Ready"
	NodeMemoryPressure     NodeConditionType = "MemoryPressure"
	NodeDiskPressure       NodeConditionType = "DiskPressure"
	NodePIDPressure        NodeConditionType = "PIDPressure"
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeAddressType is Hostname, InternalIP, ExternalIP, InternalDNS or ExternalDNS.
type NodeAddressType string

// The node address types.
const (
	NodeHostName   NodeAddressType = "Hostname"
	NodeInternalIP NodeAddressType = "InternalIP"
	NodeExternalIP NodeAddressType = "ExternalIP"
)

// NodeStatus is the observed state of a node.
type NodeStatus struct {
	// Capacity is the node's total resources.
	Capacity ResourceList `json:"capacity,omitempty"`
	// Allocatable is what pods may request: capacity minus reservations.
	Allocatable ResourceList `json:"allocatable,omitempty"`
	// Phase is deprecated.
	Phase NodePhase `json:"phase,omitempty"`
	// Conditions are Ready and the pressure conditions.
	Conditions []NodeCondition `json:"conditions,omitempty"`
	// Addresses reach the node.
	Addresses []NodeAddress `json:"addresses,omitempty"`
	// DaemonEndpoints are the kubelet's ports.
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitzero"`
	// NodeInfo describes the machine and its software.
	NodeInfo NodeSystemInfo `json:"nodeInfo,omitzero"`
	// Images present on the node.
	Images []ContainerImage `json:"images,omitempty"`
	// VolumesInUse are the volumes mounted on the node.
	VolumesInUse []string `json:"volumesInUse,omitempty"`
	// VolumesAttached are the volumes attached to the node.
	VolumesAttached []AttachedVolume `json:"volumesAttached,omitempty"`
}

// ContainerImage is one image present on a node.
type ContainerImage struct {
	// Names of the image.
	Names []string `json:"names"`
	// SizeBytes of the image.
	SizeBytes int64 `json:"sizeBytes,omitempty"`
}

// AttachedVolume is one volume attached to a node.
type AttachedVolume struct {
	// Name of the volume.
	Name string `json:"name"`
	// DevicePath of the attached device.
	DevicePath string `json:"devicePath"`
}

// NodeCondition is one condition of a node.
type NodeCondition struct {
	// Type of the condition.
	Type NodeConditionType `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastHeartbeatTime is when the kubelet last reported the condition.
	LastHeartbeatTime Time `json:"lastHeartbeatTime,omitzero"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message explains the condition.
	Message string `json:"message,omitempty"`
}

// NodeAddress is one address of a node.
type NodeAddress struct {
	// Type of the address.
	Type NodeAddressType `json:"type"`
	// Address itself.
	Address string `json:"address"`
}

// NodeDaemonEndpoints are the ports of a node's daemons.
type NodeDaemonEndpoints struct {
	// KubeletEndpoint is the kubelet's port.
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitzero"`
}

// DaemonEndpoint is one daemon port.
type DaemonEndpoint struct {
	// Port number.
	Port int32 `json:"Port"`
}

// NodeSystemInfo describes a node's machine and software.
type NodeSystemInfo struct {
	// MachineID of the machine.
	MachineID string `json:"machineID"`
	// SystemUUID of the machine.
	SystemUUID string `json:"systemUUID"`
	// BootID changes on every boot.
	BootID string `json:"bootID"`
	// KernelVersion from uname -r.
	KernelVersion string `json:"kernelVersion"`
	// OSImage from /etc/os-release.
	OSImage string `json:"osImage"`
	// ContainerRuntimeVersion is "<runtime>://<version>".
	ContainerRuntimeVersion string `json:"containerRuntimeVersion"`
	// KubeletVersion of the node's kubelet.
	KubeletVersion string `json:"kubeletVersion"`
	// KubeProxyVersion is deprecated.
	KubeProxyVersion string `json:"kubeProxyVersion"`
	// OperatingSystem is GOOS of the node.
	OperatingSystem string `json:"operatingSystem"`
	// Architecture is GOARCH of the node.
	Architecture string `json:"architecture"`
}

// GetCondition returns the node's condition of type t, if present.
func (s *NodeStatus) GetCondition(t NodeConditionType) (*NodeCondition, bool) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i], true
		}
	}
	return nil, false
}
