package cluster_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// Create a namespace and a Deployment decoded from a manifest, and list
// what the API server stored: defaults filled in, generation 1.
func Example() {
	ctx := context.Background()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
		fmt.Println(err)
		return
	}
	objs, err := api.Decode([]byte(`
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
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
		fmt.Println(err)
		return
	}
	for _, obj := range objs {
		if _, err := c.CreateObject(ctx, obj); err != nil {
			fmt.Println(err)
			return
		}
	}
	list, err := c.Deployments().List(ctx, source.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range list.Items {
		ru := d.Spec.Strategy.RollingUpdate
		fmt.Printf("%s/%s replicas=%d generation=%d strategy=%s maxSurge=%s revisionHistoryLimit=%d\n",
			d.Namespace, d.Name, *d.Spec.Replicas, d.Generation, d.Spec.Strategy.Type, ru.MaxSurge, *d.Spec.RevisionHistoryLimit)
	}

	// A namespace that does not exist refuses the create.
	d := objs[0].(*api.Deployment).DeepCopy()
	d.Namespace, d.ResourceVersion = "nowhere", ""
	_, err = c.Deployments().Create(ctx, d)
	fmt.Println(errors.Is(err, source.ErrNotFound))
	// Output:
	// shop/web replicas=3 generation=1 strategy=RollingUpdate maxSurge=25% revisionHistoryLimit=10
	// true
}

// A scheduler watches only the pods that no node has yet: binding a pod
// moves it out of the selection, which the watch reports as a deletion.
func ExampleStore_Select() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	unscheduled, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName="})
	if err != nil {
		fmt.Println(err)
		return
	}
	events, err := unscheduled.Watch(ctx, source.WatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	pod := &api.Pod{
		ObjectMeta: api.ObjectMeta{GenerateName: "web-"},
		Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
	}
	if _, err := c.Pods().Create(ctx, pod); err != nil {
		fmt.Println(err)
		return
	}
	ev := <-events
	fmt.Println(ev.Type, ev.Object.Spec.SchedulerName, len(ev.Object.Name))
	if _, err := c.Bind(ctx, pod.Namespace, pod.Name, "node-1"); err != nil {
		fmt.Println(err)
		return
	}
	ev = <-events
	fmt.Println(ev.Type, ev.Object.Name == pod.Name)
	// Output:
	// Added default-scheduler 9
	// Deleted true
}
