package proxy_test

import (
	"context"
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/proxy"
	"github.com/ctrlkit/ctrlkit/informer"
)

// The rules table of a NodePort service with two endpoints: Lookup at
// the cluster IP takes them in turn, and the node port on any node
// address leads to the same service.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	c, _ := cluster.New(ctx, cluster.Options{})
	svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: api.ServiceSpec{Type: api.ServiceTypeNodePort, Ports: []api.ServicePort{{Name: "http", Port: 80}}}}
	_, _ = c.Services().Create(ctx, svc)
	_, _ = c.Endpoints().Create(ctx, &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
		Subsets: []api.EndpointSubset{{
			Addresses: []api.EndpointAddress{{IP: "10.244.0.10"}, {IP: "10.244.1.10"}},
			Ports:     []api.EndpointPort{{Name: "http", Port: 8080}},
		}}})

	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	p, _ := proxy.New(c, f, proxy.Options{Logger: quiet})
	firstSync := p.Applied()
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = p.Run(ctx) })
	select { // the first sync, once the caches hold the objects above
	case <-firstSync:
	case <-ctx.Done():
		panic(ctx.Err())
	}

	for _, r := range p.Rules() {
		fmt.Println(r.Service, r.ClusterIP, "nodePort", r.NodePort, "->", r.Endpoints)
	}
	vip := netip.AddrPortFrom(netip.MustParseAddr(svc.Spec.ClusterIP), 80)
	client := netip.MustParseAddr("10.244.2.7")
	for range 3 {
		ep, _ := p.Lookup(vip, client)
		fmt.Println(vip, "->", ep)
	}
	node := netip.AddrPortFrom(netip.MustParseAddr("172.18.0.2"), uint16(svc.Spec.Ports[0].NodePort))
	ep, _ := p.Lookup(node, client)
	fmt.Println(node, "->", ep)
	cancel()
	wg.Wait()
	f.Shutdown()
	// Output:
	// default/web:http 10.96.0.1:80 nodePort 30000 -> [10.244.0.10:8080 10.244.1.10:8080]
	// 10.96.0.1:80 -> 10.244.0.10:8080
	// 10.96.0.1:80 -> 10.244.1.10:8080
	// 10.96.0.1:80 -> 10.244.0.10:8080
	// 172.18.0.2:30000 -> 10.244.1.10:8080
}
