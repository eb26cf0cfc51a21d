package endpoints_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// A service, two pods — one ready, one not — and the Endpoints the
// controller writes for them.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	c, _ := cluster.New(ctx, cluster.Options{})
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, _ := endpoints.New(c, f, endpoints.Options{Logger: quiet})
	watch, _ := c.Endpoints().Watch(ctx, source.WatchOptions{})
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = ctl.Run(ctx) })

	_, _ = c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromString("http")}}}})
	for i, ready := range []bool{true, false} {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "nginx", Image: "nginx",
				Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
		_, _ = c.Pods().Create(ctx, p)
		// What the kubelet reports.
		st := api.ConditionFalse
		if ready {
			st = api.ConditionTrue
		}
		p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: fmt.Sprintf("10.244.0.%d", i+10),
			Conditions: []api.PodCondition{{Type: api.PodReady, Status: st}}}
		_, _ = c.Pods().UpdateStatus(ctx, p)
	}
	// Wait for the Endpoints to show both pods.
	var ep *api.Endpoints
	for ep == nil || len(ep.Subsets) == 0 || len(ep.Subsets[0].Addresses)+len(ep.Subsets[0].NotReadyAddresses) < 2 {
		ev, ok := <-watch
		if !ok {
			panic(ctx.Err())
		}
		ep = ev.Object
	}
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			fmt.Println("ready:", a.IP, "pod", a.TargetRef.Name)
		}
		for _, a := range s.NotReadyAddresses {
			fmt.Println("not ready:", a.IP, "pod", a.TargetRef.Name)
		}
		for _, p := range s.Ports {
			fmt.Println("port:", p.Name, p.Port)
		}
	}
	cancel()
	wg.Wait()
	f.Shutdown()
	// Output:
	// ready: 10.244.0.10 pod web-0
	// not ready: 10.244.0.11 pod web-1
	// port: http 8080
}
