package api

// AddressType is the kind of the addresses of an EndpointSlice: IPv4,
// IPv6 or FQDN.
type AddressType string

// The address types.
const (
	// AddressTypeIPv4 is IPv4 addresses.
	AddressTypeIPv4 AddressType = "IPv4"
	// AddressTypeIPv6 is IPv6 addresses.
	AddressTypeIPv6 AddressType = "IPv6"
	// AddressTypeFQDN is fully qualified domain names.
	AddressTypeFQDN AddressType = "FQDN"
)

// LabelServiceName is the label of an EndpointSlice naming its service.
const LabelServiceName = "kubernetes.io/service-name"

// EndpointSlice is a subset of the endpoints of a service
// (discovery.k8s.io/v1, namespaced). It has no spec.
type EndpointSlice struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// AddressType is IPv4, IPv6 or FQDN; immutable.
	AddressType AddressType `json:"addressType"`
	// Endpoints are the slice's endpoints (at most 1000).
	Endpoints []Endpoint `json:"endpoints"`
	// Ports are the ports of every endpoint (at most 100).
	Ports []EndpointSlicePort `json:"ports"`
}

// Endpoint is one endpoint of a slice.
type Endpoint struct {
	// Addresses of the endpoint (at least one, at most 100), of the
	// slice's address type.
	Addresses []string `json:"addresses"`
	// Conditions are its ready, serving and terminating states.
	Conditions EndpointConditions `json:"conditions,omitzero"`
	// Hostname of the endpoint.
	Hostname *string `json:"hostname,omitempty"`
	// TargetRef is the object (usually a pod) behind the endpoint.
	TargetRef *ObjectReference `json:"targetRef,omitempty"`
	// DeprecatedTopology is the v1beta1 topology, kept for round trips.
	DeprecatedTopology map[string]string `json:"deprecatedTopology,omitempty"`
	// NodeName is the node hosting the endpoint.
	NodeName *string `json:"nodeName,omitempty"`
	// Zone is the zone of the endpoint.
	Zone *string `json:"zone,omitempty"`
	// Hints are topology-aware routing hints.
	Hints *EndpointHints `json:"hints,omitempty"`
}

// EndpointConditions are the states of an endpoint; nil is unknown.
type EndpointConditions struct {
	// Ready says the endpoint is ready for traffic.
	Ready *bool `json:"ready,omitempty"`
	// Serving is Ready ignoring termination.
	Serving *bool `json:"serving,omitempty"`
	// Terminating says the endpoint is terminating.
	Terminating *bool `json:"terminating,omitempty"`
}

// EndpointHints are topology-aware routing hints.
type EndpointHints struct {
	// ForZones are the zones that should consume the endpoint.
	ForZones []ForZone `json:"forZones,omitempty"`
	// ForNodes are the nodes that should consume the endpoint.
	ForNodes []ForNode `json:"forNodes,omitempty"`
}

// ForZone names a zone.
type ForZone struct {
	// Name of the zone.
	Name string `json:"name"`
}

// ForNode names a node.
type ForNode struct {
	// Name of the node.
	Name string `json:"name"`
}

// EndpointSlicePort is one port of a slice's endpoints.
type EndpointSlicePort struct {
	// Name of the port, matching the service port's ("" for one port).
	Name *string `json:"name,omitempty"`
	// Protocol is TCP (the default), UDP or SCTP.
	Protocol *Protocol `json:"protocol,omitempty"`
	// Port number; nil means every port.
	Port *int32 `json:"port,omitempty"`
	// AppProtocol is the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty"`
}
