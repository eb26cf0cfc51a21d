package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

func TestServiceAddresses(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	svc := func(name string, typ api.ServiceType, ip string, nodePort int32) *api.Service {
		return &api.Service{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.ServiceSpec{
			Type: typ, ClusterIP: ip, Selector: web, Ports: []api.ServicePort{{Port: 80, NodePort: nodePort}}}}
	}
	cases := []struct {
		svc      *api.Service
		wantIP   string
		wantPort int32
		errPath  string
	}{
		{svc: svc("a", "", "", 0), wantIP: "10.96.0.1"},
		{svc: svc("b", "", "", 0), wantIP: "10.96.0.2"},
		{svc: svc("headless", "", api.ClusterIPNone, 0), wantIP: api.ClusterIPNone},
		{svc: svc("ext", api.ServiceTypeExternalName, "", 0), wantIP: ""},
		{svc: svc("fixed", "", "10.96.0.9", 0), wantIP: "10.96.0.9"},
		{svc: svc("taken", "", "10.96.0.9", 0), errPath: "spec.clusterIP"},
		{svc: svc("outside", "", "192.168.0.1", 0), errPath: "spec.clusterIP"},
		{svc: svc("np", api.ServiceTypeNodePort, "", 0), wantIP: "10.96.0.3", wantPort: 30000},
		{svc: svc("lb", api.ServiceTypeLoadBalancer, "", 0), wantIP: "10.96.0.4", wantPort: 30001},
		{svc: svc("np-fixed", api.ServiceTypeNodePort, "", 31000), wantIP: "10.96.0.5", wantPort: 31000},
		{svc: svc("np-taken", api.ServiceTypeNodePort, "", 31000), errPath: "spec.ports[0].nodePort"},
		{svc: svc("np-range", api.ServiceTypeNodePort, "", 80), errPath: "spec.ports[0].nodePort"},
		{svc: svc("cip-port", api.ServiceTypeClusterIP, "", 30500), errPath: "spec.ports[0].nodePort"},
	}
	for _, tc := range cases {
		_, err := c.Services().Create(ctx, tc.svc)
		if tc.errPath != "" {
			var inv *cluster.InvalidError
			if !errors.As(err, &inv) {
				t.Errorf("%s: %v, want invalid", tc.svc.Name, err)
			} else if _, ok := inv.Field(tc.errPath); !ok {
				t.Errorf("%s: %v, want an error at %s", tc.svc.Name, err, tc.errPath)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.svc.Name, err)
			continue
		}
		if tc.svc.Spec.ClusterIP != tc.wantIP || tc.svc.Spec.Ports[0].NodePort != tc.wantPort {
			t.Errorf("%s: clusterIP %q nodePort %d, want %q %d", tc.svc.Name, tc.svc.Spec.ClusterIP, tc.svc.Spec.Ports[0].NodePort, tc.wantIP, tc.wantPort)
		}
	}
	// A deleted service's address is free again.
	if _, err := c.Services().Delete(ctx, "default/a", ""); err != nil {
		t.Fatal(err)
	}
	s := svc("again", "", "", 0)
	if _, err := c.Services().Create(ctx, s); err != nil || s.Spec.ClusterIP != "10.96.0.1" {
		t.Errorf("reuse: %v, %q", err, s.Spec.ClusterIP)
	}
	// The cluster IP is immutable.
	s.Spec.ClusterIP = "10.96.0.77"
	if _, err := c.Services().Update(ctx, s, ""); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("changing clusterIP: %v", err)
	}
}

// persistentBackend keeps each resource's raw storage across Clusters
// opened over it: a control-plane restart over the same etcd.
type persistentBackend struct {
	mu    sync.Mutex
	store map[string]cluster.RawStorage
}

func (b *persistentBackend) Open(r cluster.Resource) (cluster.RawStorage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.store[r.Name]; ok {
		return s, nil
	}
	s, err := rawBackend{}.Open(r)
	if err != nil {
		return nil, err
	}
	if b.store == nil {
		b.store = map[string]cluster.RawStorage{}
	}
	b.store[r.Name] = s
	return s, nil
}

func nodePortService(name string) *api.Service {
	return &api.Service{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.ServiceSpec{
		Type: api.ServiceTypeNodePort, Selector: web, Ports: []api.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}
}

// 1,000 concurrent creates of NodePort services with two ports each: every
// one gets its own cluster IP and its own two node ports.
func TestServiceAddressesConcurrentCreates(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{})
	const n = 1000
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			if _, err := c.Services().Create(ctx, nodePortService(fmt.Sprintf("s%d", i))); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	l, err := c.Services().List(ctx, source.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ips, ports := map[string]string{}, map[int32]string{}
	for _, s := range l.Items {
		if other, ok := ips[s.Spec.ClusterIP]; ok {
			t.Errorf("%s and %s share cluster IP %s", s.Name, other, s.Spec.ClusterIP)
		}
		ips[s.Spec.ClusterIP] = s.Name
		ip := netip.MustParseAddr(s.Spec.ClusterIP)
		if !cluster.DefaultServiceCIDR.Contains(ip) {
			t.Errorf("%s: cluster IP %s outside %s", s.Name, ip, cluster.DefaultServiceCIDR)
		}
		for _, p := range s.Spec.Ports {
			if other, ok := ports[p.NodePort]; ok {
				t.Errorf("%s and %s share node port %d", s.Name, other, p.NodePort)
			}
			ports[p.NodePort] = s.Name
			if p.NodePort < cluster.NodePortMin || p.NodePort > cluster.NodePortMax {
				t.Errorf("%s: node port %d out of range", s.Name, p.NodePort)
			}
		}
	}
	if len(ips) != n || len(ports) != 2*n {
		t.Errorf("%d cluster IPs and %d node ports for %d services", len(ips), len(ports), n)
	}
}

// A configured range: its network and broadcast addresses are never
// given out, a full range is a clear error (ErrRangeFull), and a delete
// frees the address and the ports for the next create.
func TestServiceAddressesConfiguredRangeFull(t *testing.T) {
	ctx := context.Background()
	c := newMemory(t, cluster.Options{
		ServiceCIDR:   netip.MustParsePrefix("100.127.224.0/29"), // .1-.6 usable
		NodePortRange: cluster.PortRange{Min: 30000, Max: 30003}, // two services of two ports
	})
	if got := c.ServiceCIDR().String(); got != "100.127.224.0/29" {
		t.Errorf("ServiceCIDR() = %s", got)
	}
	var got []string
	for i := range 6 {
		s := &api.Service{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("c%d", i)}, Spec: api.ServiceSpec{Selector: web, Ports: []api.ServicePort{{Port: 80}}}}
		if _, err := c.Services().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s.Spec.ClusterIP)
	}
	want := []string{"100.127.224.1", "100.127.224.2", "100.127.224.3", "100.127.224.4", "100.127.224.5", "100.127.224.6"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("cluster IPs %v, want %v", got, want)
	}
	full := &api.Service{ObjectMeta: api.ObjectMeta{Name: "full"}, Spec: api.ServiceSpec{Selector: web, Ports: []api.ServicePort{{Port: 80}}}}
	_, err := c.Services().Create(ctx, full)
	if !errors.Is(err, cluster.ErrRangeFull) || !errors.Is(err, cluster.ErrForbidden) || !strings.Contains(err.Error(), "100.127.224.0/29") {
		t.Errorf("full IP range: %v, want ErrRangeFull naming the range", err)
	}
	// Headless services need no address.
	if _, err := c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Name: "headless"}, Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone, Selector: web}}); err != nil {
		t.Errorf("headless in a full range: %v", err)
	}
	// The broadcast address is not in the valid range.
	bc := &api.Service{ObjectMeta: api.ObjectMeta{Name: "bc"}, Spec: api.ServiceSpec{ClusterIP: "100.127.224.7", Selector: web}}
	if _, err := c.Services().Create(ctx, bc); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("broadcast address: %v, want invalid", err)
	}
	// Free two addresses, then fill the node port range.
	for _, k := range []string{"default/c1", "default/c4"} {
		if _, err := c.Services().Delete(ctx, k, ""); err != nil {
			t.Fatal(err)
		}
	}
	a, b := nodePortService("np-a"), nodePortService("np-b")
	for _, s := range []*api.Service{a, b} {
		if _, err := c.Services().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if a.Spec.ClusterIP != "100.127.224.2" || b.Spec.ClusterIP != "100.127.224.5" {
		t.Errorf("freed addresses not reused: %s, %s", a.Spec.ClusterIP, b.Spec.ClusterIP)
	}
	if p := b.Spec.Ports; p[0].NodePort != 30002 || p[1].NodePort != 30003 {
		t.Errorf("np-b node ports %d %d, want 30002 30003", p[0].NodePort, p[1].NodePort)
	}
	if _, err := c.Services().Delete(ctx, "default/c2", ""); err != nil {
		t.Fatal(err)
	}
	_, err = c.Services().Create(ctx, nodePortService("np-c"))
	if !errors.Is(err, cluster.ErrRangeFull) || !strings.Contains(err.Error(), "nodePort in 30000-30003") {
		t.Errorf("full node port range: %v", err)
	}
	// Deleting np-a frees its ports.
	if _, err := c.Services().Delete(ctx, "default/np-a", ""); err != nil {
		t.Fatal(err)
	}
	cc := nodePortService("np-c")
	if _, err := c.Services().Create(ctx, cc); err != nil || cc.Spec.Ports[0].NodePort != 30000 {
		t.Errorf("after delete: %v, node port %d", err, cc.Spec.Ports[0].NodePort)
	}
}

// The allocation state is the stored services: a new Cluster over the
// same storage (a restarted control plane) neither reuses taken
// addresses nor forgets freed ones.
func TestServiceAddressesSurviveRestart(t *testing.T) {
	ctx := context.Background()
	b := &persistentBackend{}
	c1 := newMemory(t, cluster.Options{Backend: b})
	for _, name := range []string{"a", "b", "c"} {
		if _, err := c1.Services().Create(ctx, nodePortService(name)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c1.Services().Delete(ctx, "default/b", ""); err != nil {
		t.Fatal(err)
	}
	c2 := newMemory(t, cluster.Options{Backend: b}) // the restart
	d, e := nodePortService("d"), nodePortService("e")
	for _, s := range []*api.Service{d, e} {
		if _, err := c2.Services().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if d.Spec.ClusterIP != "10.96.0.2" || d.Spec.Ports[0].NodePort != 30002 {
		t.Errorf("d got %s :%d, want b's freed 10.96.0.2 :30002", d.Spec.ClusterIP, d.Spec.Ports[0].NodePort)
	}
	if e.Spec.ClusterIP != "10.96.0.4" || e.Spec.Ports[0].NodePort != 30006 {
		t.Errorf("e got %s :%d, want 10.96.0.4 :30006", e.Spec.ClusterIP, e.Spec.Ports[0].NodePort)
	}
	taken := &api.Service{ObjectMeta: api.ObjectMeta{Name: "taken"}, Spec: api.ServiceSpec{ClusterIP: "10.96.0.3", Selector: web}}
	if _, err := c2.Services().Create(ctx, taken); !errors.Is(err, cluster.ErrInvalid) {
		t.Errorf("requesting c's address after the restart: %v, want invalid", err)
	}
}

func TestServiceRangeOptionsValidated(t *testing.T) {
	for _, o := range []cluster.Options{
		{ServiceCIDR: netip.MustParsePrefix("fd00::/108")},
		{ServiceCIDR: netip.MustParsePrefix("10.0.0.0/31")},
		{ServiceCIDR: netip.MustParsePrefix("10.0.0.1/24")},
		{NodePortRange: cluster.PortRange{Min: 31000, Max: 30000}},
		{NodePortRange: cluster.PortRange{Min: 0, Max: 70000}},
	} {
		if _, err := cluster.New(t.Context(), o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}
