package api_test

import (
	"fmt"
	"log"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Decode a manifest stream, here a batch/v1beta1 CronJob and a headless
// Service, and read typed fields.
func ExampleDecode() {
	manifest := []byte(`apiVersion: batch/v1beta1
kind: CronJob
metadata:
  name: hello
spec:
  schedule: "*/1 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox:latest
            resources: {requests: {cpu: 250m, memory: 64Mi}}
          restartPolicy: OnFailure
---
apiVersion: v1
kind: Service
metadata: {name: nginx, namespace: web}
spec:
  clusterIP: None
  selector: {app: nginx}
  ports: [{port: 80, name: web}]
`)
	objs, err := api.Decode(manifest, api.DecodeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, obj := range objs {
		switch o := obj.(type) {
		case *api.CronJob:
			req := o.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Resources.Requests
			fmt.Println(api.Key(o), o.APIVersion, o.Spec.Schedule, req.Cpu().MilliValue(), req.Memory().String())
		case *api.Service:
			sel := api.SelectorFromSet(o.Spec.Selector)
			fmt.Println(api.Key(o), o.Spec.ClusterIP, sel, sel.Matches(map[string]string{"app": "nginx"}))
		}
	}
	// Output:
	// hello batch/v1 */1 * * * * 250 64Mi
	// web/nginx None app=nginx true
}

// A misspelled field is reported with its path, the kind and the document.
func ExampleDecode_strict() {
	_, err := api.Decode([]byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicass: 3}\n"), api.DecodeOptions{Source: "web.yaml"})
	fmt.Println(err)
	// Output:
	// api: web.yaml: document 2: Deployment "web": unknown field "spec.replicass"
}

func ExampleParseSelector() {
	sel, err := api.ParseSelector("app=nginx,tier!=db,env in (prod,canary),!legacy")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sel)
	fmt.Println(sel.Matches(map[string]string{"app": "nginx", "env": "prod", "tier": "web"}))
	fmt.Println(sel.Matches(map[string]string{"app": "nginx", "env": "prod", "legacy": "yes"}))
	// Output:
	// app=nginx,env in (canary,prod),!legacy,tier!=db
	// true
	// false
}

func ExampleParseQuantity() {
	a := api.MustParse("1.5Gi")
	b, _ := api.ParseQuantity("512Mi")
	sum := a.Add(b)
	fmt.Println(sum, sum.Value(), api.MustParse("100m").MilliValue(), sum.Cmp(api.MustParse("2Gi")))
	// Output:
	// 2Gi 2147483648 100 0
}

// Gear is a user's kind: a Go type and one registration.
type Gear struct {
	api.TypeMeta   `json:",inline"`
	api.ObjectMeta `json:"metadata"`
	Spec           GearSpec `json:"spec"`
}

// GearSpec is a Gear's desired state.
type GearSpec struct {
	Teeth int32 `json:"teeth"`
}

var gearGVK = api.GroupVersionKind{Group: "gears.example.com", Version: "v1", Kind: "Gear"}

func (*Gear) GroupVersionKind() api.GroupVersionKind { return gearGVK }
func (g *Gear) DeepCopyObject() api.Object           { return api.DeepCopyOf(g) }

// Register a Go type as a kind, then decode a manifest of it: the kind
// joins the registry that clusters, API servers and clients serve.
func ExampleRegister() {
	info, err := api.Register[*Gear](api.KindInfo{
		GroupVersionKind: gearGVK, Resource: "gears", Namespaced: true, ShortNames: []string{"gr"},
		Validate: func(obj api.Object) []api.FieldError {
			if obj.(*Gear).Spec.Teeth < 3 {
				return []api.FieldError{{Type: api.FieldInvalid, Field: "spec.teeth", Detail: "must be at least 3"}}
			}
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(info.QualifiedResource(), info.Namespaced)
	objs, err := api.Decode([]byte("apiVersion: gears.example.com/v1\nkind: Gear\nmetadata: {name: g}\nspec: {teeth: 12}\n"), api.DecodeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(objs[0].(*Gear).Spec.Teeth, info.Validate(&Gear{}))
	_, err = api.Register[*Gear](api.KindInfo{GroupVersionKind: gearGVK, Resource: "cogs"})
	fmt.Println(err != nil)
	// Output:
	// gears.gears.example.com true
	// 12 [spec.teeth: Invalid value: must be at least 3]
	// true
}
