package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// UID is the unique identifier of an object, assigned by the store that
// created it and never reused.
type UID string

// TypeMeta names the schema of an object: its apiVersion ("apps/v1", "v1")
// and its kind ("Deployment"). Kinds embed it inline, as Kubernetes does, so
// the two fields sit at the top level of a manifest.
type TypeMeta struct {
	// APIVersion is "group/version", or just "version" for the core group.
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the object's kind in CamelCase.
	Kind string `json:"kind,omitempty"`
}

// GroupVersionKind splits t into its group, version and kind, as written.
// Each kind's own GroupVersionKind method, which shadows this one, returns
// the kind's current schema whatever its TypeMeta holds.
func (t TypeMeta) GroupVersionKind() GroupVersionKind {
	g, v := splitAPIVersion(t.APIVersion)
	return GroupVersionKind{Group: g, Version: v, Kind: t.Kind}
}

// GroupVersionKind identifies a schema. The core group is the empty string.
type GroupVersionKind struct {
	// Group is the API group, "" for core ("v1") kinds.
	Group string
	// Version is the group's version, e.g. "v1".
	Version string
	// Kind is the kind within the group and version.
	Kind string
}

// APIVersion returns "group/version", or "version" for the core group.
func (g GroupVersionKind) APIVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// String returns "apiVersion, Kind=kind", the form Kubernetes prints.
func (g GroupVersionKind) String() string {
	return g.APIVersion() + ", Kind=" + g.Kind
}

// TypeMeta returns the TypeMeta that names g.
func (g GroupVersionKind) TypeMeta() TypeMeta {
	return TypeMeta{APIVersion: g.APIVersion(), Kind: g.Kind}
}

func splitAPIVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// ObjectMeta is the metadata every persisted object carries.
type ObjectMeta struct {
	// Name is unique within a namespace (or cluster-wide for cluster-scoped kinds).
	Name string `json:"name,omitempty"`
	// GenerateName is a prefix from which the store derives Name when Name is empty.
	GenerateName string `json:"generateName,omitempty"`
	// Namespace is empty for cluster-scoped kinds.
	Namespace string `json:"namespace,omitempty"`
	// UID is set by the store on creation.
	UID UID `json:"uid,omitempty"`
	// ResourceVersion is the opaque version of the last write, set by the store.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Generation counts changes to the desired state (spec).
	Generation int64 `json:"generation,omitempty"`
	// CreationTimestamp is set by the store on creation.
	CreationTimestamp Time `json:"creationTimestamp,omitzero"`
	// DeletionTimestamp is set when a graceful deletion was requested.
	DeletionTimestamp *Time `json:"deletionTimestamp,omitempty"`
	// DeletionGracePeriodSeconds is the grace period of a requested deletion.
	DeletionGracePeriodSeconds *int64 `json:"deletionGracePeriodSeconds,omitempty"`
	// Labels are the identifying key/value pairs selectors match.
	Labels map[string]string `json:"labels,omitempty"`
	// Annotations are non-identifying key/value pairs.
	Annotations map[string]string `json:"annotations,omitempty"`
	// OwnerReferences name the objects this one depends on.
	OwnerReferences []OwnerReference `json:"ownerReferences,omitempty"`
	// Finalizers must all be removed before a deleted object goes away.
	Finalizers []string `json:"finalizers,omitempty"`
	// ManagedFields record which field manager owns which fields, as
	// server-side apply keeps them (one entry per manager, operation,
	// apiVersion and subresource). A server without a field manager
	// leaves them alone.
	ManagedFields []ManagedFieldsEntry `json:"managedFields,omitempty"`
}

// ManagedFieldsOperationType is the kind of write a ManagedFieldsEntry
// records.
type ManagedFieldsOperationType string

// The operations of a ManagedFieldsEntry.
const (
	// ManagedFieldsOperationApply is a server-side apply.
	ManagedFieldsOperationApply ManagedFieldsOperationType = "Apply"
	// ManagedFieldsOperationUpdate is a create, update or patch.
	ManagedFieldsOperationUpdate ManagedFieldsOperationType = "Update"
)

// ManagedFieldsEntry is one field manager's set of owned fields, as
// metav1.ManagedFieldsEntry.
type ManagedFieldsEntry struct {
	// Manager names the field manager (the request's fieldManager).
	Manager string `json:"manager,omitempty"`
	// Operation is Apply or Update.
	Operation ManagedFieldsOperationType `json:"operation,omitempty"`
	// APIVersion is the version of the fields' paths.
	APIVersion string `json:"apiVersion,omitempty"`
	// Time is when the manager last changed the fields it owns.
	Time *Time `json:"time,omitempty"`
	// FieldsType is the format of FieldsV1: always "FieldsV1".
	FieldsType string `json:"fieldsType,omitempty"`
	// FieldsV1 is the set of owned fields, in kube's FieldsV1 JSON
	// ({"f:spec":{"f:replicas":{}}}).
	FieldsV1 *FieldsV1 `json:"fieldsV1,omitempty"`
	// Subresource is the subresource written through ("status"), empty
	// for the main resource.
	Subresource string `json:"subresource,omitempty"`
}

// FieldsV1 is a set of fields in kube's FieldsV1 format, kept as its
// JSON encoding.
type FieldsV1 struct {
	// Raw is the JSON object; empty means null.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON returns f.Raw, or null when it is empty.
func (f FieldsV1) MarshalJSON() ([]byte, error) {
	if len(f.Raw) == 0 {
		return nullJSON, nil
	}
	return f.Raw, nil
}

// UnmarshalJSON keeps a copy of data (nothing for null).
func (f *FieldsV1) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, nullJSON) {
		f.Raw = nil
		return nil
	}
	f.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// GetObjectMeta returns m itself; through embedding it gives every kind
// access to its metadata.
func (m *ObjectMeta) GetObjectMeta() *ObjectMeta { return m }

// GetGeneration returns m.Generation.
func (m *ObjectMeta) GetGeneration() int64 { return m.Generation }

// GetLabels returns m.Labels.
func (m *ObjectMeta) GetLabels() map[string]string { return m.Labels }

// GetAnnotations returns m.Annotations.
func (m *ObjectMeta) GetAnnotations() map[string]string { return m.Annotations }

// GetResourceVersion returns m.ResourceVersion (source.Versioned).
func (m *ObjectMeta) GetResourceVersion() string { return m.ResourceVersion }

// SetResourceVersion sets m.ResourceVersion (source.VersionSetter).
func (m *ObjectMeta) SetResourceVersion(rv string) { m.ResourceVersion = rv }

// ControllerRef returns the owner reference with Controller set to true,
// or nil when there is none.
func (m *ObjectMeta) ControllerRef() *OwnerReference {
	for i := range m.OwnerReferences {
		if r := &m.OwnerReferences[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	return nil
}

// OwnerReference names an object that owns the one carrying it. Owners are
// in the same namespace as their dependents (or cluster-scoped).
type OwnerReference struct {
	// APIVersion of the owner.
	APIVersion string `json:"apiVersion"`
	// Kind of the owner.
	Kind string `json:"kind"`
	// Name of the owner.
	Name string `json:"name"`
	// UID of the owner.
	UID UID `json:"uid"`
	// Controller is true for at most one reference: the managing controller.
	Controller *bool `json:"controller,omitempty"`
	// BlockOwnerDeletion makes foreground deletion of the owner wait for this dependent.
	BlockOwnerDeletion *bool `json:"blockOwnerDeletion,omitempty"`
}

// ObjectReference points at any object, optionally at a field within it.
type ObjectReference struct {
	// Kind of the referent.
	Kind string `json:"kind,omitempty"`
	// Namespace of the referent.
	Namespace string `json:"namespace,omitempty"`
	// Name of the referent.
	Name string `json:"name,omitempty"`
	// UID of the referent.
	UID UID `json:"uid,omitempty"`
	// APIVersion of the referent.
	APIVersion string `json:"apiVersion,omitempty"`
	// ResourceVersion of the referent when the reference was made.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// FieldPath names a part of the referent, e.g. "spec.containers{name}".
	FieldPath string `json:"fieldPath,omitempty"`
}

// LocalObjectReference names an object in the same namespace.
type LocalObjectReference struct {
	// Name of the referent.
	Name string `json:"name,omitempty"`
}

// ConditionStatus is the status of a condition: True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// Condition is the generic condition of newer kinds (metav1.Condition).
type Condition struct {
	// Type of the condition, in CamelCase.
	Type string `json:"type"`
	// Status of the condition.
	Status ConditionStatus `json:"status"`
	// ObservedGeneration is the generation the condition was set against.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime Time `json:"lastTransitionTime,omitzero"`
	// Reason is a CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty"`
	// Message is a human-readable explanation.
	Message string `json:"message,omitempty"`
}

// Time is a timestamp with the JSON form of metav1.Time: an RFC 3339 string
// in UTC with second precision, or null when zero. Fields of kinds use it by
// value with omitzero, or as *Time where Kubernetes does.
type Time struct {
	time.Time
}

// NewTime wraps t.
func NewTime(t time.Time) Time { return Time{t} }

// MarshalJSON encodes t as RFC 3339 in UTC (second precision), or null.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(time.RFC3339))
}

// UnmarshalJSON decodes an RFC 3339 string or null.
func (t *Time) UnmarshalJSON(b []byte) error {
	return unmarshalTime(b, &t.Time, time.RFC3339)
}

// MicroTime is Time with microsecond precision (metav1.MicroTime), used by
// Lease and Event.
type MicroTime struct {
	time.Time
}

// RFC3339Micro is the layout of MicroTime's JSON form.
const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00"

// NewMicroTime wraps t.
func NewMicroTime(t time.Time) MicroTime { return MicroTime{t} }

// MarshalJSON encodes t in RFC3339Micro in UTC, or null.
func (t MicroTime) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(t.UTC().Format(RFC3339Micro))
}

// UnmarshalJSON decodes an RFC 3339 string (any sub-second precision) or null.
func (t *MicroTime) UnmarshalJSON(b []byte) error {
	return unmarshalTime(b, &t.Time, time.RFC3339Nano)
}

func unmarshalTime(b []byte, dst *time.Time, layout string) error {
	if bytes.Equal(b, []byte("null")) {
		*dst = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("api: time must be an RFC 3339 string: %s", b)
	}
	if s == "" {
		*dst = time.Time{}
		return nil
	}
	pt, err := time.Parse(layout, s)
	if err != nil {
		return fmt.Errorf("api: malformed time %q: %w", s, err)
	}
	*dst = pt.UTC()
	return nil
}
