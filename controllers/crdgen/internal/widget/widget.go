// Package widget declares Widget, the sample kind of crdgen's tests and
// example: a type with doc comments and kubebuilder markers of every
// kind crdgen reads.
package widget

import "github.com/ctrlkit/ctrlkit/controllers/api"

// Widget is a sample workload that runs a number of identical pods.
//
// +kubebuilder:resource:path=widgets,scope=Namespaced,shortName=wd;wdg,categories=all
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.readyReplicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=".spec.replicas"
// +kubebuilder:printcolumn:name="Ready",type=integer,JSONPath=".status.readyReplicas",description="Pods ready",priority=1
type Widget struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitzero"`

	// Spec is the desired state.
	Spec WidgetSpec `json:"spec"`
	// Status is the observed state.
	// +optional
	Status WidgetStatus `json:"status,omitzero"`
}

// WidgetSpec is the desired state of a Widget.
// +kubebuilder:validation:XValidation:rule="self.minReplicas <= self.replicas",message="minReplicas must not exceed replicas"
type WidgetSpec struct {
	// Replicas is the number of pods.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=1
	Replicas *int32 `json:"replicas,omitempty"`
	// MinReplicas is the least number of pods.
	MinReplicas int32 `json:"minReplicas,omitempty"`
	// Color is the widget's colour.
	Color Color `json:"color"`
	// Name names the widget.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern="^[a-z][-a-z0-9]*$"
	Name string `json:"name"`
	// Email is where to write.
	// +kubebuilder:validation:Format=email
	// +optional
	Email string `json:"email"`
	// Weight is a relative weight.
	Weight float64 `json:"weight,omitempty"`
	// Paused stops the widget.
	Paused bool `json:"paused,omitempty"`
	// Size is the memory each pod gets.
	Size api.Quantity `json:"size,omitempty"`
	// Port is a port number or name.
	Port api.IntOrString `json:"port,omitempty"`
	// Resources are requests by resource name.
	Resources api.ResourceList `json:"resources,omitempty"`
	// Labels label the pods.
	Labels map[string]string `json:"labels,omitempty"`
	// Ports are the exposed ports.
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=8
	Ports []WidgetPort `json:"ports,omitempty"`
	// Tags are free-form tags.
	// +listType=set
	Tags []string `json:"tags,omitempty"`
	// Selector selects the pods.
	// +required
	Selector *api.LabelSelector `json:"selector,omitempty"`
	// Template is the pod template.
	Template *api.PodTemplateSpec `json:"template,omitempty"`
	// Deadline is when the widget gives up.
	Deadline *api.Time `json:"deadline,omitempty"`
	// Data is opaque.
	Data []byte `json:"data,omitempty"`

	Common `json:",inline"`

	// Secret is never serialized.
	Secret string `json:"-"`
}

// Common fields of several specs.
type Common struct {
	// Owner is the widget's owner.
	Owner string `json:"owner,omitempty"`
}

// Color is a colour.
// +kubebuilder:validation:Enum=red;green;blue
type Color string

// WidgetPort is one port of a Widget.
type WidgetPort struct {
	// Name is the port's name.
	Name string `json:"name"`
	// Port is the port number.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	// ReadyReplicas is the number of ready pods.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
	// Selector is the pod selector in label-selector syntax.
	Selector string `json:"selector,omitempty"`
	// ObservedGeneration is the generation last acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// LastUpdate is when the status last changed.
	LastUpdate api.Time `json:"lastUpdate,omitzero"`
}
