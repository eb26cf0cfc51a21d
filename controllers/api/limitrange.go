package api

// LimitType is the kind of object a LimitRange item constrains:
// Pod, Container or PersistentVolumeClaim.
type LimitType string

// The limit types.
const (
	// LimitTypePod constrains the sum over a pod's containers.
	LimitTypePod LimitType = "Pod"
	// LimitTypeContainer constrains, and defaults, each container.
	LimitTypeContainer LimitType = "Container"
	// LimitTypePersistentVolumeClaim constrains a claim's storage.
	LimitTypePersistentVolumeClaim LimitType = "PersistentVolumeClaim"
)

// LimitRange sets defaults and bounds on the resources of the pods,
// containers and claims of its namespace (core/v1, namespaced); the
// LimitRanger admission plugin applies it.
type LimitRange struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata,omitzero"`

	// Spec holds the limits.
	Spec LimitRangeSpec `json:"spec,omitzero"`
}

// LimitRangeSpec is the list of limits of a LimitRange.
type LimitRangeSpec struct {
	// Limits are the items enforced.
	Limits []LimitRangeItem `json:"limits"`
}

// LimitRangeItem is the limits of one kind of object.
type LimitRangeItem struct {
	// Type is Pod, Container or PersistentVolumeClaim.
	Type LimitType `json:"type"`
	// Max is the most of each resource an object may have.
	Max ResourceList `json:"max,omitempty"`
	// Min is the least of each resource an object must have.
	Min ResourceList `json:"min,omitempty"`
	// Default is the limit a container that sets none gets.
	Default ResourceList `json:"default,omitempty"`
	// DefaultRequest is the request a container that sets none gets.
	DefaultRequest ResourceList `json:"defaultRequest,omitempty"`
	// MaxLimitRequestRatio is the largest ratio of limit to request.
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty"`
}
