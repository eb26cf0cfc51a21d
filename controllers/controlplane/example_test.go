package controlplane_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
)

// Start a control plane with two nodes and apply a manifest to it. (Its
// tests run the same in a testing/synctest bubble and watch the pods
// come up in virtual time.)
func Example() {
	ctx := context.Background()
	cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2})
	if err != nil {
		panic(err)
	}
	defer cp.Stop()

	objs, err := api.Decode([]byte(`
apiVersion: v1
kind: Namespace
metadata:
  name: demo
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`), api.DecodeOptions{})
	if err != nil {
		panic(err)
	}
	if err := cp.Apply(ctx, objs...); err != nil {
		panic(err)
	}
	d, _, err := cp.Cluster.Deployments().Get(ctx, "demo/web")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Name, *d.Spec.Replicas, d.Spec.Strategy.Type, len(cp.Kubelets), "nodes")
	// Output: web 3 RollingUpdate 2 nodes
}
