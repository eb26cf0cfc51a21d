package api

// Lifecycle holds a container's lifecycle hooks.
type Lifecycle struct {
	// PostStart runs right after the container starts.
	PostStart *LifecycleHandler `json:"postStart,omitempty"`
	// PreStop runs before the container is stopped.
	PreStop *LifecycleHandler `json:"preStop,omitempty"`
}

// LifecycleHandler is the action of a hook; exactly one member is set.
type LifecycleHandler struct {
	// Exec runs a command in the container.
	Exec *ExecAction `json:"exec,omitempty"`
	// HTTPGet requests a URL.
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`
	// TCPSocket is deprecated and ignored by the kubelet.
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	// Sleep pauses.
	Sleep *SleepAction `json:"sleep,omitempty"`
}

// SleepAction pauses for a number of seconds.
type SleepAction struct {
	// Seconds to sleep.
	Seconds int64 `json:"seconds"`
}

// Probe is a health check of a container.
type Probe struct {
	// ProbeHandler is the check itself.
	ProbeHandler `json:",inline"`
	// InitialDelaySeconds waits after the container starts.
	InitialDelaySeconds int32 `json:"initialDelaySeconds,omitempty"`
	// TimeoutSeconds bounds one check; defaults to 1.
	TimeoutSeconds int32 `json:"timeoutSeconds,omitempty"`
	// PeriodSeconds is the check interval; defaults to 10.
	PeriodSeconds int32 `json:"periodSeconds,omitempty"`
	// SuccessThreshold is the consecutive successes to pass; defaults to 1.
	SuccessThreshold int32 `json:"successThreshold,omitempty"`
	// FailureThreshold is the consecutive failures to fail; defaults to 3.
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
	// TerminationGracePeriodSeconds overrides the pod's on liveness failure.
	TerminationGracePeriodSeconds *int64 `json:"terminationGracePeriodSeconds,omitempty"`
}

// ProbeHandler is the action of a probe; exactly one member is set.
type ProbeHandler struct {
	// Exec runs a command in the container.
	Exec *ExecAction `json:"exec,omitempty"`
	// HTTPGet requests a URL.
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`
	// TCPSocket opens a connection.
	TCPSocket *TCPSocketAction `json:"tcpSocket,omitempty"`
	// GRPC calls the gRPC health service.
	GRPC *GRPCAction `json:"grpc,omitempty"`
}

// ExecAction runs a command; exit status 0 is healthy.
type ExecAction struct {
	// Command and its arguments, not run in a shell.
	Command []string `json:"command,omitempty"`
}

// HTTPGetAction requests a URL; a 2xx or 3xx status is healthy.
type HTTPGetAction struct {
	// Path of the URL.
	Path string `json:"path,omitempty"`
	// Port is a number or a container port name.
	Port IntOrString `json:"port"`
	// Host defaults to the pod IP.
	Host string `json:"host,omitempty"`
	// Scheme is HTTP (default) or HTTPS.
	Scheme string `json:"scheme,omitempty"`
	// HTTPHeaders are added to the request.
	HTTPHeaders []HTTPHeader `json:"httpHeaders,omitempty"`
}

// HTTPHeader is one request header.
type HTTPHeader struct {
	// Name of the header.
	Name string `json:"name"`
	// Value of the header.
	Value string `json:"value"`
}

// TCPSocketAction opens a TCP connection; success is healthy.
type TCPSocketAction struct {
	// Port is a number or a container port name.
	Port IntOrString `json:"port"`
	// Host defaults to the pod IP.
	Host string `json:"host,omitempty"`
}

// GRPCAction calls grpc.health.v1.Health/Check.
type GRPCAction struct {
	// Port number of the gRPC service.
	Port int32 `json:"port"`
	// Service is the name passed in the health request.
	Service *string `json:"service,omitempty"`
}
