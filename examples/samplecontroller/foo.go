package main

import "github.com/ctrlkit/ctrlkit/controllers/api"

// Foo is sample-controller's custom resource (samplecontroller.k8s.io/v1alpha1):
// it asks for a Deployment of Replicas nginx pods named DeploymentName,
// and reports how many are available.
type Foo struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata,omitzero"`
	Spec           FooSpec   `json:"spec"`
	Status         FooStatus `json:"status"`
}

// FooSpec is what a Foo asks for.
type FooSpec struct {
	DeploymentName string `json:"deploymentName"`
	Replicas       *int32 `json:"replicas"`
}

// FooStatus is what the controller observed.
type FooStatus struct {
	AvailableReplicas int32 `json:"availableReplicas"`
}

// fooGVK is Foo's group, version and kind.
var fooGVK = api.GroupVersionKind{Group: "samplecontroller.k8s.io", Version: "v1alpha1", Kind: "Foo"}

// GroupVersionKind implements api.Object.
func (*Foo) GroupVersionKind() api.GroupVersionKind { return fooGVK }

// DeepCopy returns a deep copy of f.
func (f *Foo) DeepCopy() *Foo {
	c := *f
	c.ObjectMeta = *f.ObjectMeta.DeepCopy()
	if f.Spec.Replicas != nil {
		r := *f.Spec.Replicas
		c.Spec.Replicas = &r
	}
	return &c
}

// DeepCopyObject implements api.Object.
func (f *Foo) DeepCopyObject() api.Object { return f.DeepCopy() }

var _ api.Object = (*Foo)(nil)
