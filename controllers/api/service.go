package api

// Service exposes a set of pods under one virtual IP and DNS name (core/v1).
type Service struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired service.
	Spec ServiceSpec `json:"spec,omitzero"`
	// Status is the observed service.
	Status ServiceStatus `json:"status,omitzero"`
}

// ServiceType is ClusterIP (default), NodePort, LoadBalancer or ExternalName.
type ServiceType string

// The service types.
const (
	ServiceTypeClusterIP    ServiceType = "ClusterIP"
	ServiceTypeNodePort     ServiceType = "NodePort"
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ClusterIPNone is the clusterIP of a headless service.
const ClusterIPNone = "None"

// ServiceSpec is the desired state of a service.
type ServiceSpec struct {
	// Ports the service exposes.
	Ports []ServicePort `json:"ports,omitempty"`
	// Selector selects the pods behind the service (an equality selector).
	Selector map[string]string `json:"selector,omitempty"`
	// ClusterIP is the virtual IP, "None" for a headless service.
	ClusterIP string `json:"clusterIP,omitempty"`
	// ClusterIPs are the virtual IPs, the first equal to ClusterIP.
	ClusterIPs []string `json:"clusterIPs,omitempty"`
	// Type of the service.
	Type ServiceType `json:"type,omitempty"`
	// ExternalIPs also route to the service.
	ExternalIPs []string `json:"externalIPs,omitempty"`
	// SessionAffinity is None or ClientIP.
	SessionAffinity string `json:"sessionAffinity,omitempty"`
	// LoadBalancerIP requests an IP from the load balancer.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty"`
	// LoadBalancerSourceRanges restrict client CIDRs.
	LoadBalancerSourceRanges []string `json:"loadBalancerSourceRanges,omitempty"`
	// ExternalName is the CNAME target of an ExternalName service.
	ExternalName string `json:"externalName,omitempty"`
	// ExternalTrafficPolicy is Cluster or Local.
	ExternalTrafficPolicy string `json:"externalTrafficPolicy,omitempty"`
	// HealthCheckNodePort serves health checks for Local traffic policy.
	HealthCheckNodePort int32 `json:"healthCheckNodePort,omitempty"`
	// PublishNotReadyAddresses includes unready pods in DNS and endpoints.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty"`
	// IPFamilies are IPv4 and/or IPv6.
	IPFamilies []string `json:"ipFamilies,omitempty"`
	// IPFamilyPolicy is SingleStack, PreferDualStack or RequireDualStack.
	IPFamilyPolicy *string `json:"ipFamilyPolicy,omitempty"`
	// InternalTrafficPolicy is Cluster or Local.
	InternalTrafficPolicy *string `json:"internalTrafficPolicy,omitempty"`
	// AllocateLoadBalancerNodePorts defaults to true.
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty"`
	// LoadBalancerClass selects a load balancer implementation.
	LoadBalancerClass *string `json:"loadBalancerClass,omitempty"`
	// SessionAffinityConfig tunes ClientIP session affinity.
	SessionAffinityConfig *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty"`
	// TrafficDistribution is a routing preference, e.g. PreferClose.
	TrafficDistribution *string `json:"trafficDistribution,omitempty"`
}

// SessionAffinityConfig tunes session affinity.
type SessionAffinityConfig struct {
	// ClientIP tunes ClientIP affinity.
	ClientIP *ClientIPConfig `json:"clientIP,omitempty"`
}

// ClientIPConfig tunes ClientIP session affinity.
type ClientIPConfig struct {
	// TimeoutSeconds of a sticky session; defaults to 10800.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
}

// ServicePort is one port of a service.
type ServicePort struct {
	// Name is required when there are several ports.
	Name string `json:"name,omitempty"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
	// AppProtocol is the application protocol, e.g. "http".
	AppProtocol *string `json:"appProtocol,omitempty"`
	// Port the service listens on.
	Port int32 `json:"port"`
	// TargetPort on the pods: a number or a container port name; defaults to Port.
	TargetPort IntOrString `json:"targetPort,omitzero"`
	// NodePort on every node, for NodePort and LoadBalancer services.
	NodePort int32 `json:"nodePort,omitempty"`
}

// ServiceStatus is the observed state of a service.
type ServiceStatus struct {
	// LoadBalancer is the provisioned load balancer.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitzero"`
	// Conditions of the service.
	Conditions []Condition `json:"conditions,omitempty"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	// Ingress points.
	Ingress []LoadBalancerIngress `json:"ingress,omitempty"`
}

// LoadBalancerIngress is one ingress point of a load balancer.
type LoadBalancerIngress struct {
	// IP of the ingress point.
	IP string `json:"ip,omitempty"`
	// Hostname of the ingress point.
	Hostname string `json:"hostname,omitempty"`
	// IPMode is VIP or Proxy.
	IPMode *string `json:"ipMode,omitempty"`
}

// Endpoints lists the addresses behind a service, as subsets sharing ports (core/v1).
type Endpoints struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Subsets group addresses with the ports they serve.
	Subsets []EndpointSubset `json:"subsets,omitempty"`
}

// EndpointSubset is a set of addresses serving the same ports.
type EndpointSubset struct {
	// Addresses that are ready.
	Addresses []EndpointAddress `json:"addresses,omitempty"`
	// NotReadyAddresses are not ready yet.
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty"`
	// Ports served by every address.
	Ports []EndpointPort `json:"ports,omitempty"`
}

// EndpointAddress is one backend, usually a pod.
type EndpointAddress struct {
	// IP of the backend.
	IP string `json:"ip"`
	// Hostname of the backend.
	Hostname string `json:"hostname,omitempty"`
	// NodeName of the backend's node.
	NodeName *string `json:"nodeName,omitempty"`
	// TargetRef is the backend object.
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
}

// EndpointPort is one port of an endpoint subset.
type EndpointPort struct {
	// Name matches the service port's name.
	Name string `json:"name,omitempty"`
	// Port number.
	Port int32 `json:"port"`
	// Protocol defaults to TCP.
	Protocol Protocol `json:"protocol,omitempty"`
	// AppProtocol is the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty"`
}
