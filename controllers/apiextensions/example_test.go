package apiextensions_test

import (
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

// An API server serving a custom resource defaults, prunes and validates
// each object it is sent against the CRD version's schema.
func Example() {
	var schema api.JSONSchemaProps
	_ = yaml.Unmarshal([]byte(`
type: object
properties:
  spec:
    type: object
    required: [replicas]
    properties:
      replicas: {type: integer, minimum: 0}
      color: {type: string, enum: [red, blue], default: red}
`), &schema)
	if errs := apiextensions.CheckStructural(&schema, "spec.versions[0].schema.openAPIV3Schema"); len(errs) > 0 {
		fmt.Println(errs)
		return
	}
	s, err := apiextensions.Compile(&schema)
	if err != nil {
		fmt.Println(err)
		return
	}

	obj := map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "w"},
		"spec":       map[string]any{"replicas": "three", "size": int64(4)},
	}
	s.Default(obj)
	fmt.Println("pruned:", s.Prune(obj))
	fmt.Println("defaulted color:", obj["spec"].(map[string]any)["color"])
	for _, e := range s.Validate(obj) {
		fmt.Println(e)
	}
	// Output:
	// pruned: [spec.size]
	// defaulted color: red
	// spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
}
