package api

// The authorization.k8s.io/v1 and authentication.k8s.io/v1 review
// kinds: created, answered and never stored, as kube-apiserver serves
// them. They are not registered kinds (api.Registered): the API server
// serves them itself.

// ResourceAttributes describe a request on a resource, as an authorizer
// sees it.
type ResourceAttributes struct {
	// Namespace of the request ("" for cluster-scoped resources, or all
	// namespaces).
	Namespace string `json:"namespace,omitempty"`
	// Verb: get, list, watch, create, update, patch, delete,
	// deletecollection, or a custom one ("impersonate", "use").
	Verb string `json:"verb,omitempty"`
	// Group of the resource ("" the core group).
	Group string `json:"group,omitempty"`
	// Version of the resource.
	Version string `json:"version,omitempty"`
	// Resource ("pods").
	Resource string `json:"resource,omitempty"`
	// Subresource ("log").
	Subresource string `json:"subresource,omitempty"`
	// Name of the object ("" for all).
	Name string `json:"name,omitempty"`
}

// NonResourceAttributes describe a request to a non-resource URL.
type NonResourceAttributes struct {
	// Path of the URL ("/healthz").
	Path string `json:"path,omitempty"`
	// Verb: the HTTP method in lower case ("get").
	Verb string `json:"verb,omitempty"`
}

// SubjectAccessReviewSpec is the request and the user a SubjectAccessReview
// asks about: exactly one of ResourceAttributes and
// NonResourceAttributes, and a User or Groups.
type SubjectAccessReviewSpec struct {
	// ResourceAttributes of a resource request.
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty"`
	// NonResourceAttributes of a non-resource request.
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
	// User asked about.
	User string `json:"user,omitempty"`
	// Groups of the user.
	Groups []string `json:"groups,omitempty"`
	// Extra attributes of the user.
	Extra map[string]ExtraValue `json:"extra,omitempty"`
	// UID of the user.
	UID string `json:"uid,omitempty"`
}

// SubjectAccessReviewStatus is the authorizer's answer.
type SubjectAccessReviewStatus struct {
	// Allowed is true when the request is allowed.
	Allowed bool `json:"allowed"`
	// Denied is true when an authorizer denies it outright.
	Denied bool `json:"denied,omitempty"`
	// Reason is why (the RBAC authorizer names the binding that allowed).
	Reason string `json:"reason,omitempty"`
	// EvaluationError is an error met while deciding.
	EvaluationError string `json:"evaluationError,omitempty"`
}

// SubjectAccessReview asks whether a user may do something
// (authorization.k8s.io/v1, cluster-scoped).
type SubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the question.
	Spec SubjectAccessReviewSpec `json:"spec"`
	// Status is the answer.
	Status SubjectAccessReviewStatus `json:"status"`
}

// LocalSubjectAccessReview is a SubjectAccessReview in a namespace
// (authorization.k8s.io/v1).
type LocalSubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the question; its namespace is the review's.
	Spec SubjectAccessReviewSpec `json:"spec"`
	// Status is the answer.
	Status SubjectAccessReviewStatus `json:"status"`
}

// SelfSubjectAccessReviewSpec is the request a SelfSubjectAccessReview asks
// about: exactly one of the two.
type SelfSubjectAccessReviewSpec struct {
	// ResourceAttributes of a resource request.
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty"`
	// NonResourceAttributes of a non-resource request.
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty"`
}

// SelfSubjectAccessReview asks whether the requester may do something
// (authorization.k8s.io/v1): `kubectl auth can-i`.
type SelfSubjectAccessReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the question.
	Spec SelfSubjectAccessReviewSpec `json:"spec"`
	// Status is the answer.
	Status SubjectAccessReviewStatus `json:"status"`
}

// SelfSubjectRulesReviewSpec names the namespace whose rules are listed.
type SelfSubjectRulesReviewSpec struct {
	// Namespace to list the rules in.
	Namespace string `json:"namespace,omitempty"`
}

// ResourceRule is what a requester may do to resources.
type ResourceRule struct {
	// Verbs allowed.
	Verbs []string `json:"verbs"`
	// APIGroups of the resources.
	APIGroups []string `json:"apiGroups,omitempty"`
	// Resources allowed.
	Resources []string `json:"resources,omitempty"`
	// ResourceNames, if any, restrict the rule to these objects.
	ResourceNames []string `json:"resourceNames,omitempty"`
}

// NonResourceRule is what a requester may do to non-resource URLs.
type NonResourceRule struct {
	// Verbs allowed.
	Verbs []string `json:"verbs"`
	// NonResourceURLs allowed.
	NonResourceURLs []string `json:"nonResourceURLs,omitempty"`
}

// SubjectRulesReviewStatus lists the rules of a requester in a namespace.
type SubjectRulesReviewStatus struct {
	// ResourceRules of the requester.
	ResourceRules []ResourceRule `json:"resourceRules"`
	// NonResourceRules of the requester.
	NonResourceRules []NonResourceRule `json:"nonResourceRules"`
	// Incomplete is true when the list may miss rules.
	Incomplete bool `json:"incomplete"`
	// EvaluationError is an error met while listing (a binding to a
	// missing role).
	EvaluationError string `json:"evaluationError,omitempty"`
}

// SelfSubjectRulesReview lists what the requester may do in a namespace
// (authorization.k8s.io/v1): `kubectl auth can-i --list`.
type SelfSubjectRulesReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec names the namespace.
	Spec SelfSubjectRulesReviewSpec `json:"spec"`
	// Status lists the rules.
	Status SubjectRulesReviewStatus `json:"status"`
}

// UserInfo is an authenticated identity (authentication.k8s.io/v1).
type UserInfo struct {
	// Username of the user.
	Username string `json:"username,omitempty"`
	// UID of the user.
	UID string `json:"uid,omitempty"`
	// Groups of the user.
	Groups []string `json:"groups,omitempty"`
	// Extra attributes of the user.
	Extra map[string]ExtraValue `json:"extra,omitempty"`
}

// SelfSubjectReviewStatus is the requester's identity.
type SelfSubjectReviewStatus struct {
	// UserInfo of the requester.
	UserInfo UserInfo `json:"userInfo,omitzero"`
}

// SelfSubjectReview answers who the requester is
// (authentication.k8s.io/v1): `kubectl auth whoami`.
type SelfSubjectReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Status is the identity.
	Status SelfSubjectReviewStatus `json:"status"`
}

// BoundObjectReference is the object a service account token is bound to.
type BoundObjectReference struct {
	// Kind of the object (Pod, Secret, Node).
	Kind string `json:"kind,omitempty"`
	// APIVersion of the object.
	APIVersion string `json:"apiVersion,omitempty"`
	// Name of the object.
	Name string `json:"name,omitempty"`
	// UID of the object.
	UID string `json:"uid,omitempty"`
}

// ServiceAccountTokenRequestSpec is what a token is asked for.
type ServiceAccountTokenRequestSpec struct {
	// Audiences of the token; default the API server's.
	Audiences []string `json:"audiences"`
	// ExpirationSeconds the token is valid for; default 3600, at least
	// 600.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	// BoundObjectRef is the object the token is bound to.
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef,omitempty"`
}

// ServiceAccountTokenRequestStatus is the token issued.
type ServiceAccountTokenRequestStatus struct {
	// Token is the bearer token.
	Token string `json:"token"`
	// ExpirationTimestamp is when it stops authenticating.
	ExpirationTimestamp Time `json:"expirationTimestamp"`
}

// ServiceAccountTokenRequest is authentication.k8s.io/v1 TokenRequest, the
// body of a service account's token subresource (`kubectl create token`).
// (Named so beside the CSI driver's TokenRequest.)
type ServiceAccountTokenRequest struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the request.
	Spec ServiceAccountTokenRequestSpec `json:"spec"`
	// Status is the token.
	Status ServiceAccountTokenRequestStatus `json:"status,omitzero"`
}

// ExtraValue is the values of one extra attribute of a user.
type ExtraValue []string

// DeepCopy returns a copy of v.
func (v ExtraValue) DeepCopy() ExtraValue {
	if v == nil {
		return nil
	}
	return append(ExtraValue(nil), v...)
}

// TokenReviewSpec is the token a TokenReview asks about.
type TokenReviewSpec struct {
	// Token is the opaque bearer token.
	Token string `json:"token,omitempty"`
	// Audiences the token must be valid for; default the API server's.
	Audiences []string `json:"audiences,omitempty"`
}

// TokenReviewStatus is the answer of a TokenReview.
type TokenReviewStatus struct {
	// Authenticated is true when the token authenticates.
	Authenticated bool `json:"authenticated,omitempty"`
	// User is the identity the token authenticates as.
	User UserInfo `json:"user"`
	// Audiences are those of spec.audiences the token is valid for (the
	// API server's when spec.audiences is empty).
	Audiences []string `json:"audiences,omitempty"`
	// Error says why the token does not authenticate.
	Error string `json:"error,omitempty"`
}

// TokenReview asks whether a bearer token authenticates, and as whom
// (authentication.k8s.io/v1): what a webhook or an aggregated server
// asks of the API server about the tokens it is sent.
type TokenReview struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec is the token.
	Spec TokenReviewSpec `json:"spec"`
	// Status is the answer.
	Status TokenReviewStatus `json:"status"`
}
