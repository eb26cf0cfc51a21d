package api

// Pod is a group of containers scheduled together onto one node (core/v1).
type Pod struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired pod.
	Spec PodSpec `json:"spec,omitzero"`
	// Status is the observed pod, written by the kubelet and the scheduler.
	Status PodStatus `json:"status,omitzero"`
}

// PodTemplateSpec is the template workloads stamp pods from.
type PodTemplateSpec struct {
	// ObjectMeta is the metadata of created pods (labels, annotations).
	ObjectMeta `json:"metadata,omitzero"`
	// Spec is the spec of created pods.
	Spec PodSpec `json:"spec,omitzero"`
}

// RestartPolicy says when the kubelet restarts a pod's containers.
type RestartPolicy string

// The restart policies.
const (
	RestartPolicyAlways    RestartPolicy = "Always"
	RestartPolicyOnFailure RestartPolicy = "OnFailure"
	RestartPolicyNever     RestartPolicy = "Never"
)

// DNSPolicy says how a pod's DNS is configured.
type DNSPolicy string

// PreemptionPolicy says whether a pod may preempt lower-priority pods.
type PreemptionPolicy string

// PodSpec is the desired state of a pod.
type PodSpec struct {
	// Volumes can be mounted by the pod's containers.
	Volumes []Volume `json:"volumes,omitempty"`
	// InitContainers run to completion, in order, before Containers start.
	InitContainers []Container `json:"initContainers,omitempty"`
	// Containers run for the pod's lifetime. At least one is required.
	Containers []Container `json:"containers"`
	// EphemeralContainers are added to a running pod for debugging (the
	// pods/ephemeralcontainers subresource, `kubectl debug`); they are
	// never restarted and cannot be removed or changed.
	EphemeralContainers []EphemeralContainer `json:"ephemeralContainers,omitempty"`
	// RestartPolicy defaults to Always.
	RestartPolicy RestartPolicy `json:"restartPolicy,omitempty"`
	// TerminationGracePeriodSeconds defaults to 30.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
	// ActiveDeadlineSeconds bounds the pod's run time.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty"`
	// DNSPolicy defaults to ClusterFirst.
	DNSPolicy DNSPolicy `json:"dnsPolicy,omitempty"`
	// NodeSelector must be a subset of the chosen node's labels.
	NodeSelector map[string]string `json:"nodeSelector,omitempty"`
	// ServiceAccountName is the service account the pod runs as.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// DeprecatedServiceAccount is the old name of ServiceAccountName.
	DeprecatedServiceAccount string `json:"serviceAccount,omitempty"`
	// AutomountServiceAccountToken says whether the token is mounted.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`
	// NodeName is the node the pod is bound to; set by the scheduler.
	NodeName string `json:"nodeName,omitempty"`
	// HostNetwork runs the pod in the node's network namespace.
	HostNetwork bool `json:"hostNetwork,omitempty"`
	// HostPID shares the node's PID namespace.
	HostPID bool `json:"hostPID,omitempty"`
	// HostIPC shares the node's IPC namespace.
	HostIPC bool `json:"hostIPC,omitempty"`
	// ShareProcessNamespace shares one PID namespace among the containers.
	ShareProcessNamespace *bool `json:"shareProcessNamespace,omitempty"`
	// SecurityContext holds pod-level security attributes.
	SecurityContext *PodSecurityContext `json:"securityContext,omitempty"`
	// ImagePullSecrets name secrets for pulling images.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// Hostname defaults to the pod's name.
	Hostname string `json:"hostname,omitempty"`
	// Subdomain makes the pod "hostname.subdomain.namespace.svc…".
	Subdomain string `json:"subdomain,omitempty"`
	// Affinity holds scheduling constraints.
	Affinity *Affinity `json:"affinity,omitempty"`
	// SchedulerName defaults to "default-scheduler".
	SchedulerName string `json:"schedulerName,omitempty"`
	// Tolerations let the pod run on nodes with matching taints.
	Tolerations []Toleration `json:"tolerations,omitempty"`
	// HostAliases are added to the pod's /etc/hosts.
	HostAliases []HostAlias `json:"hostAliases,omitempty"`
	// PriorityClassName names the pod's PriorityClass.
	PriorityClassName string `json:"priorityClassName,omitempty"`
	// Priority is resolved from PriorityClassName by admission.
	Priority *int32 `json:"priority,omitempty"`
	// ReadinessGates add conditions that must be True for readiness.
	ReadinessGates []PodReadinessGate `json:"readinessGates,omitempty"`
	// RuntimeClassName names the RuntimeClass to run the pod with.
	RuntimeClassName *string `json:"runtimeClassName,omitempty"`
	// EnableServiceLinks injects service environment variables (default true).
	EnableServiceLinks *bool `json:"enableServiceLinks,omitempty"`
	// PreemptionPolicy defaults to PreemptLowerPriority.
	PreemptionPolicy *PreemptionPolicy `json:"preemptionPolicy,omitempty"`
	// Overhead is the resource overhead of the pod's runtime class.
	Overhead ResourceList `json:"overhead,omitempty"`
	// TopologySpreadConstraints spread matching pods across topology domains.
	TopologySpreadConstraints []TopologySpreadConstraint `json:"topologySpreadConstraints,omitempty"`
	// DNSConfig adds to the DNS configuration DNSPolicy produces.
	DNSConfig *PodDNSConfig `json:"dnsConfig,omitempty"`
	// SetHostnameAsFQDN sets the hostname to the pod's FQDN.
	SetHostnameAsFQDN *bool `json:"setHostnameAsFQDN,omitempty"`
	// OS is the operating system the pod needs.
	OS *PodOS `json:"os,omitempty"`
	// SchedulingGates hold the pod back from scheduling while any remains.
	SchedulingGates []PodSchedulingGate `json:"schedulingGates,omitempty"`
}

// EphemeralContainer is a container added to a running pod for
// debugging: a Container without ports, probes, lifecycle or resources
// (validation refuses them), possibly in the process namespace of
// TargetContainerName.
type EphemeralContainer struct {
	Container `json:",inline"`
	// TargetContainerName names the container whose namespaces (PID,
	// IPC) the ephemeral container shares.
	TargetContainerName string `json:"targetContainerName,omitempty"`
}

// PodDNSConfig is extra DNS configuration of a pod.
type PodDNSConfig struct {
	// Nameservers to add.
	Nameservers []string `json:"nameservers,omitempty"`
	// Searches are search domains to add.
	Searches []string `json:"searches,omitempty"`
	// Options are resolver options.
	Options []PodDNSConfigOption `json:"options,omitempty"`
}

// PodDNSConfigOption is one resolver option.
type PodDNSConfigOption struct {
	// Name of the option.
	Name string `json:"name,omitempty"`
	// Value of the option.
	Value *string `json:"value,omitempty"`
}

// PodOS names the operating system of a pod.
type PodOS struct {
	// Name is "linux" or "windows".
	Name string `json:"name"`
}

// PodSchedulingGate names one scheduling gate.
type PodSchedulingGate struct {
	// Name of the gate.
	Name string `json:"name"`
}

// HostAlias is one /etc/hosts entry.
type HostAlias struct {
	// IP of the entry.
	IP string `json:"ip"`
	// Hostnames for the IP.
	Hostnames []string `json:"hostnames,omitempty"`
}

// PodReadinessGate names an extra pod condition that readiness requires.
type PodReadinessGate struct {
	// ConditionType is the condition's type.
	ConditionType PodConditionType `json:"conditionType"`
}

// GetCondition returns the pod's condition of type t, if present.
func (s *PodStatus) GetCondition(t PodConditionType) (*PodCondition, bool) {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i], true
		}
	}
	return nil, false
}

// IsPodReady reports whether the pod's Ready condition is True.
func IsPodReady(p *Pod) bool {
	c, ok := p.Status.GetCondition(PodReady)
	return ok && c.Status == ConditionTrue
}
