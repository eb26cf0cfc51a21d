package dns_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/dns"
	"github.com/ctrlkit/ctrlkit/informer"
)

// The names of a ClusterIP service and of a headless service's pods. The
// Endpoints are written by hand here; in a cluster the endpoints
// controller writes them.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _ := cluster.New(ctx, cluster.Options{})
	_, _ = c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []api.ServicePort{{Name: "http", Port: 80}}}})
	_, _ = c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "nginx"},
		Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone, Selector: map[string]string{"app": "nginx"}, Ports: []api.ServicePort{{Name: "web", Port: 80}}}})
	_, _ = c.Endpoints().Create(ctx, &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "nginx"},
		Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "10.244.1.5", Hostname: "web-0"}, {IP: "10.244.2.6", Hostname: "web-1"}},
			Ports:     []api.EndpointPort{{Name: "web", Port: 80}},
		}}})

	f := informer.NewFactory(informer.FactoryOptions{})
	r, _ := dns.New(c, f, dns.Options{})
	f.Start(ctx)
	defer f.Shutdown()
	r.WaitForCacheSync(ctx)

	for _, name := range []string{"web.default.svc.cluster.local", "nginx.default.svc.cluster.local", "web-0.nginx.default.svc.cluster.local"} {
		ips, _ := r.LookupHost(name)
		fmt.Println(name, ips)
	}
	srv, _ := r.LookupSRV("_web._tcp.nginx.default.svc.cluster.local")
	for _, s := range srv {
		fmt.Println("SRV", s.Target, s.Port)
	}
	// Output:
	// web.default.svc.cluster.local [10.96.0.1]
	// nginx.default.svc.cluster.local [10.244.1.5 10.244.2.6]
	// web-0.nginx.default.svc.cluster.local [10.244.1.5]
	// SRV web-0.nginx.default.svc.cluster.local. 80
	// SRV web-1.nginx.default.svc.cluster.local. 80
}
