package endpointslicemirroring_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpointslicemirroring"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// A Service without a selector, the Endpoints its user writes, and the
// EndpointSlice the controller mirrors them into.
func Example() {
	quiet := slog.New(slog.DiscardHandler)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	c, _ := cluster.New(ctx, cluster.Options{})
	res, _ := client.For[*api.EndpointSlice](c)
	eps, _ := client.For[*api.Endpoints](c)
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, _ := endpointslicemirroring.New(c, f, endpointslicemirroring.Options{Logger: quiet})
	watch, _ := res.Watch(ctx, source.WatchOptions{})
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = ctl.Run(ctx) })

	_, _ = c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "db"},
		Spec: api.ServiceSpec{Ports: []api.ServicePort{{Name: "pg", Port: 5432}}}})
	_, _ = eps.Create(ctx, &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "db"},
		Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.0.2.10"}},
			Ports: []api.EndpointPort{{Name: "pg", Port: 5432, Protocol: api.ProtocolTCP}}}}})

	ev, ok := <-watch
	if !ok {
		panic(ctx.Err())
	}
	s := ev.Object
	fmt.Println(s.Labels[api.LabelServiceName], s.Labels[endpointslicemirroring.LabelManagedBy], s.AddressType, s.OwnerReferences[0].Kind)
	for _, e := range s.Endpoints {
		fmt.Println(e.Addresses, "ready:", *e.Conditions.Ready)
	}
	fmt.Println("port:", *s.Ports[0].Name, *s.Ports[0].Port)
	cancel()
	wg.Wait()
	f.Shutdown()
	// Output:
	// db endpointslicemirroring-controller.k8s.io IPv4 Endpoints
	// [192.0.2.10] ready: true
	// port: pg 5432
}
