package statefulset_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/statefulset"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The StatefulSet controller alone over an in-memory cluster, used
// through the client contract as any client.Client would be: the set's
// first pod, web-0, is created with its identity; web-1 waits for web-0
// to be ready, which here nobody makes it.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	sets, err := client.For[*api.StatefulSet](c) // c is a client.Client
	if err != nil {
		panic(err)
	}
	pods, err := client.For[*api.Pod](c)
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := statefulset.New(c, f, statefulset.Options{Logger: quiet})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()

	watch, err := pods.Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	two := int32(2)
	web := &api.StatefulSet{
		ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: api.StatefulSetSpec{
			Replicas:    &two,
			ServiceName: "nginx",
			Selector:    &api.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Template: api.PodTemplateSpec{
				ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "nginx"}},
				Spec:       api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx:1.12"}}},
			},
		},
	}
	if _, err := sets.Create(ctx, web); err != nil {
		panic(err)
	}
	ev := <-watch
	p := ev.Object
	fmt.Println(p.Name, p.Spec.Hostname+"."+p.Spec.Subdomain, p.Labels[api.LabelPodIndex])
	select {
	case ev := <-watch:
		fmt.Println("unexpected:", ev.Object.Name)
	case <-time.After(100 * time.Millisecond): // real time, bounded: web-1 must not come
		fmt.Println("web-1 waits for web-0 to be Running and Ready")
	}
	cancel()
	fmt.Println(<-done)
	f.Shutdown()
	// Output:
	// web-0 web-0.nginx 0
	// web-1 waits for web-0 to be Running and Ready
	// context canceled
}
