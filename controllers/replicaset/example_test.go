package replicaset_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/replicaset"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The ReplicaSet controller over an in-memory cluster, used through the
// client contract as any client.Client would be: a ReplicaSet of 3 gets 3
// pods, named from generateName and controlled by it, and a status that
// counts them.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	replicaSets, err := client.For[*api.ReplicaSet](c) // c is a client.Client
	if err != nil {
		panic(err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	ctl, err := replicaset.New(c, f, replicaset.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()

	watch, err := replicaSets.Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	three := int32(3)
	rs := &api.ReplicaSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.ReplicaSetSpec{
			Replicas: &three,
			Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
	if _, err := replicaSets.Create(ctx, rs); err != nil {
		panic(err)
	}
	for ev := range watch {
		if ev.Object.Status.Replicas == 3 {
			fmt.Println("status.replicas:", ev.Object.Status.Replicas)
			break
		}
	}
	list, err := pods.List(ctx, source.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, p := range list.Items {
		fmt.Println(strings.HasPrefix(p.Name, "web-"), p.ControllerRef().Kind, p.ControllerRef().Name)
	}
	cancel()
	fmt.Println(<-done)
	f.Shutdown()
	// Output:
	// status.replicas: 3
	// true ReplicaSet web
	// true ReplicaSet web
	// true ReplicaSet web
	// context canceled
}
