package operator

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Website asks for a web site: a Deployment of Replicas pods running
// Image, and an entry for Host in the sites directory.
type Website struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           WebsiteSpec   `json:"spec"`
	Status         WebsiteStatus `json:"status,omitempty"`
}

// WebsiteSpec is what a Website asks for.
type WebsiteSpec struct {
	// Host is the site's host name; it may not change.
	Host string `json:"host"`
	// Image is the container image serving the site.
	Image string `json:"image"`
	// Replicas is how many pods serve it; default 1, at most 50.
	Replicas *int32 `json:"replicas,omitempty"`
}

// WebsiteStatus is what the operator observed.
type WebsiteStatus struct {
	// Replicas and ReadyReplicas are the Deployment's.
	Replicas      int32 `json:"replicas"`
	ReadyReplicas int32 `json:"readyReplicas"`
	// ObservedGeneration is the generation this status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions: Ready is True when every replica is ready.
	Conditions []api.Condition `json:"conditions,omitempty"`
}

// GVK is Website's schema.
var GVK = api.GroupVersionKind{Group: "sites.example.com", Version: "v1", Kind: "Website"}

// GroupVersionKind implements api.Object.
func (*Website) GroupVersionKind() api.GroupVersionKind { return GVK }

// DeepCopyObject implements api.Object.
func (w *Website) DeepCopyObject() api.Object { return api.DeepCopyOf(w) }

// Kind is Website's registration: what `kubectl get websites` shows, its
// subresources and its strategy.
var Kind = api.MustRegister[*Website](api.KindInfo{
	GroupVersionKind: GVK, Resource: "websites", Namespaced: true, Status: true, Scale: true,
	ShortNames: []string{"ws"}, Categories: []string{"all"},
	ScaleFields: api.ScaleFieldsOf(func(w *Website) (**int32, int32, string) {
		return &w.Spec.Replicas, w.Status.Replicas, LabelKey + "=" + w.Name
	}),
	Columns: []api.Column{{Name: "Name", Type: "string"}, {Name: "Host", Type: "string"},
		{Name: "Ready", Type: "string"}, {Name: "Age", Type: "string"}},
	Cells: func(obj api.Object, now time.Time) []any {
		w := obj.(*Website)
		return []any{w.Name, w.Spec.Host, fmt.Sprintf("%d/%d", w.Status.ReadyReplicas, replicas(w)),
			api.HumanDuration(now.Sub(w.CreationTimestamp.Time))}
	},
	Default: func(obj api.Object) {
		if w := obj.(*Website); w.Spec.Replicas == nil {
			w.Spec.Replicas = new(int32(1))
		}
	},
	Validate: func(obj api.Object) (errs []api.FieldError) {
		w := obj.(*Website)
		if !api.IsDNS1123Subdomain(w.Spec.Host) || !strings.Contains(w.Spec.Host, ".") {
			errs = append(errs, api.FieldError{Type: api.FieldInvalid, Field: "spec.host", Value: w.Spec.Host, Detail: "must be a domain name"})
		}
		if w.Spec.Image == "" {
			errs = append(errs, api.FieldError{Type: api.FieldRequired, Field: "spec.image"})
		}
		if r := replicas(w); r < 0 || r > 50 {
			errs = append(errs, api.FieldError{Type: api.FieldInvalid, Field: "spec.replicas", Value: fmt.Sprint(r), Detail: "must be between 0 and 50"})
		}
		return errs
	},
	ValidateUpdate: func(old, obj api.Object) []api.FieldError {
		if o, w := old.(*Website), obj.(*Website); o.Spec.Host != w.Spec.Host {
			return []api.FieldError{{Type: api.FieldInvalid, Field: "spec.host", Value: w.Spec.Host, Detail: "field is immutable"}}
		}
		return nil
	},
})

func replicas(w *Website) int32 {
	if w.Spec.Replicas == nil {
		return 1
	}
	return *w.Spec.Replicas
}
