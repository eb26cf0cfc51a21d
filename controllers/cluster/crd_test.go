package cluster_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// shirtsCRD defines shirts.stable.example.com (served at v1, stored, and
// v1beta1, served) with the status and scale subresources.
const shirtsCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: shirts.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names:
    plural: shirts
    singular: shirt
    kind: Shirt
    shortNames: [sh]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.replicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Color
      type: string
      jsonPath: .spec.color
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              color: {type: string}
              size: {type: string, default: M}
              replicas: {type: integer}
          status:
            type: object
            properties:
              replicas: {type: integer}
              selector: {type: string}
  - name: v1beta1
    served: true
    storage: false
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`

var shirtV1 = api.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "Shirt"}

func applyCRD(t *testing.T, c *cluster.Cluster, doc string) *api.CustomResourceDefinition {
	t.Helper()
	objs, err := api.Decode([]byte(doc), api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd := objs[0].(*api.CustomResourceDefinition)
	crds, err := client.For[*api.CustomResourceDefinition](c)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := crds.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func shirt(name string, spec map[string]any) *api.Unstructured {
	return &api.Unstructured{
		TypeMeta:   api.TypeMeta{APIVersion: "stable.example.com/v1", Kind: "Shirt"},
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Content:    map[string]any{"spec": spec},
	}
}

func condition(crd *api.CustomResourceDefinition, typ api.CustomResourceDefinitionConditionType) api.ConditionStatus {
	for _, c := range crd.Status.Conditions {
		if c.Type == typ {
			return c.Status
		}
	}
	return ""
}

// TestCRDServesItsKind checks that a stored definition is served at once:
// its status (names accepted, established, stored versions, the cleanup
// finalizer), its kind among Kinds, and custom resources with the
// generation, status and scale semantics of kube-apiserver.
func TestCRDServesItsKind(t *testing.T) {
	for name, opts := range map[string]cluster.Options{"memory": {}, "raw backend": {Backend: rawBackend{}}} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			c := newMemory(t, opts)
			crd := applyCRD(t, c, shirtsCRD)
			if condition(crd, api.Established) != api.ConditionTrue || condition(crd, api.NamesAccepted) != api.ConditionTrue {
				t.Fatalf("conditions %+v", crd.Status.Conditions)
			}
			if !slices.Equal(crd.Status.StoredVersions, []string{"v1"}) || crd.Status.AcceptedNames.Kind != "Shirt" {
				t.Fatalf("status %+v", crd.Status)
			}
			if !slices.Contains(crd.Finalizers, cluster.FinalizerCustomResourceCleanup) {
				t.Fatalf("finalizers %v", crd.Finalizers)
			}
			var versions []string
			for _, k := range c.Kinds() {
				if k.Group == "stable.example.com" {
					versions = append(versions, k.Version)
				}
			}
			if !slices.Equal(versions, []string{"v1", "v1beta1"}) {
				t.Fatalf("served versions %v", versions)
			}
			st, ok := c.DynamicStore(shirtV1)
			if !ok {
				t.Fatal("no store of Shirt v1")
			}
			s := shirt("a", map[string]any{"color": "red", "replicas": int64(2)})
			s.Content["status"] = map[string]any{"replicas": int64(9)}
			if _, err := st.Create(ctx, s); err != nil {
				t.Fatal(err)
			}
			if s.Generation != 1 || s.UID == "" || s.Content["status"] != nil {
				t.Fatalf("created %+v", s)
			}
			s.Content["spec"].(map[string]any)["color"] = "blue"
			if _, err := st.Update(ctx, s, ""); err != nil {
				t.Fatal(err)
			}
			if s.Generation != 2 {
				t.Fatalf("generation after a spec change %d, want 2", s.Generation)
			}
			s.Content["status"] = map[string]any{"replicas": int64(2), "selector": "app=a"}
			if _, err := st.UpdateStatus(ctx, s); err != nil {
				t.Fatal(err)
			}
			if s.Generation != 2 {
				t.Fatalf("generation after a status write %d, want 2", s.Generation)
			}
			sc, err := st.GetScale(ctx, "default/a")
			if err != nil {
				t.Fatal(err)
			}
			if sc.Spec.Replicas != 2 || sc.Status.Replicas != 2 || sc.Status.Selector != "app=a" {
				t.Fatalf("scale %+v", sc)
			}
			sc.Spec.Replicas = 5
			if _, err := st.UpdateScale(ctx, "default/a", sc); err != nil {
				t.Fatal(err)
			}
			got, _, err := st.Get(ctx, "default/a")
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := got.(*api.Unstructured).Field("spec", "replicas"); r != int64(5) {
				t.Fatalf("spec.replicas after scaling %v (%T), want 5", r, r)
			}

			// The v1beta1 store reads the same object at its version.
			beta, ok := c.DynamicStore(api.GroupVersionKind{Group: "stable.example.com", Version: "v1beta1", Kind: "Shirt"})
			if !ok {
				t.Fatal("no store of Shirt v1beta1")
			}
			b, _, err := beta.Get(ctx, "default/a")
			if err != nil {
				t.Fatal(err)
			}
			if av := b.(*api.Unstructured).APIVersion; av != "stable.example.com/v1beta1" {
				t.Fatalf("read at v1beta1: apiVersion %s", av)
			}
		})
	}
}

// TestCRDDeletionDeletesItsObjects checks kube-apiserver's cleanup: a
// deleted definition is Terminating while its objects are deleted
// (creates refused with MethodNotAllowed), and goes with its kind once
// the last object's finalizers are removed.
func TestCRDDeletionDeletesItsObjects(t *testing.T) {
	ctx := t.Context()
	c := newMemory(t, cluster.Options{})
	applyCRD(t, c, shirtsCRD)
	st, _ := c.DynamicStore(shirtV1)
	kept := shirt("kept", map[string]any{"color": "red"})
	kept.Finalizers = []string{"example.com/keep"}
	for _, s := range []*api.Unstructured{shirt("plain", map[string]any{}), kept} {
		if _, err := st.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	crds, _ := client.For[*api.CustomResourceDefinition](c)
	if _, err := crds.Delete(ctx, "shirts.stable.example.com", ""); err != nil {
		t.Fatal(err)
	}
	crd, _, err := crds.Get(ctx, "shirts.stable.example.com")
	if err != nil {
		t.Fatalf("the definition went before its objects: %v", err)
	}
	if crd.DeletionTimestamp == nil || condition(crd, api.Terminating) != api.ConditionTrue {
		t.Fatalf("definition being deleted: %+v", crd.Status.Conditions)
	}
	if _, _, err := st.Get(ctx, "default/plain"); !errors.Is(err, source.ErrNotFound) {
		t.Fatalf("object without finalizers: %v, want deleted", err)
	}
	k, _, err := st.Get(ctx, "default/kept")
	if err != nil || k.GetObjectMeta().DeletionTimestamp == nil {
		t.Fatalf("object with a finalizer: %v %+v", err, k)
	}
	if _, err := st.Create(ctx, shirt("late", map[string]any{})); !errors.Is(err, cluster.ErrMethodNotAllowed) {
		t.Fatalf("create while terminating: %v, want ErrMethodNotAllowed", err)
	}
	k.GetObjectMeta().Finalizers = nil
	if _, err := st.Update(ctx, k, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := crds.Get(ctx, "shirts.stable.example.com"); !errors.Is(err, source.ErrNotFound) {
		t.Fatalf("definition after its last object went: %v, want gone", err)
	}
	if _, ok := c.DynamicStore(shirtV1); ok {
		t.Fatal("the kind is still served")
	}
}

// keptBackend is a Backend whose resources outlive the cluster, so that
// a second cluster over it starts from what the first stored, as a
// restarted kube-apiserver starts from etcd.
type keptBackend struct{ sources map[string]cluster.RawStorage }

func (b *keptBackend) Open(r cluster.Resource) (cluster.RawStorage, error) {
	if s, ok := b.sources[r.Name]; ok {
		return s, nil
	}
	s, err := rawBackend{}.Open(r)
	if err == nil {
		b.sources[r.Name] = s
	}
	return s, err
}

// A cluster started over a backend that holds a definition serves its
// kind, and its objects, from the start.
func TestCRDServedAfterRestart(t *testing.T) {
	ctx := t.Context()
	b := &keptBackend{sources: map[string]cluster.RawStorage{}}
	first := newMemory(t, cluster.Options{Backend: b})
	applyCRD(t, first, shirtsCRD)
	st, _ := first.DynamicStore(shirtV1)
	if _, err := st.Create(ctx, shirt("a", map[string]any{"color": "red"})); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.sources["stable.example.com/shirts"]; !ok {
		t.Fatalf("the shirts were not stored under stable.example.com/shirts: %v", b.sources)
	}
	second := newMemory(t, cluster.Options{Backend: b})
	st, ok := second.DynamicStore(shirtV1)
	if !ok {
		t.Fatal("the restarted cluster does not serve Shirt")
	}
	got, _, err := st.Get(ctx, "default/a")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := got.(*api.Unstructured).Field("spec", "color"); c != "red" {
		t.Fatalf("spec.color %v", c)
	}
}

// A definition whose versions a conversion webhook would convert is
// refused with a clear 422: this server calls no conversion webhook.
func TestCRDConversionWebhookRefused(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	objs, err := api.Decode([]byte(shirtsCRD), api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd := objs[0].(*api.CustomResourceDefinition)
	url := "https://convert.example.com/shirts"
	crd.Spec.Conversion = &api.CustomResourceConversion{Strategy: api.WebhookConverter, Webhook: &api.WebhookConversion{
		ClientConfig: &api.ConversionWebhookClientConfig{URL: &url}, ConversionReviewVersions: []string{"v1"}}}
	crds, _ := client.For[*api.CustomResourceDefinition](c)
	_, err = crds.Create(t.Context(), crd)
	if !errors.Is(err, cluster.ErrInvalid) {
		t.Fatalf("create: %v, want ErrInvalid", err)
	}
	want := `spec.conversion.strategy: Unsupported value: "Webhook": conversion webhooks are not supported by this server`
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("create: %v\nwant %s", err, want)
	}
}

// A second definition of a kind its group already has is stored but not
// served: NamesAccepted and Established are False, as kube-apiserver's
// naming controller says, and the first keeps its kind.
func TestCRDNameConflict(t *testing.T) {
	c := newMemory(t, cluster.Options{})
	applyCRD(t, c, shirtsCRD)
	other := strings.NewReplacer("shirts.stable.example.com", "tees.stable.example.com", "plural: shirts", "plural: tees",
		"singular: shirt", "singular: tee", "shortNames: [sh]", "shortNames: [te]").Replace(shirtsCRD)
	crd := applyCRD(t, c, other)
	if condition(crd, api.NamesAccepted) != api.ConditionFalse || condition(crd, api.Established) != api.ConditionFalse {
		t.Fatalf("conditions %+v", crd.Status.Conditions)
	}
	for _, k := range c.Kinds() {
		if k.Resource == "tees" {
			t.Fatalf("the conflicting kind is served: %+v", k)
		}
	}
	st, ok := c.DynamicStore(shirtV1)
	if !ok || st.Resource() != "shirts" {
		t.Fatal("the first definition lost its kind")
	}
}

// With Options.ValidationRules, the x-kubernetes-validations rules of a
// definition are compiled when it is written (a rule that does not
// compile is a 422) and every write of its objects is checked against
// them once the schema holds, with the stored object on an update.
func TestCRDValidationRules(t *testing.T) {
	ctx := t.Context()
	var olds []map[string]any
	rules := func(s *api.JSONSchemaProps) (cluster.RuleCheck, []api.FieldError) {
		spec := s.Properties["spec"]
		if len(spec.XValidations) == 0 {
			return nil, nil
		}
		if r := spec.XValidations[0].Rule; r != "self.color != 'black'" {
			return nil, []api.FieldError{{Type: api.FieldInvalid, Field: "properties[spec].x-kubernetes-validations[0].rule", Value: r, Detail: "compilation failed"}}
		}
		return func(_ context.Context, obj, old map[string]any) []api.FieldError {
			olds = append(olds, old)
			if c, _ := obj["spec"].(map[string]any)["color"].(string); c == "black" {
				return []api.FieldError{{Type: api.FieldInvalid, Field: "spec", Value: "object", Detail: "no black shirts"}}
			}
			if st, ok := obj["status"].(map[string]any); ok && st["replicas"] == int64(1000) {
				return []api.FieldError{{Type: api.FieldInvalid, Field: "status", Value: "object", Detail: "too many"}}
			}
			return nil
		}, nil
	}
	c := newMemory(t, cluster.Options{ValidationRules: rules})
	if !c.EvaluatesValidationRules() {
		t.Fatal("EvaluatesValidationRules is false")
	}
	withRule := func(rule string) string {
		return strings.Replace(shirtsCRD, "          spec:\n            type: object\n", "          spec:\n            type: object\n            x-kubernetes-validations: [{rule: \""+rule+"\"}]\n", 1)
	}
	objs, err := api.Decode([]byte(withRule("self.colour")), api.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := client.For[*api.CustomResourceDefinition](c)
	if _, err := crds.Create(ctx, objs[0].(*api.CustomResourceDefinition)); !errors.Is(err, cluster.ErrInvalid) ||
		!strings.Contains(err.Error(), `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: "self.colour": compilation failed`) {
		t.Fatalf("a rule that does not compile: %v", err)
	}
	applyCRD(t, c, withRule("self.color != 'black'"))
	st, _ := c.DynamicStore(shirtV1)
	if _, err := st.Create(ctx, shirt("b", map[string]any{"color": "black"})); !errors.Is(err, cluster.ErrInvalid) || !strings.Contains(err.Error(), "no black shirts") {
		t.Fatalf("create breaking the rule: %v", err)
	}
	s := shirt("w", map[string]any{"color": "white"})
	if _, err := st.Create(ctx, s); err != nil {
		t.Fatal(err)
	}
	s.Content["spec"].(map[string]any)["color"] = "black"
	if _, err := st.Update(ctx, s, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Fatalf("update breaking the rule: %v", err)
	}
	// A status write is checked too, as kube's status strategy does.
	s.Content["spec"].(map[string]any)["color"] = "white"
	s.Content["status"] = map[string]any{"replicas": int64(1000)}
	if _, err := st.UpdateStatus(ctx, s); !errors.Is(err, cluster.ErrInvalid) || !strings.Contains(err.Error(), "too many") {
		t.Fatalf("status write breaking the rule: %v", err)
	}
	olds = olds[:len(olds)-1]
	if len(olds) < 3 || olds[len(olds)-1] == nil || olds[len(olds)-2] != nil {
		t.Fatalf("old objects seen by the rules: %v (want nil on creates, the stored object on the update)", olds)
	}
}
