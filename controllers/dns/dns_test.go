package dns_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/dns"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
	"github.com/ctrlkit/ctrlkit/informer"
)

var quiet = slog.New(slog.DiscardHandler)

// start runs a cluster, the endpoints controller and a resolver over one
// informer factory until the bubble's test ends.
func start(t *testing.T) (context.Context, *cluster.Cluster, *dns.Resolver) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := endpoints.New(c, f, endpoints.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	r, err := dns.New(c, f, dns.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = ctl.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait(); f.Shutdown() })
	if !r.WaitForCacheSync(ctx) {
		t.Fatal("caches did not sync")
	}
	return ctx, c, r
}

// statefulPod creates web-<i> as a StatefulSet would (hostname web-<i>,
// subdomain nginx) and reports it running and ready at ip, as its kubelet
// would.
func statefulPod(t *testing.T, ctx context.Context, c *cluster.Cluster, i int, ip string) {
	t.Helper()
	name := fmt.Sprintf("web-%d", i)
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "nginx"}},
		Spec: api.PodSpec{NodeName: "node-1", Hostname: name, Subdomain: "nginx", Containers: []api.Container{{Name: "nginx", Image: "nginx:1.12",
			Ports: []api.ContainerPort{{Name: "web", ContainerPort: 80}}}}}}
	if _, err := c.Pods().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: api.ConditionTrue}}}
	if _, err := c.Pods().UpdateStatus(ctx, p); err != nil {
		t.Fatal(err)
	}
}

func settle() {
	time.Sleep(time.Second)
	synctest.Wait()
}

func lookup(r *dns.Resolver, name string) string {
	ips, err := r.LookupHost(name)
	if errors.Is(err, dns.ErrNotFound) {
		return "not found"
	}
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint(ips)
}

// Kubernetes' documentation's headless service nginx and StatefulSet web: each pod
// resolves by its hostname, the service name resolves to all ready pods,
// and web-0.nginx follows web-0 when it is recreated with a new IP.
func TestHeadlessStatefulNames(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, c, r := start(t)
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "nginx", Labels: map[string]string{"app": "nginx"}},
			Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone, Selector: map[string]string{"app": "nginx"},
				Ports: []api.ServicePort{{Name: "web", Port: 80}}}}
		if _, err := c.Services().Create(ctx, svc); err != nil {
			t.Fatal(err)
		}
		statefulPod(t, ctx, c, 0, "10.244.1.5")
		statefulPod(t, ctx, c, 1, "10.244.2.6")
		settle()
		for name, want := range map[string]string{
			"web-0.nginx.default.svc.cluster.local": "[10.244.1.5]",
			"web-1.nginx.default.svc.cluster.local": "[10.244.2.6]",
			"nginx.default.svc.cluster.local":       "[10.244.1.5 10.244.2.6]",
		} {
			if got := lookup(r, name); got != want {
				t.Errorf("%s: %s, want %s", name, got, want)
			}
		}
		srv, err := r.LookupSRV("_web._tcp.nginx.default.svc.cluster.local")
		if err != nil || len(srv) != 2 || srv[0].Target != "web-0.nginx.default.svc.cluster.local." || srv[0].Port != 80 {
			t.Errorf("SRV: %v %v", srv, err)
		}
		// From a pod of the namespace, the short name works.
		if n, ips, err := r.LookupHostFrom("default", "web-1.nginx"); err != nil || n != "web-1.nginx.default.svc.cluster.local." || fmt.Sprint(ips) != "[10.244.2.6]" {
			t.Errorf("LookupHostFrom: %s %v %v", n, ips, err)
		}

		// web-0 is deleted: its name goes…
		if _, err := c.Pods().DeleteWith(ctx, "default/web-0", cluster.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
		settle()
		if got := lookup(r, "web-0.nginx.default.svc.cluster.local"); got != "not found" {
			t.Errorf("web-0 after its deletion: %s", got)
		}
		// …and comes back with the recreated pod's new IP.
		statefulPod(t, ctx, c, 0, "10.244.3.9")
		settle()
		if got := lookup(r, "web-0.nginx.default.svc.cluster.local"); got != "[10.244.3.9]" {
			t.Errorf("web-0 recreated: %s, want [10.244.3.9]", got)
		}
		if got := lookup(r, "nginx.default.svc.cluster.local"); got != "[10.244.2.6 10.244.3.9]" {
			t.Errorf("nginx after the recreation: %s", got)
		}
	})
}

// A ClusterIP service resolves to its cluster IP, with an SRV record per
// named port.
func TestClusterIPName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, c, r := start(t)
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "cart"},
			Spec: api.ServiceSpec{Selector: map[string]string{"app": "cart"}, Ports: []api.ServicePort{{Name: "http", Port: 8080}}}}
		if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Services().Create(ctx, svc); err != nil {
			t.Fatal(err)
		}
		settle()
		ip := netip.MustParseAddr(svc.Spec.ClusterIP)
		if got := lookup(r, "cart.shop.svc.cluster.local"); got != fmt.Sprint([]netip.Addr{ip}) {
			t.Errorf("cart: %s, want %s", got, ip)
		}
		srv, err := r.LookupSRV("_http._tcp.cart.shop.svc.cluster.local")
		if err != nil || len(srv) != 1 || srv[0].Target != "cart.shop.svc.cluster.local." || srv[0].Port != 8080 {
			t.Errorf("SRV: %v %v", srv, err)
		}
	})
}
