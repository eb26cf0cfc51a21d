package endpointslice_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpointslice"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// A service, one ready pod, and the EndpointSlice the controller writes.
func Example() {
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	c, _ := cluster.New(ctx, cluster.Options{})
	res, _ := client.For[*api.EndpointSlice](c)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, _ := endpointslice.New(c, f, endpointslice.Options{Logger: quiet})
	watch, _ := res.Watch(ctx, source.WatchOptions{})
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = ctl.Run(ctx) })

	_, _ = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1"}})
	_, _ = c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{ClusterIP: "10.96.0.20", Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromInt32(8080)}}}})
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "nginx", Image: "nginx"}}}}
	_, _ = c.Pods().Create(ctx, p)
	p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: "10.244.0.10",
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
	_, _ = c.Pods().UpdateStatus(ctx, p)

	var s *api.EndpointSlice
	for s == nil || len(s.Endpoints) == 0 {
		ev, ok := <-watch
		if !ok {
			panic(ctx.Err())
		}
		s = ev.Object
	}
	fmt.Println(s.Labels[api.LabelServiceName], s.Labels[endpointslice.LabelManagedBy], s.AddressType)
	for _, e := range s.Endpoints {
		fmt.Println(e.Addresses, "ready:", *e.Conditions.Ready, "pod:", e.TargetRef.Name, "node:", *e.NodeName)
	}
	fmt.Println("port:", *s.Ports[0].Name, *s.Ports[0].Port)
	cancel()
	wg.Wait()
	f.Shutdown()
	// Output:
	// web endpointslice-controller.k8s.io IPv4
	// [10.244.0.10] ready: true pod: web-0 node: node-1
	// port: http 8080
}
