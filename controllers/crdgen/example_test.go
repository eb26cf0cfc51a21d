package crdgen_test

import (
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen"
	"github.com/ctrlkit/ctrlkit/controllers/crdgen/internal/widget"
)

// Generate the CRD of Widget, with its doc comments and markers.
func Example() {
	info := api.KindInfo{GroupVersionKind: api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}}
	crd, err := crdgen.Generate(info, reflect.TypeFor[*widget.Widget](), crdgen.Options{Dir: "internal/widget"})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := crd.Spec.Versions[0]
	spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
	replicas := spec.Properties["replicas"]
	fmt.Println(crd.Name, crd.Spec.Scope, crd.Spec.Names.ShortNames)
	fmt.Println("status:", v.Subresources.Status != nil, "scale:", v.Subresources.Scale.SpecReplicasPath)
	fmt.Println("required:", spec.Required)
	fmt.Println("replicas:", replicas.Type, replicas.Format, *replicas.Minimum, *replicas.Maximum, string(replicas.Default.Raw))
	fmt.Println(replicas.Description)
	// Output:
	// widgets.example.com Namespaced [wd wdg]
	// status: true scale: .spec.replicas
	// required: [color name selector]
	// replicas: integer int32 0 100 1
	// Replicas is the number of pods.
}
