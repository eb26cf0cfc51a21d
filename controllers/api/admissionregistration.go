package api

// The admissionregistration.k8s.io/v1 kinds: the configurations of
// admission webhooks, which kube-apiserver (and the in-process cluster,
// with package controllers/webhook) calls on each matching write.

// OperationType is an operation a webhook rule names: CREATE, UPDATE,
// DELETE, CONNECT or "*" (all of them).
type OperationType string

// The operations of webhook rules.
const (
	OperationAll     OperationType = "*"
	OperationCreate  OperationType = "CREATE"
	OperationUpdate  OperationType = "UPDATE"
	OperationDelete  OperationType = "DELETE"
	OperationConnect OperationType = "CONNECT"
)

// ScopeType is the scope a rule applies to: Cluster, Namespaced or "*".
type ScopeType string

// The scopes of webhook rules.
const (
	ClusterScope    ScopeType = "Cluster"
	NamespacedScope ScopeType = "Namespaced"
	AllScopes       ScopeType = "*"
)

// FailurePolicyType says what a failed webhook call does: Ignore lets the
// request through, Fail (the default) rejects it.
type FailurePolicyType string

// The failure policies.
const (
	Ignore FailurePolicyType = "Ignore"
	Fail   FailurePolicyType = "Fail"
)

// MatchPolicyType says how rules match a request made through another
// version of the resource: Exact or Equivalent (the default). Each kind
// here has one version, so both match the same requests.
type MatchPolicyType string

// The match policies.
const (
	Exact      MatchPolicyType = "Exact"
	Equivalent MatchPolicyType = "Equivalent"
)

// SideEffectClass says whether a webhook has side effects outside the
// request: None and NoneOnDryRun are valid in v1 (Unknown and Some only
// in v1beta1, and a dry-run request is refused by such a webhook).
type SideEffectClass string

// The side-effect classes.
const (
	SideEffectClassUnknown      SideEffectClass = "Unknown"
	SideEffectClassNone         SideEffectClass = "None"
	SideEffectClassSome         SideEffectClass = "Some"
	SideEffectClassNoneOnDryRun SideEffectClass = "NoneOnDryRun"
)

// ReinvocationPolicyType says whether a mutating webhook is called again
// when a later one changed the object: Never (the default) or IfNeeded.
type ReinvocationPolicyType string

// The reinvocation policies.
const (
	NeverReinvocationPolicy    ReinvocationPolicyType = "Never"
	IfNeededReinvocationPolicy ReinvocationPolicyType = "IfNeeded"
)

// ValidatingWebhookConfiguration lists validating admission webhooks
// (admissionregistration.k8s.io/v1, cluster-scoped).
type ValidatingWebhookConfiguration struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Webhooks are the webhooks, each called on the requests its rules
	// match; their names are unique within the configuration.
	Webhooks []ValidatingWebhook `json:"webhooks,omitempty"`
}

// MutatingWebhookConfiguration lists mutating admission webhooks
// (admissionregistration.k8s.io/v1, cluster-scoped).
type MutatingWebhookConfiguration struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Webhooks are the webhooks, called in order; their names are unique
	// within the configuration.
	Webhooks []MutatingWebhook `json:"webhooks,omitempty"`
}

// ValidatingWebhook is one validating webhook.
type ValidatingWebhook struct {
	// Name is the webhook's qualified name ("deny.example.com").
	Name string `json:"name"`
	// ClientConfig says how to reach the webhook.
	ClientConfig WebhookClientConfig `json:"clientConfig"`
	// Rules are the operations and resources the webhook sees.
	Rules []RuleWithOperations `json:"rules,omitempty"`
	// FailurePolicy is Ignore or Fail (default).
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty"`
	// MatchPolicy is Exact or Equivalent (default).
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty"`
	// NamespaceSelector selects by the labels of the object's namespace
	// (of a Namespace, its own); default: everything.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	// ObjectSelector selects by the labels of the object or the old
	// object; default: everything.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty"`
	// SideEffects is None or NoneOnDryRun; required.
	SideEffects *SideEffectClass `json:"sideEffects"`
	// TimeoutSeconds bounds a call, 1 to 30; default 10.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// AdmissionReviewVersions are the AdmissionReview versions the
	// webhook accepts, in order of preference; required, and this server
	// speaks only v1.
	AdmissionReviewVersions []string `json:"admissionReviewVersions"`
	// MatchConditions are CEL expressions that must all hold for the
	// webhook to be called; evaluated when the dispatcher has an
	// evaluator (see package webhook, Options.MatchConditions).
	MatchConditions []MatchCondition `json:"matchConditions,omitempty"`
}

// MutatingWebhook is one mutating webhook: a ValidatingWebhook's fields
// and ReinvocationPolicy.
type MutatingWebhook struct {
	// Name is the webhook's qualified name ("label.example.com").
	Name string `json:"name"`
	// ClientConfig says how to reach the webhook.
	ClientConfig WebhookClientConfig `json:"clientConfig"`
	// Rules are the operations and resources the webhook sees.
	Rules []RuleWithOperations `json:"rules,omitempty"`
	// FailurePolicy is Ignore or Fail (default).
	FailurePolicy *FailurePolicyType `json:"failurePolicy,omitempty"`
	// MatchPolicy is Exact or Equivalent (default).
	MatchPolicy *MatchPolicyType `json:"matchPolicy,omitempty"`
	// NamespaceSelector selects by the labels of the object's namespace
	// (of a Namespace, its own); default: everything.
	NamespaceSelector *LabelSelector `json:"namespaceSelector,omitempty"`
	// ObjectSelector selects by the labels of the object or the old
	// object; default: everything.
	ObjectSelector *LabelSelector `json:"objectSelector,omitempty"`
	// SideEffects is None or NoneOnDryRun; required.
	SideEffects *SideEffectClass `json:"sideEffects"`
	// TimeoutSeconds bounds a call, 1 to 30; default 10.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty"`
	// AdmissionReviewVersions are the AdmissionReview versions the
	// webhook accepts; required, and this server speaks only v1.
	AdmissionReviewVersions []string `json:"admissionReviewVersions"`
	// MatchConditions are CEL expressions that must all hold for the
	// webhook to be called; evaluated when the dispatcher has an
	// evaluator (see package webhook, Options.MatchConditions).
	MatchConditions []MatchCondition `json:"matchConditions,omitempty"`
	// ReinvocationPolicy is Never (default) or IfNeeded: call the
	// webhook once more when a later mutating webhook changed the object.
	ReinvocationPolicy *ReinvocationPolicyType `json:"reinvocationPolicy,omitempty"`
}

// WebhookClientConfig says how to reach a webhook: exactly one of URL
// and Service.
type WebhookClientConfig struct {
	// URL is https://host[:port][/path], without user, query or
	// fragment.
	URL *string `json:"url,omitempty"`
	// Service is a Service of the cluster serving the webhook.
	Service *ServiceReference `json:"service,omitempty"`
	// CABundle is the PEM bundle that verifies the webhook's serving
	// certificate (base64 in JSON); empty: the system roots.
	CABundle []byte `json:"caBundle,omitempty"`
}

// ServiceReference names the Service of a webhook.
type ServiceReference struct {
	// Namespace of the service; required.
	Namespace string `json:"namespace"`
	// Name of the service; required.
	Name string `json:"name"`
	// Path is the URL path the request goes to.
	Path *string `json:"path,omitempty"`
	// Port is the service port, 1 to 65535; default 443.
	Port *int32 `json:"port,omitempty"`
}

// RuleWithOperations is a rule and the operations it applies to.
type RuleWithOperations struct {
	// Operations are CREATE, UPDATE, DELETE, CONNECT, or "*" alone.
	Operations []OperationType `json:"operations,omitempty"`
	// Rule is the groups, versions, resources and scope.
	Rule `json:",inline"`
}

// Rule matches resources: a group, version and resource each listed (or
// "*"), and a scope.
type Rule struct {
	// APIGroups are the groups ("" core, "*" all).
	APIGroups []string `json:"apiGroups,omitempty"`
	// APIVersions are the versions ("*" all).
	APIVersions []string `json:"apiVersions,omitempty"`
	// Resources are resources and subresources: "pods", "pods/status",
	// "pods/*", "*/status", "*" (every resource, no subresource) and
	// "*/*" (everything).
	Resources []string `json:"resources,omitempty"`
	// Scope is Cluster, Namespaced or "*" (default).
	Scope *ScopeType `json:"scope,omitempty"`
}

// MatchCondition is a CEL condition a request must meet for the webhook
// to be called.
type MatchCondition struct {
	// Name identifies the condition; a qualified name, unique.
	Name string `json:"name"`
	// Expression is the CEL expression.
	Expression string `json:"expression"`
}
