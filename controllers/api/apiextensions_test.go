package api

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// sharedCRDDir is the folder of real CustomResourceDefinitions beside the
// checkout (../shared/crds from the repository root, as in CI), or
// $CTRLKIT_SHARED/crds when that is set (a worktree elsewhere). The test
// fails, not skips, when it is missing: the CRDs are part of its input.
func sharedCRDDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "crds")
	if s := os.Getenv("CTRLKIT_SHARED"); s != "" {
		dir = filepath.Join(s, "crds")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no CRDs in %s (the shared folder must be beside the checkout, or CTRLKIT_SHARED name it): %v", dir, err)
	}
	return dir
}

// Every published CRD of the shared folder decodes strictly into
// CustomResourceDefinition and encodes back to the same JSON document.
func TestCRDsRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(sharedCRDDir(t), "*.yaml"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := Decode(data, DecodeOptions{Source: f})
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 {
				t.Fatalf("decoded %d objects, want 1", len(objs))
			}
			crd, ok := objs[0].(*CustomResourceDefinition)
			if !ok {
				t.Fatalf("decoded a %T", objs[0])
			}
			if crd.Name != crd.Spec.Names.Plural+"."+crd.Spec.Group || len(crd.Spec.Versions) == 0 ||
				crd.Spec.Versions[0].Schema == nil || crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Type != "object" {
				t.Fatalf("decoded CRD lacks its names or schema: %+v", crd.Spec)
			}
			var want any
			for _, doc := range splitYAML(data) {
				j, err := yaml.YAMLToJSON(doc)
				if err != nil {
					t.Fatal(err)
				}
				if s := strings.TrimSpace(string(j)); s != "" && s != "null" {
					if err := json.Unmarshal(j, &want); err != nil {
						t.Fatal(err)
					}
				}
			}
			out, err := json.Marshal(crd)
			if err != nil {
				t.Fatal(err)
			}
			var got any
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("round trip differs: %s", firstDiff(got, want, ""))
			}
			// The deep copy is equal and shares nothing that matters here.
			c := crd.DeepCopy()
			if !reflect.DeepEqual(c, crd) {
				t.Fatal("DeepCopy differs")
			}
		})
	}
}

// firstDiff names the first path where two decoded JSON values differ.
func firstDiff(a, b any, path string) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return path + ": not both objects"
		}
		for k := range av {
			if _, ok := bv[k]; !ok {
				return path + "." + k + ": only in encoding"
			}
			if d := firstDiff(av[k], bv[k], path+"."+k); d != "" {
				return d
			}
		}
		for k := range bv {
			if _, ok := av[k]; !ok {
				return path + "." + k + ": only in source"
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return path + ": arrays differ"
		}
		for i := range av {
			if d := firstDiff(av[i], bv[i], path+"[]"); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return path + ": values differ"
	}
	return ""
}

const crdHead = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
`

// Strict decoding looks inside the union-typed schema fields (items,
// additionalProperties, dependencies) too.
func TestCRDStrictInsideUnions(t *testing.T) {
	for _, tc := range []struct{ schema, path string }{
		{"type: object\n        typo: 1", "spec.versions[0].schema.openAPIV3Schema.typo"},
		{"type: array\n        items: {type: string, typo: 1}", "spec.versions[0].schema.openAPIV3Schema.items.typo"},
		{"type: array\n        items: [{type: string}, {typo: 1}]", "spec.versions[0].schema.openAPIV3Schema.items[1].typo"},
		{"type: object\n        additionalProperties: {type: string, typo: 1}", "spec.versions[0].schema.openAPIV3Schema.additionalProperties.typo"},
		{"type: object\n        dependencies: {a: {typo: 1}}", "spec.versions[0].schema.openAPIV3Schema.dependencies.a.typo"},
	} {
		_, err := Decode([]byte(crdHead+"        "+tc.schema+"\n"), DecodeOptions{})
		if !errors.Is(err, ErrUnknownField) || !strings.Contains(err.Error(), `"`+tc.path+`"`) {
			t.Errorf("%s: err = %v, want unknown field %q", tc.schema, err, tc.path)
		}
	}
}

// The union and raw types decode each of their shapes and encode them
// back as they were (kube's apiextensions/v1 marshal.go semantics).
func TestJSONSchemaPropsUnions(t *testing.T) {
	for _, in := range []string{
		`{"items":{"type":"string"}}`,
		`{"items":[{"type":"string"},{"type":"integer"}]}`,
		`{"additionalProperties":false}`,
		`{"additionalProperties":true}`,
		`{"additionalProperties":{"type":"string"}}`,
		`{"additionalItems":false}`,
		`{"dependencies":{"a":["b","c"],"d":{"required":["e"]}}}`,
		`{"default":{"a":[1,"x",null]},"enum":["a",1,null,{"b":true}],"example":false}`,
		`{"x-kubernetes-preserve-unknown-fields":false,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]}`,
		`{"x-kubernetes-validations":[{"rule":"self == oldSelf","message":"immutable","reason":"FieldValueForbidden","fieldPath":".a","optionalOldSelf":true,"messageExpression":"'x'"}]}`,
		`{"$schema":"http://json-schema.org/schema#","$ref":"#/d","id":"x","not":{"type":"string"},"externalDocs":{"url":"u"},"maximum":3.5,"exclusiveMaximum":true,"multipleOf":2}`,
	} {
		var s JSONSchemaProps
		if err := json.Unmarshal([]byte(in), &s); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var a, b any
		_ = json.Unmarshal([]byte(in), &a)
		_ = json.Unmarshal(out, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s round-trips to %s", in, out)
		}
	}
	var s JSONSchemaProps
	_ = json.Unmarshal([]byte(`{"additionalProperties":{"type":"string"},"items":[{"type":"string"}]}`), &s)
	if !s.AdditionalProperties.Allows || s.AdditionalProperties.Schema.Type != "string" || len(s.Items.JSONSchemas) != 1 || s.Items.Schema != nil {
		t.Errorf("decoded %+v %+v", s.AdditionalProperties, s.Items)
	}
	if err := json.Unmarshal([]byte(`{"items":"x"}`), &s); err == nil {
		t.Error("items: a string decoded")
	}
	if err := json.Unmarshal([]byte(`{"additionalProperties":1}`), &s); err == nil {
		t.Error("additionalProperties: a number decoded")
	}
}
