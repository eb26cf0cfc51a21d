package apiextensions_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiextensions"
)

const widgetsYAML = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {replicas: {type: integer}}}
          status: {type: object, properties: {conditions: {type: array, items: {type: object, x-kubernetes-preserve-unknown-fields: true}}}}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Ready, type: string, jsonPath: '.status.conditions[?(@.type=="Ready")].status'}
    - {name: Age, type: date, jsonPath: .metadata.creationTimestamp}
`

// A CRD is defaulted and validated as kube-apiserver does on create, and
// its printer columns render an object as kubectl get shows it.
func Example_validateCRD() {
	objs, err := api.Decode([]byte(widgetsYAML), api.DecodeOptions{})
	if err != nil {
		panic(err)
	}
	crd := objs[0].(*api.CustomResourceDefinition)
	apiextensions.DefaultCRD(crd)
	fmt.Println("singular:", crd.Spec.Names.Singular, "listKind:", crd.Spec.Names.ListKind, "errors:", len(apiextensions.ValidateCRD(crd)))

	bad := crd.DeepCopy()
	bad.Spec.Versions[0].Subresources.Scale.SpecReplicasPath = ".status.desired"
	for _, e := range apiextensions.ValidateCRD(bad) {
		fmt.Println(e)
	}

	table, err := apiextensions.NewTable(crd.Spec.Versions[0].AdditionalPrinterColumns)
	if err != nil {
		panic(err)
	}
	widget := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "creationTimestamp": "2026-12-06T10:00:00Z"},
		"spec":     map[string]any{"replicas": int64(3)},
		"status":   map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
	}
	now := time.Date(2026, 12, 6, 10, 5, 30, 0, time.UTC)
	var header, row []string
	for _, c := range table.Columns() {
		header = append(header, c.Name)
	}
	for _, cell := range table.Cells(widget, now) {
		row = append(row, fmt.Sprint(cell))
	}
	fmt.Println(strings.Join(header, "\t"))
	fmt.Println(strings.Join(row, "\t"))
	// Output:
	// singular: widget listKind: WidgetList errors: 0
	// spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.desired": should be a json path under .spec
	// Name	Replicas	Ready	Age
	// w1	3	True	5m30s
}

// A JSONPath selects values of an unstructured object as kubectl's
// jsonpath does.
func ExampleJSONPath_Find() {
	p, err := apiextensions.ParseJSONPath(`.spec.ports[?(@.protocol=="UDP")].port`)
	if err != nil {
		panic(err)
	}
	svc := map[string]any{"spec": map[string]any{"ports": []any{
		map[string]any{"protocol": "TCP", "port": int64(80)},
		map[string]any{"protocol": "UDP", "port": int64(53)},
	}}}
	fmt.Println(p.Find(svc))

	_, err = apiextensions.ParseJSONPath(".spec.ports[0")
	fmt.Println(err)
	// Output:
	// [53]
	// apiextensions: jsonpath ".spec.ports[0": unterminated array
}

// ReadPath and WritePath read and write a scale subresource's replicas.
func ExampleWritePath() {
	obj := map[string]any{"spec": map[string]any{"replicas": int64(3)}}
	v, ok := apiextensions.ReadPath(obj, ".spec.replicas")
	fmt.Println(v, ok)
	if err := apiextensions.WritePath(obj, ".status.replicas", int64(2)); err != nil {
		panic(err)
	}
	fmt.Println(obj["status"])
	// Output:
	// 3 true
	// map[replicas:2]
}
