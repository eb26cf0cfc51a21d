package crdcel_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/crdcel"
)

// A cluster that checks the x-kubernetes-validations rules of its
// CustomResourceDefinitions with kube-apiserver's CEL.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{ValidationRules: crdcel.Rules})
	if err != nil {
		panic(err)
	}
	objs, err := api.Decode([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "self.min <= self.max", message: min must not exceed max}
            properties:
              min: {type: integer}
              max: {type: integer}
`), api.DecodeOptions{})
	if err != nil {
		panic(err)
	}
	crds, _ := client.For[*api.CustomResourceDefinition](c)
	if _, err := crds.Create(ctx, objs[0].(*api.CustomResourceDefinition)); err != nil {
		panic(err)
	}
	widgets, _ := c.DynamicStore(api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	_, err = widgets.Create(ctx, &api.Unstructured{
		TypeMeta:   api.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
		ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "w"},
		Content:    map[string]any{"spec": map[string]any{"min": int64(5), "max": int64(2)}},
	})
	var invalid *cluster.InvalidError
	if errors.As(err, &invalid) {
		for _, fe := range invalid.Errors {
			fmt.Println(fe)
		}
	}
	// Output:
	// spec: Invalid value: min must not exceed max
}
