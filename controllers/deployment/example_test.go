package deployment_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/deployment"
	"github.com/ctrlkit/ctrlkit/informer"
)

// One step of a rolling update, decided without a cluster: 10 replicas at
// v1 are all available, the template moves to v2 with maxSurge 3 and
// maxUnavailable 2. The new ReplicaSet starts at 3 (13 pods at most) and
// the old one goes down to 8 (8 available at least).
func ExampleDecide() {
	d := newDeployment("web", 10, rolling(3, 2))
	d.UID, d.Generation = "uid-web", 2
	old := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web-v1", Namespace: "default", UID: "uid-v1",
			Annotations: map[string]string{api.AnnotationDeploymentRevision: "1",
				api.AnnotationDesiredReplicas: "10", api.AnnotationMaxReplicas: "13"}},
		Spec:   api.ReplicaSetSpec{Replicas: ptr(int32(10)), Template: *d.Spec.Template.DeepCopy()},
		Status: api.ReplicaSetStatus{Replicas: 10, ReadyReplicas: 10, AvailableReplicas: 10},
	}
	d.Spec.Template.Spec.Containers[0].Image = "v2"

	plan, err := deployment.Decide(d, []*api.ReplicaSet{old}, nil, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		panic(err)
	}
	fmt.Println("create", plan.Create.Name == "web-"+deployment.PodTemplateHash(&d.Spec.Template, nil),
		"replicas", *plan.Create.Spec.Replicas, "revision", plan.Create.Annotations[api.AnnotationDeploymentRevision])
	for _, rs := range plan.Update {
		fmt.Println("scale", rs.Name, "to", *rs.Spec.Replicas)
	}
	for _, e := range plan.Events {
		fmt.Println("event:", e.Reason)
	}
	// Output:
	// create true replicas 3 revision 2
	// scale web-v1 to 8
	// event: ScalingReplicaSet
	// event: ScalingReplicaSet
}

// The controller over an in-memory cluster, written to through the client
// contract as any client.Client would be: a new Deployment gets its first
// ReplicaSet, named after the template's hash, at revision 1.
func ExampleNew() {
	ctx, cancel := context.WithCancel(context.Background())
	quiet := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	deployments, err := client.For[*api.Deployment](c) // c is a client.Client
	if err != nil {
		panic(err)
	}
	replicaSets, err := client.For[*api.ReplicaSet](c)
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{})
	dc, err := deployment.New(c, f, deployment.Options{Logger: quiet})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = dc.Run(ctx) })

	d := newDeployment("web", 3, rolling(1, 0))
	if _, err := deployments.Create(ctx, d); err != nil {
		panic(err)
	}
	// An Example cannot run in a testing/synctest bubble: poll in real
	// time, at most 500 × 10 ms.
	for range 500 {
		if rs, _, err := replicaSets.Get(ctx, "default/web-"+deployment.PodTemplateHash(&d.Spec.Template, nil)); err == nil {
			fmt.Println("replicas", *rs.Spec.Replicas, "revision", rs.Annotations[api.AnnotationDeploymentRevision],
				"hash label", rs.Spec.Selector.MatchLabels[api.LabelPodTemplateHash] != "")
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	wg.Wait()
	f.Shutdown()
	// Output:
	// replicas 3 revision 1 hash label true
}
