package webhook

import (
	"encoding/json"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// The wire format of admission.k8s.io/v1 (and v1beta1, which has the
// same fields): what the dispatcher POSTs and what it reads back.

// AdmissionReview is admission.k8s.io/v1 AdmissionReview: a Request on
// the way to the webhook, a Response on the way back.
type AdmissionReview struct {
	api.TypeMeta `json:",inline"`
	// Request is the write being admitted.
	Request *AdmissionRequest `json:"request,omitempty"`
	// Response is the webhook's answer.
	Response *AdmissionResponse `json:"response,omitempty"`
}

// GroupVersionResource names a resource (metav1.GroupVersionResource).
type GroupVersionResource struct {
	Group    string `json:"group"`
	Version  string `json:"version"`
	Resource string `json:"resource"`
}

// GroupVersionKind names a kind as AdmissionRequest writes it
// (metav1.GroupVersionKind, lower-case keys).
type GroupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// UserInfo is authentication/v1 UserInfo.
type UserInfo struct {
	Username string   `json:"username,omitempty"`
	UID      string   `json:"uid,omitempty"`
	Groups   []string `json:"groups,omitempty"`
}

// AdmissionRequest is the request of an AdmissionReview.
type AdmissionRequest struct {
	// UID identifies this call; the response must echo it.
	UID string `json:"uid"`
	// Kind and Resource are the object's kind and resource.
	Kind     GroupVersionKind     `json:"kind"`
	Resource GroupVersionResource `json:"resource"`
	// SubResource is "status", "binding" or "".
	SubResource string `json:"subResource,omitempty"`
	// RequestKind, RequestResource and RequestSubResource are what the
	// client asked for; the same here (every kind has one version).
	RequestKind        *GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                `json:"requestSubResource,omitempty"`
	// Name and Namespace are the object's.
	Name      string `json:"name,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation string `json:"operation"`
	// UserInfo is who made the request.
	UserInfo UserInfo `json:"userInfo"`
	// Object and OldObject are the new and the stored object.
	Object    json.RawMessage `json:"object,omitempty"`
	OldObject json.RawMessage `json:"oldObject,omitempty"`
	// DryRun says the request stores nothing.
	DryRun *bool `json:"dryRun,omitempty"`
	// Options are the operation's options (meta.k8s.io/v1 CreateOptions,
	// UpdateOptions).
	Options json.RawMessage `json:"options,omitempty"`
}

// AdmissionResponse is the response of an AdmissionReview.
type AdmissionResponse struct {
	// UID is the request's.
	UID string `json:"uid"`
	// Allowed admits the request.
	Allowed bool `json:"allowed"`
	// Result says why a request was denied.
	Result *Status `json:"status,omitempty"`
	// Patch is a JSON patch (RFC 6902) of the object; base64 in JSON.
	Patch []byte `json:"patch,omitempty"`
	// PatchType is "JSONPatch" when Patch is set.
	PatchType *string `json:"patchType,omitempty"`
	// AuditAnnotations are ignored here.
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	// Warnings are passed to Options.Warn.
	Warnings []string `json:"warnings,omitempty"`
}

// Status is the part of metav1.Status a webhook's denial carries.
type Status struct {
	Status  string `json:"status,omitempty"`
	Message string `json:"message,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Code    int32  `json:"code,omitempty"`
}
