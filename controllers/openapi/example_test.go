package openapi_test

import (
	"encoding/json"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/openapi"
)

// The v3 document of apps/v1 for the Deployment kind: its definition's
// description and a field's patch strategy.
func Example() {
	info, _ := api.InfoOf(api.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	docs, err := openapi.Build("v1.37.2", []openapi.Resource{{
		GroupVersionKind: info.GroupVersionKind, Resource: info.Resource,
		Namespaced: true, Status: true, Scale: true, GoType: info.GoType(),
	}})
	if err != nil {
		panic(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Description string                    `json:"description"`
				Properties  map[string]map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(docs.V3["apis/apps/v1"], &doc); err != nil {
		panic(err)
	}
	spec := doc.Components.Schemas["io.k8s.api.apps.v1.DeploymentSpec"]
	fmt.Println(spec.Description)
	fmt.Println(spec.Properties["strategy"]["x-kubernetes-patch-strategy"])
	fmt.Println(doc.Components.Schemas["io.k8s.api.core.v1.PodSpec"].Properties["containers"]["x-kubernetes-patch-merge-key"])
	// Output:
	// DeploymentSpec is the desired state of a deployment.
	// retainKeys
	// name
}
