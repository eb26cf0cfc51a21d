package crdcel_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/crdcel"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

// crdWithSpec is a one-version definition whose spec schema is spec
// (YAML indented for its place).
func crdWithSpec(spec string) string {
	return `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: things.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: things, singular: thing, kind: Thing, listKind: ThingList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
` + spec
}

// kubeRuleErrors runs kube-apiserver's own validation of the whole
// definition doc and returns its errors about x-kubernetes-validations,
// as "type|field|detail" with the field under the schema's root.
func kubeRuleErrors(t *testing.T, doc string) []string {
	t.Helper()
	var v1 apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict([]byte(doc), &v1); err != nil {
		t.Fatal(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(&v1)
	v1.Status.StoredVersions = []string{"v1"}
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	var out []string
	const root = "spec.validation.openAPIV3Schema" // one version: kube lifts its schema to spec.validation
	for _, e := range validation.ValidateCustomResourceDefinition(context.Background(), &internal) {
		if !strings.HasPrefix(e.Field, root) {
			t.Fatalf("kube's error not under %s: %v", root, e)
		}
		if strings.Contains(e.Field, "x-kubernetes-validations") || strings.Contains(e.Detail, "x-kubernetes-validations") {
			f := strings.TrimPrefix(strings.TrimPrefix(e.Field, root), ".")
			out = append(out, fmt.Sprintf("%s|%s|%s", e.Type, f, e.Detail))
		}
	}
	return out
}

// ourRuleErrors returns the errors of Rules on doc's schema, as
// kubeRuleErrors does.
func ourRuleErrors(t *testing.T, doc string) []string {
	t.Helper()
	crd := decodeCRD(t, doc)
	_, errs := crdcel.Rules(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s|%s|%s", e.Type, e.Field, e.Detail))
	}
	return out
}

// Rules reports the errors kube-apiserver's validation of the definition
// reports about its rules: compile errors, the per-rule cost limit,
// oldSelf where it cannot be correlated, messageExpression errors.
func TestCompileErrorsAsKube(t *testing.T) {
	tests := []struct {
		name, spec string
		want       string // a part of the detail of the one error
	}{
		{"undefined field", `
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations: [{rule: "self.b == 'x'"}]
`, "compilation failed: ERROR: <input>:1:5: undefined field 'b'"},
		{"not a boolean", `
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations: [{rule: "self.a"}]
`, "must evaluate to a bool"},
		{"cost beyond the limit", `
            type: object
            properties:
              names:
                type: array
                items: {type: string}
                x-kubernetes-validations: [{rule: "self.all(x, self.all(y, x.contains(y)))"}]
`, "estimated rule cost exceeds budget by factor of"},
		{"oldSelf in an atomic list's items", `
            type: object
            properties:
              items:
                type: array
                maxItems: 10
                items:
                  type: string
                  maxLength: 10
                  x-kubernetes-validations: [{rule: "self == oldSelf"}]
`, "oldSelf cannot be used on the uncorrelatable portion of the schema"},
		{"messageExpression not a string", `
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations: [{rule: "has(self.a)", messageExpression: "1"}]
`, "must evaluate to a string"},
		{"total cost beyond the limit", `
            type: object
            properties: {replicas: {type: integer}}
            x-kubernetes-validations: [{rule: "self.replicas >= 0", messageExpression: "'replicas is ' + string(self.replicas)"}]
`, "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget"},
		{"fieldPath not in the schema", `
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations: [{rule: "has(self.a)", fieldPath: ".b"}]
`, "must be a valid path"},
		{"unknown reason", `
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations: [{rule: "has(self.a)", reason: Wrong}]
`, "supported values"},
		{"optionalOldSelf without oldSelf", `
            type: object
            properties: {a: {type: string}}
            x-kubernetes-validations: [{rule: "has(self.a)", optionalOldSelf: true}]
`, "may not be set if oldSelf is not used in rule"},
	}
	for _, tt := range tests {
		doc := crdWithSpec(tt.spec)
		kube, ours := kubeRuleErrors(t, doc), ourRuleErrors(t, doc)
		if !slices.Equal(kube, ours) {
			t.Errorf("%s: Rules says\n%q\nkube-apiserver says\n%q", tt.name, ours, kube)
		}
		if len(ours) == 0 || !strings.Contains(strings.Join(ours, "\n"), tt.want) {
			t.Errorf("%s: %q, want an error with %q", tt.name, ours, tt.want)
		}
	}
	// A schema whose rules compile: no errors either way.
	doc := crdWithSpec(`
            type: object
            properties: {a: {type: string, maxLength: 5}}
            x-kubernetes-validations: [{rule: "self.a.startsWith('x')"}]
`)
	if kube, ours := kubeRuleErrors(t, doc), ourRuleErrors(t, doc); len(kube)+len(ours) > 0 {
		t.Errorf("valid rules: Rules says %q, kube-apiserver %q", ours, kube)
	}
}

// The check reports a failed rule as kube-apiserver does: the message
// or messageExpression, the reason's error type, fieldPath under the
// rule's field, the value of a scalar.
func TestCheckAsKube(t *testing.T) {
	crd := decodeCRD(t, crdWithSpec(`
            type: object
            properties:
              replicas: {type: integer}
              name: {type: string, maxLength: 20, x-kubernetes-validations: [{rule: "self != 'nobody'", message: "not nobody"}]}
            x-kubernetes-validations:
            - {rule: "self.replicas >= 0", messageExpression: "self.replicas < -10 ? 'far below zero' : 'below zero'"}
            - {rule: "self.replicas != 7", message: "seven is forbidden", reason: FieldValueForbidden, fieldPath: ".replicas"}
            - {rule: "has(self.name)", message: "a name", reason: FieldValueRequired, fieldPath: ".name"}
`))
	check, errs := crdcel.Rules(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	if len(errs) > 0 || check == nil {
		t.Fatalf("Rules: %v, %v", check != nil, errs)
	}
	tests := []struct {
		spec map[string]any
		want []string
	}{
		{map[string]any{"replicas": int64(1), "name": "a"}, nil},
		{map[string]any{"replicas": int64(-2), "name": "a"}, []string{"spec: Invalid value: below zero"}},
		{map[string]any{"replicas": int64(7), "name": "a"}, []string{"spec.replicas: Forbidden: seven is forbidden"}},
		{map[string]any{"replicas": int64(1)}, []string{"spec.name: Required value: a name"}},
		{map[string]any{"replicas": int64(1), "name": "nobody"}, []string{`spec.name: Invalid value: "nobody": not nobody`}},
	}
	for _, tt := range tests {
		obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
			"metadata": map[string]any{"name": "t", "namespace": "default"}, "spec": tt.spec}
		var got []string
		for _, e := range check(t.Context(), obj, nil) {
			got = append(got, e.Error())
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%v: %q, want %q", tt.spec, got, tt.want)
		}
	}
}

// On an update, a rule is not held against a value the update does not
// change (kube-apiserver's validation ratcheting, on for good since
// Kubernetes 1.33): an object stored before its definition gained a
// rule may still be updated elsewhere.
func TestCheckRatchets(t *testing.T) {
	crd := decodeCRD(t, crdWithSpec(`
            type: object
            properties:
              label: {type: string}
              replicas: {type: integer, x-kubernetes-validations: [{rule: "self <= 10", message: "at most 10"}]}
`))
	check, errs := crdcel.Rules(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	thing := func(replicas int64, label string) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
			"metadata": map[string]any{"name": "t", "namespace": "default"},
			"spec":     map[string]any{"replicas": replicas, "label": label}}
	}
	if errs := check(t.Context(), thing(11, "a"), nil); len(errs) != 1 || errs[0].Error() != "spec.replicas: Invalid value: 11: at most 10" {
		t.Fatalf("create: %v", errs)
	}
	if errs := check(t.Context(), thing(11, "b"), thing(11, "a")); len(errs) > 0 {
		t.Fatalf("update leaving replicas as they were: %v", errs)
	}
	if errs := check(t.Context(), thing(12, "a"), thing(11, "a")); len(errs) != 1 {
		t.Fatalf("update changing replicas: %v", errs)
	}
}
