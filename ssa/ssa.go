package ssa

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/openapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"
)

// FieldManager implements apiserver.FieldManager with
// k8s.io/apimachinery's managedfields over structured-merge-diff. Its
// zero value is not usable: call New.
type FieldManager struct {
	typed    managedfields.TypeConverter // the built-in kinds
	deduced  managedfields.TypeConverter // every other kind
	builtins map[schema.GroupVersionKind]bool

	mu       sync.Mutex
	managers map[managerKey]*managedfields.FieldManager
}

type managerKey struct {
	gvk         schema.GroupVersionKind
	subresource string
}

var _ apiserver.ScaleFieldManager = (*FieldManager)(nil)

// New returns a FieldManager whose schema of every built-in kind is
// made from ctrlkit's own OpenAPI v2 document (package openapi: the
// x-kubernetes-list-type, -list-map-keys and -map-type it derives from
// the Go types); other kinds get a deduced schema.
func New() (*FieldManager, error) {
	var rs []openapi.Resource
	builtins := map[schema.GroupVersionKind]bool{}
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) {
			continue
		}
		rs = append(rs, openapi.Resource{GroupVersionKind: k.GroupVersionKind, Resource: k.Resource, GoType: k.GoType()})
		builtins[schema.GroupVersionKind{Group: k.Group, Version: k.Version, Kind: k.Kind}] = true
	}
	// The versions the server serves converted over another's storage
	// (autoscaling/v1 HorizontalPodAutoscaler) are applied in their own
	// form, with their own schema.
	hpaV1 := api.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "HorizontalPodAutoscaler"}
	rs = append(rs, openapi.Resource{GroupVersionKind: hpaV1, Resource: "horizontalpodautoscalers", GoType: reflect.TypeFor[*api.HorizontalPodAutoscalerV1]()})
	builtins[toGVK(hpaV1)] = true
	docs, err := openapi.Build("v1.37.2", rs)
	if err != nil {
		return nil, fmt.Errorf("ssa: openapi: %w", err)
	}
	var v2 struct {
		Definitions map[string]*spec.Schema `json:"definitions"`
	}
	if err := json.Unmarshal(docs.V2, &v2); err != nil {
		return nil, fmt.Errorf("ssa: openapi v2: %w", err)
	}
	tc, err := managedfields.NewTypeConverter(v2.Definitions, false)
	if err != nil {
		return nil, fmt.Errorf("ssa: schema: %w", err)
	}
	return &FieldManager{typed: tc, deduced: managedfields.NewDeducedTypeConverter(), builtins: builtins,
		managers: map[managerKey]*managedfields.FieldManager{}}, nil
}

// manager returns the field manager of a kind and subresource, made on
// first use.
func (f *FieldManager) manager(gvk schema.GroupVersionKind, subresource string) (*managedfields.FieldManager, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := managerKey{gvk, subresource}
	if m := f.managers[k]; m != nil {
		return m, nil
	}
	var m *managedfields.FieldManager
	var err error
	if f.builtins[gvk] {
		m, err = managedfields.NewDefaultFieldManager(f.typed, identity{}, identity{}, creater{}, gvk, gvk.GroupVersion(), subresource, nil)
	} else {
		m, err = managedfields.NewDefaultCRDFieldManager(f.deduced, identity{}, identity{}, creater{}, gvk, gvk.GroupVersion(), subresource, nil)
	}
	if err != nil {
		return nil, err
	}
	f.managers[k] = m
	return m, nil
}

func toGVK(g api.GroupVersionKind) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
}

// object decodes JSON into an Unstructured; nil or empty is a new
// object of the kind.
func object(gvk schema.GroupVersionKind, b []byte) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if len(b) > 0 {
		if err := json.Unmarshal(b, &u.Object); err != nil {
			return nil, err
		}
	}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// Update records manager's changes from liveJSON to newJSON in the
// managedFields of the result; liveJSON nil is a create.
func (f *FieldManager) Update(_ context.Context, g api.GroupVersionKind, liveJSON, newJSON []byte, manager, subresource string) ([]byte, error) {
	gvk := toGVK(g)
	m, err := f.manager(gvk, subresource)
	if err != nil {
		return nil, err
	}
	live, err := object(gvk, liveJSON)
	if err != nil {
		return nil, err
	}
	obj, err := object(gvk, newJSON)
	if err != nil {
		return nil, err
	}
	// As kube-apiserver: an update never fails on its managedFields
	// (they are reset when they cannot be computed).
	out := m.UpdateNoErrors(live, obj, manager)
	return json.Marshal(out)
}

// Apply merges applied (YAML or JSON) into liveJSON (nil: the object is
// created) for manager; a conflict is kube's 409.
func (f *FieldManager) Apply(_ context.Context, g api.GroupVersionKind, liveJSON, applied []byte, manager, subresource string, force bool) ([]byte, error) {
	gvk := toGVK(g)
	m, err := f.manager(gvk, subresource)
	if err != nil {
		return nil, err
	}
	live, err := object(gvk, liveJSON)
	if err != nil {
		return nil, err
	}
	j, err := yaml.YAMLToJSON(applied)
	if err != nil {
		return nil, badRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	patch := &unstructured.Unstructured{Object: map[string]any{}}
	if err := json.Unmarshal(j, &patch.Object); err != nil {
		return nil, badRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	if pg := patch.GroupVersionKind(); pg != gvk {
		return nil, badRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", patch.GetAPIVersion(), gvk.GroupVersion()))
	}
	out, err := m.Apply(live, patch, manager, force)
	if err != nil {
		if st := toStatus(err); st != err {
			return nil, st
		}
		// A patch that does not fit the schema ("failed to create typed
		// patch object ...: .spec.replicas: expected numeric"): kube
		// answers it 500; it is the client's mistake, so 400 here.
		return nil, badRequest(err.Error())
	}
	return json.Marshal(out)
}

func badRequest(msg string) error {
	return &apiserver.FieldManagerError{Status: apiserver.Status{Code: 400, Reason: "BadRequest", Message: msg}}
}

// toStatus turns a kube API error (a conflict: 409 with
// FieldManagerConflict causes; a bad patch: 400) into the status the
// server answers; other errors pass as they are.
func toStatus(err error) error {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return err
	}
	s := se.ErrStatus
	out := apiserver.Status{Code: int(s.Code), Reason: string(s.Reason), Message: s.Message}
	if d := s.Details; d != nil {
		out.Details = &apiserver.StatusDetails{Name: d.Name, Group: d.Group, Kind: d.Kind}
		for _, c := range d.Causes {
			out.Details.Causes = append(out.Details.Causes, apiserver.StatusCause{Reason: string(c.Type), Message: c.Message, Field: c.Field})
		}
	}
	return &apiserver.FieldManagerError{Status: out}
}

// identity is the object converter, defaulter of a one-version world:
// every object is already in the version asked for.
type identity struct{}

func (identity) Convert(in, out, _ any) error {
	return fmt.Errorf("ssa: convert is not supported")
}

func (identity) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (identity) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

func (identity) Default(runtime.Object) {}

// creater makes empty Unstructured objects.
type creater struct{}

func (creater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// scaleHandler returns kube's ScaleHandler for an object of kind parent
// with managedFields entries, whose replicas are at the JSON path
// replicasPath (".spec.replicas"; a custom resource's specReplicasPath,
// split at its dots as kube's apiextensions-apiserver splits it).
func scaleHandler(parent api.GroupVersionKind, replicasPath string, entries []api.ManagedFieldsEntry) (*managedfields.ScaleHandler, error) {
	var mf []metav1.ManagedFieldsEntry
	if err := convertEntries(entries, &mf); err != nil {
		return nil, err
	}
	var path fieldpath.Path
	for _, name := range strings.Split(strings.TrimPrefix(replicasPath, "."), ".") {
		path = append(path, fieldpath.PathElement{FieldName: &name})
	}
	gv := toGVK(parent).GroupVersion()
	return managedfields.NewScaleHandler(mf, gv, managedfields.ResourcePathMappings{gv.String(): path}), nil
}

// convertEntries converts managedFields entries between ctrlkit's and
// apimachinery's types (the same JSON).
func convertEntries(in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// ScaleManagedFields returns the managedFields of the scale subresource
// of an object of kind parent with managedFields entries (kube's
// ScaleHandler.ToSubresource): the entries owning the replicas at
// replicasPath, as owning the autoscaling/v1 Scale's spec.replicas.
func (f *FieldManager) ScaleManagedFields(parent api.GroupVersionKind, replicasPath string, entries []api.ManagedFieldsEntry) ([]api.ManagedFieldsEntry, error) {
	h, err := scaleHandler(parent, replicasPath, entries)
	if err != nil {
		return nil, err
	}
	mf, err := h.ToSubresource()
	if err != nil {
		return nil, err
	}
	var out []api.ManagedFieldsEntry
	return out, convertEntries(mf, &out)
}

// ParentManagedFields returns the managedFields of an object of kind
// parent, which had entries, after a write of its scale left the Scale
// with scaleEntries (kube's ScaleHandler.ToParent): a manager of the
// Scale's replicas owns the object's replicas (at replicasPath), which
// the others no longer own.
func (f *FieldManager) ParentManagedFields(parent api.GroupVersionKind, replicasPath string, entries, scaleEntries []api.ManagedFieldsEntry) ([]api.ManagedFieldsEntry, error) {
	h, err := scaleHandler(parent, replicasPath, entries)
	if err != nil {
		return nil, err
	}
	var sc []metav1.ManagedFieldsEntry
	if err := convertEntries(scaleEntries, &sc); err != nil {
		return nil, err
	}
	mf, err := h.ToParent(sc)
	if err != nil {
		return nil, err
	}
	var out []api.ManagedFieldsEntry
	return out, convertEntries(mf, &out)
}
