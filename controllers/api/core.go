package api

// Namespace is a scope for names (core/v1, cluster-scoped).
type Namespace struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired namespace.
	Spec NamespaceSpec `json:"spec,omitzero"`
	// Status is the observed namespace.
	Status NamespaceStatus `json:"status,omitzero"`
}

// FinalizerName names a namespace finalizer, e.g. "kubernetes".
type FinalizerName string

// NamespaceSpec is the desired state of a namespace.
type NamespaceSpec struct {
	// Finalizers must be removed before the namespace is deleted.
	Finalizers []FinalizerName `json:"finalizers,omitempty"`
}

// NamespacePhase is Active or Terminating.
type NamespacePhase string

// The namespace phases.
const (
	NamespaceActive      NamespacePhase = "Active"
	NamespaceTerminating NamespacePhase = "Terminating"
)

// NamespaceStatus is the observed state of a namespace.
type NamespaceStatus struct {
	// Phase of the namespace.
	Phase NamespacePhase `json:"phase,omitempty"`
	// Conditions of the namespace.
	Conditions []NamespaceCondition `json:"conditions,omitempty"`
}

// NamespaceCondition is one condition of a namespace.
type NamespaceCondition struct {
	// Type of the condition.
	Type string `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason.
	Reason string `json:"reason,omitempty"`
	// Message explains the condition.
	Message string `json:"message,omitempty"`
}

// ResourceQuota caps the aggregate resources of a namespace (core/v1).
type ResourceQuota struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired quota.
	Spec ResourceQuotaSpec `json:"spec,omitzero"`
	// Status is the observed usage.
	Status ResourceQuotaStatus `json:"status,omitzero"`
}

// ResourceQuotaScope restricts which objects a quota counts.
type ResourceQuotaScope string

// The quota scopes.
const (
	ResourceQuotaScopeTerminating    ResourceQuotaScope = "Terminating"
	ResourceQuotaScopeNotTerminating ResourceQuotaScope = "NotTerminating"
	ResourceQuotaScopeBestEffort     ResourceQuotaScope = "BestEffort"
	ResourceQuotaScopeNotBestEffort  ResourceQuotaScope = "NotBestEffort"
	ResourceQuotaScopePriorityClass  ResourceQuotaScope = "PriorityClass"
)

// ResourceQuotaSpec is the desired state of a quota.
type ResourceQuotaSpec struct {
	// Hard limits per resource name.
	Hard ResourceList `json:"hard,omitempty"`
	// Scopes must all match an object for it to count.
	Scopes []ResourceQuotaScope `json:"scopes,omitempty"`
	// ScopeSelector is the expression form of Scopes.
	ScopeSelector *ScopeSelector `json:"scopeSelector,omitempty"`
}

// ScopeSelector is a conjunction of scope requirements.
type ScopeSelector struct {
	// MatchExpressions are ANDed.
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty"`
}

// ScopeSelectorOperator is In, NotIn, Exists or DoesNotExist.
type ScopeSelectorOperator string

// ScopedResourceSelectorRequirement is one scope requirement, e.g.
// PriorityClass In (medium).
type ScopedResourceSelectorRequirement struct {
	// ScopeName is the scope.
	ScopeName ResourceQuotaScope `json:"scopeName"`
	// Operator relates the scope to Values.
	Operator ScopeSelectorOperator `json:"operator"`
	// Values for In and NotIn.
	Values []string `json:"values,omitempty"`
}

// ResourceQuotaStatus is the observed state of a quota.
type ResourceQuotaStatus struct {
	// Hard is the enforced limits.
	Hard ResourceList `json:"hard,omitempty"`
	// Used is the current usage.
	Used ResourceList `json:"used,omitempty"`
}

// ServiceAccount is an identity for processes in pods (core/v1).
type ServiceAccount struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Secrets the pods of this account may use.
	Secrets []ObjectReference `json:"secrets,omitempty"`
	// ImagePullSecrets are added to the pods of this account.
	ImagePullSecrets []LocalObjectReference `json:"imagePullSecrets,omitempty"`
	// AutomountServiceAccountToken says whether tokens are mounted.
	AutomountServiceAccountToken *bool `json:"automountServiceAccountToken,omitempty"`
}

// ConfigMap holds configuration as key/value pairs (core/v1).
type ConfigMap struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Immutable forbids changes to the data.
	Immutable *bool `json:"immutable,omitempty"`
	// Data holds UTF-8 values.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData holds binary values (base64 in JSON).
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
}

// SecretType is the type of a secret's data, e.g. "Opaque".
type SecretType string

// Secret holds sensitive key/value pairs (core/v1).
type Secret struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Immutable forbids changes to the data.
	Immutable *bool `json:"immutable,omitempty"`
	// Data holds the values (base64 in JSON).
	Data map[string][]byte `json:"data,omitempty"`
	// StringData is write-only plain text merged into Data by the API server.
	StringData map[string]string `json:"stringData,omitempty"`
	// Type of the secret.
	Type SecretType `json:"type,omitempty"`
}

// Event reports something that happened to an object (core/v1).
type Event struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// InvolvedObject is the object the event is about.
	InvolvedObject ObjectReference `json:"involvedObject"`
	// Reason is a CamelCase reason, e.g. "Scheduled".
	Reason string `json:"reason,omitempty"`
	// Message explains the event.
	Message string `json:"message,omitempty"`
	// Source is the component that reported the event.
	Source EventSource `json:"source,omitzero"`
	// FirstTimestamp is when the event first happened.
	FirstTimestamp Time `json:"firstTimestamp,omitzero"`
	// LastTimestamp is when it last happened.
	LastTimestamp Time `json:"lastTimestamp,omitzero"`
	// Count of occurrences.
	Count int32 `json:"count,omitempty"`
	// Type is Normal or Warning.
	Type string `json:"type,omitempty"`
	// EventTime is when the event first happened, in microseconds.
	EventTime MicroTime `json:"eventTime,omitzero"`
	// Series aggregates repeated events.
	Series *EventSeries `json:"series,omitempty"`
	// Action taken or failed, e.g. "Binding".
	Action string `json:"action,omitempty"`
	// Related is a second object involved.
	Related *ObjectReference `json:"related,omitempty"`
	// ReportingController is the controller that emitted the event.
	ReportingController string `json:"reportingComponent"`
	// ReportingInstance is the instance of that controller.
	ReportingInstance string `json:"reportingInstance"`
}

// EventSource is the component that reported an event.
type EventSource struct {
	// Component name, e.g. "default-scheduler".
	Component string `json:"component,omitempty"`
	// Host the component runs on.
	Host string `json:"host,omitempty"`
}

// EventSeries aggregates repeated events.
type EventSeries struct {
	// Count of occurrences in the series.
	Count int32 `json:"count,omitempty"`
	// LastObservedTime of the series.
	LastObservedTime MicroTime `json:"lastObservedTime,omitzero"`
}

// Lease is a lock with a holder and a duration, used for leader election
// and node heartbeats (coordination.k8s.io/v1).
type Lease struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the lease.
	Spec LeaseSpec `json:"spec,omitzero"`
}

// LeaseSpec is the state of a lease.
type LeaseSpec struct {
	// HolderIdentity is the current holder.
	HolderIdentity *string `json:"holderIdentity,omitempty"`
	// LeaseDurationSeconds a candidate waits after RenewTime before taking over.
	LeaseDurationSeconds *int32 `json:"leaseDurationSeconds,omitempty"`
	// AcquireTime is when the current holder acquired the lease.
	AcquireTime *MicroTime `json:"acquireTime,omitempty"`
	// RenewTime is when the holder last renewed it.
	RenewTime *MicroTime `json:"renewTime,omitempty"`
	// LeaseTransitions counts changes of holder.
	LeaseTransitions *int32 `json:"leaseTransitions,omitempty"`
}
