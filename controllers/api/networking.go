package api

// Ingress routes external HTTP(S) traffic to services by host and path
// (networking.k8s.io/v1, namespaced).
type Ingress struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the routing wanted.
	Spec IngressSpec `json:"spec,omitzero"`
	// Status is the load balancer's address.
	Status IngressStatus `json:"status,omitzero"`
}

// IngressSpec is the rules of an ingress.
type IngressSpec struct {
	// IngressClassName names the IngressClass of the controller that
	// implements the ingress.
	IngressClassName *string `json:"ingressClassName,omitempty"`
	// DefaultBackend serves the requests no rule matches.
	DefaultBackend *IngressBackend `json:"defaultBackend,omitempty"`
	// TLS is the hosts served over TLS and their certificates.
	TLS []IngressTLS `json:"tls,omitempty"`
	// Rules route requests by host and path.
	Rules []IngressRule `json:"rules,omitempty"`
}

// IngressTLS is the TLS of some hosts.
type IngressTLS struct {
	// Hosts covered by the certificate.
	Hosts []string `json:"hosts,omitempty"`
	// SecretName names the secret holding the certificate.
	SecretName string `json:"secretName,omitempty"`
}

// IngressStatus is the observed state of an ingress.
type IngressStatus struct {
	// LoadBalancer is where the ingress is reachable.
	LoadBalancer IngressLoadBalancerStatus `json:"loadBalancer,omitzero"`
}

// IngressLoadBalancerStatus lists the load balancer's ingress points.
type IngressLoadBalancerStatus struct {
	// Ingress points.
	Ingress []IngressLoadBalancerIngress `json:"ingress,omitempty"`
}

// IngressLoadBalancerIngress is one ingress point of an ingress.
type IngressLoadBalancerIngress struct {
	// IP of the ingress point.
	IP string `json:"ip,omitempty"`
	// Hostname of the ingress point.
	Hostname string `json:"hostname,omitempty"`
	// Ports of the ingress point.
	Ports []IngressPortStatus `json:"ports,omitempty"`
}

// IngressPortStatus is the status of one port of an ingress point.
type IngressPortStatus struct {
	// Port number.
	Port int32 `json:"port"`
	// Protocol is TCP, UDP or SCTP.
	Protocol Protocol `json:"protocol"`
	// Error is a CamelCase reason the port has a problem.
	Error *string `json:"error,omitempty"`
}

// IngressRule routes the requests of one host ("" for every host).
type IngressRule struct {
	// Host is a fully qualified domain name, possibly with a leading
	// "*." wildcard label.
	Host string `json:"host,omitempty"`
	// IngressRuleValue is how the host's requests are routed.
	IngressRuleValue `json:",inline,omitempty"`
}

// IngressRuleValue is the routing of a rule; only HTTP exists.
type IngressRuleValue struct {
	// HTTP routes by path.
	HTTP *HTTPIngressRuleValue `json:"http,omitempty"`
}

// HTTPIngressRuleValue is a list of paths.
type HTTPIngressRuleValue struct {
	// Paths map request paths to backends.
	Paths []HTTPIngressPath `json:"paths"`
}

// PathType says how an ingress path matches: Exact, Prefix or
// ImplementationSpecific.
type PathType string

// The path types.
const (
	// PathTypeExact matches the URL path exactly.
	PathTypeExact PathType = "Exact"
	// PathTypePrefix matches by "/"-separated path elements.
	PathTypePrefix PathType = "Prefix"
	// PathTypeImplementationSpecific leaves matching to the controller.
	PathTypeImplementationSpecific PathType = "ImplementationSpecific"
)

// HTTPIngressPath maps a path to a backend.
type HTTPIngressPath struct {
	// Path is matched against the request's path; it starts with "/".
	Path string `json:"path,omitempty"`
	// PathType is Exact, Prefix or ImplementationSpecific (required).
	PathType *PathType `json:"pathType"`
	// Backend receives the matched requests.
	Backend IngressBackend `json:"backend"`
}

// IngressBackend is a service port or a resource; exactly one is set.
type IngressBackend struct {
	// Service is a service and port.
	Service *IngressServiceBackend `json:"service,omitempty"`
	// Resource is an object of another kind in the ingress's namespace.
	Resource *TypedLocalObjectReference `json:"resource,omitempty"`
}

// IngressServiceBackend is a service and one of its ports.
type IngressServiceBackend struct {
	// Name of the service.
	Name string `json:"name"`
	// Port of the service.
	Port ServiceBackendPort `json:"port,omitzero"`
}

// ServiceBackendPort names a service port by name or number (one of them).
type ServiceBackendPort struct {
	// Name of the port.
	Name string `json:"name,omitempty"`
	// Number of the port.
	Number int32 `json:"number,omitempty"`
}

// IngressClass names the controller that implements the ingresses of
// the class (networking.k8s.io/v1, cluster-scoped).
type IngressClass struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the class.
	Spec IngressClassSpec `json:"spec,omitzero"`
}

// AnnotationIsDefaultIngressClass marks the default IngressClass.
const AnnotationIsDefaultIngressClass = "ingressclass.kubernetes.io/is-default-class"

// IngressClassSpec is an ingress class's controller and parameters.
type IngressClassSpec struct {
	// Controller is the name of the controller ("example.com/ingress"),
	// a domain-prefixed path; immutable.
	Controller string `json:"controller,omitempty"`
	// Parameters refers to the controller's configuration.
	Parameters *IngressClassParametersReference `json:"parameters,omitempty"`
}

// The scopes of an IngressClass's parameters.
const (
	// IngressClassParametersReferenceScopeNamespace: a namespaced object.
	IngressClassParametersReferenceScopeNamespace = "Namespace"
	// IngressClassParametersReferenceScopeCluster: a cluster-scoped one.
	IngressClassParametersReferenceScopeCluster = "Cluster"
)

// IngressClassParametersReference refers to an object holding an
// ingress class's parameters.
type IngressClassParametersReference struct {
	// APIGroup of the object; nil for the core group.
	APIGroup *string `json:"apiGroup,omitempty"`
	// Kind of the object.
	Kind string `json:"kind"`
	// Name of the object.
	Name string `json:"name"`
	// Scope is Cluster (the default) or Namespace.
	Scope *string `json:"scope,omitempty"`
	// Namespace of the object, set exactly when Scope is Namespace.
	Namespace *string `json:"namespace,omitempty"`
}

// PolicyType is Ingress or Egress: the direction a network policy
// governs.
type PolicyType string

// The policy types.
const (
	// PolicyTypeIngress governs traffic into the selected pods.
	PolicyTypeIngress PolicyType = "Ingress"
	// PolicyTypeEgress governs traffic out of them.
	PolicyTypeEgress PolicyType = "Egress"
)

// NetworkPolicy says which traffic the selected pods may receive and
// send (networking.k8s.io/v1, namespaced).
type NetworkPolicy struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the policy.
	Spec NetworkPolicySpec `json:"spec,omitzero"`
}

// NetworkPolicySpec is the policy's pods and rules.
type NetworkPolicySpec struct {
	// PodSelector selects the pods the policy applies to; empty
	// selects every pod of the namespace.
	PodSelector LabelSelector `json:"podSelector"`
	// Ingress are the allowed incoming traffic.
	Ingress []NetworkPolicyIngressRule `json:"ingress,omitempty"`
	// Egress are the allowed outgoing traffic.
	Egress []NetworkPolicyEgressRule `json:"egress,omitempty"`
	// PolicyTypes are the directions governed; defaulted from Ingress
	// and Egress when unset.
	PolicyTypes []PolicyType `json:"policyTypes,omitempty"`
}

// NetworkPolicyIngressRule allows traffic from some peers to some ports.
type NetworkPolicyIngressRule struct {
	// Ports allowed; empty allows every port.
	Ports []NetworkPolicyPort `json:"ports,omitempty"`
	// From are the allowed sources; empty allows every source.
	From []NetworkPolicyPeer `json:"from,omitempty"`
}

// NetworkPolicyEgressRule allows traffic to some peers on some ports.
type NetworkPolicyEgressRule struct {
	// Ports allowed; empty allows every port.
	Ports []NetworkPolicyPort `json:"ports,omitempty"`
	// To are the allowed destinations; empty allows every destination.
	To []NetworkPolicyPeer `json:"to,omitempty"`
}

// NetworkPolicyPort is a port, or a range of ports, and a protocol.
type NetworkPolicyPort struct {
	// Protocol is TCP (the default), UDP or SCTP.
	Protocol *Protocol `json:"protocol,omitempty"`
	// Port is a number or a named port.
	Port *IntOrString `json:"port,omitempty"`
	// EndPort ends a range of numeric ports starting at Port.
	EndPort *int32 `json:"endPort,omitempty"`
}

// IPBlock is a CIDR, less some excepted CIDRs.
type IPBlock struct {
	// CIDR is the block ("10.0.0.0/8").
	CIDR string `json:"cidr"`
	// Except are CIDRs inside CIDR left out.
	Except []string `json:"except,omitempty"`
}

// NetworkPolicyPeer is a set of pods, namespaces or an IP block.
type NetworkPolicyPeer struct {
	// PodSelector selects pods (in the policy's namespace, or in those
	// NamespaceSelector selects).
	PodSelector *LabelSelector `json:"podSelector,omitempty"`
	// NamespaceSelector selects namespaces.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	// IPBlock is a range of addresses; exclusive with the selectors.
	IPBlock *IPBlock `json:"ipBlock,omitempty"`
}
