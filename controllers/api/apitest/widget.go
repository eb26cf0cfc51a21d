package apitest

import (
	"strconv"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// WidgetGVK is the schema of Widget: example.ctrlkit.dev/v1, Kind=Widget.
var WidgetGVK = api.GroupVersionKind{Group: "example.ctrlkit.dev", Version: "v1", Kind: "Widget"}

// Widget is a namespaced kind whose objects ask for a number of replicas
// of a color.
type Widget struct {
	api.TypeMeta `json:",inline"`
	// ObjectMeta is the object's metadata.
	api.ObjectMeta `json:"metadata"`
	// Spec is what the user wants.
	Spec WidgetSpec `json:"spec"`
	// Status is what a controller observed.
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is a Widget's desired state.
type WidgetSpec struct {
	// Replicas is how many; default 1.
	Replicas *int32 `json:"replicas,omitempty"`
	// Color is red, green or blue; required.
	Color string `json:"color"`
	// Selector selects the widget's pods.
	Selector *api.LabelSelector `json:"selector,omitempty"`
	// Labels are free-form labels of the widget's parts.
	Labels map[string]string `json:"labels,omitempty"`
}

// WidgetStatus is a Widget's observed state.
type WidgetStatus struct {
	// Replicas is how many there are.
	Replicas int32 `json:"replicas"`
	// ObservedGeneration is the generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Conditions are the widget's conditions.
	Conditions []api.Condition `json:"conditions,omitempty"`
}

// GroupVersionKind returns WidgetGVK.
func (*Widget) GroupVersionKind() api.GroupVersionKind { return WidgetGVK }

// DeepCopyObject returns a deep copy made by api.DeepCopyOf.
func (w *Widget) DeepCopyObject() api.Object { return api.DeepCopyOf(w) }

// WidgetKind is Widget's registration: resource widgets, short name wd,
// category all, the status and scale subresources, printer columns, and
// a strategy (Replicas defaults to 1; Color must be red, green or blue;
// Color may not change).
var WidgetKind = api.MustRegister[*Widget](api.KindInfo{
	GroupVersionKind: WidgetGVK,
	Resource:         "widgets",
	Namespaced:       true,
	Status:           true,
	Scale:            true,
	ScaleFields: api.ScaleFieldsOf(func(w *Widget) (**int32, int32, string) {
		sel := ""
		if w.Spec.Selector != nil {
			sel = api.SelectorFromSet(w.Spec.Selector.MatchLabels).String()
		}
		return &w.Spec.Replicas, w.Status.Replicas, sel
	}),
	ShortNames: []string{"wd"},
	Categories: []string{"all"},
	Columns: []api.Column{
		{Name: "Name", Type: "string"}, {Name: "Color", Type: "string"},
		{Name: "Replicas", Type: "integer"}, {Name: "Age", Type: "string"},
	},
	Cells: func(obj api.Object, now time.Time) []any {
		w := obj.(*Widget)
		replicas := "<unset>"
		if w.Spec.Replicas != nil {
			replicas = strconv.Itoa(int(*w.Spec.Replicas))
		}
		return []any{w.Name, w.Spec.Color, replicas, api.HumanDuration(now.Sub(w.CreationTimestamp.Time))}
	},
	Default: func(obj api.Object) {
		w := obj.(*Widget)
		if w.Spec.Replicas == nil {
			one := int32(1)
			w.Spec.Replicas = &one
		}
	},
	Validate: func(obj api.Object) []api.FieldError {
		w := obj.(*Widget)
		var errs []api.FieldError
		switch w.Spec.Color {
		case "red", "green", "blue":
		case "":
			errs = append(errs, api.FieldError{Type: api.FieldRequired, Field: "spec.color"})
		default:
			errs = append(errs, api.FieldError{Type: api.FieldUnsupported, Field: "spec.color", Value: w.Spec.Color,
				Detail: `supported values: "blue", "green", "red"`})
		}
		if w.Spec.Replicas != nil && *w.Spec.Replicas < 0 {
			errs = append(errs, api.FieldError{Type: api.FieldInvalid, Field: "spec.replicas",
				Value: strconv.Itoa(int(*w.Spec.Replicas)), Detail: "must be greater than or equal to 0"})
		}
		return errs
	},
	ValidateUpdate: func(old, obj api.Object) []api.FieldError {
		if o, w := old.(*Widget), obj.(*Widget); o.Spec.Color != w.Spec.Color {
			return []api.FieldError{{Type: api.FieldInvalid, Field: "spec.color", Value: w.Spec.Color, Detail: "field is immutable"}}
		}
		return nil
	},
})

// GizmoGVK is the schema of Gizmo: example.ctrlkit.dev/v1alpha1,
// Kind=Gizmo.
var GizmoGVK = api.GroupVersionKind{Group: "example.ctrlkit.dev", Version: "v1alpha1", Kind: "Gizmo"}

// Gizmo is a cluster-scoped kind with a free-form size and no status.
type Gizmo struct {
	api.TypeMeta `json:",inline"`
	// ObjectMeta is the object's metadata.
	api.ObjectMeta `json:"metadata"`
	// Size is the gizmo's size.
	Size string `json:"size,omitempty"`
}

// GroupVersionKind returns GizmoGVK.
func (*Gizmo) GroupVersionKind() api.GroupVersionKind { return GizmoGVK }

// DeepCopyObject returns a deep copy.
func (g *Gizmo) DeepCopyObject() api.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

// GizmoKind is Gizmo's registration: cluster-scoped resource gizmos.
var GizmoKind = api.MustRegister[*Gizmo](api.KindInfo{GroupVersionKind: GizmoGVK, Resource: "gizmos"})
