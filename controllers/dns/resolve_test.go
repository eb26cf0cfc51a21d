package dns

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// Cases after the Kubernetes DNS specification (cluster/addons/dns
// dns-spec.md: A records for ClusterIP and headless services, hostname
// records, SRV records for named ports, CNAME for ExternalName).
func TestLookups(t *testing.T) {
	services := map[string]*api.Service{
		"default/web": {ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"}, Spec: api.ServiceSpec{ClusterIP: "10.96.0.10",
			Ports: []api.ServicePort{{Name: "http", Port: 80, Protocol: api.ProtocolTCP}, {Port: 81}}}},
		"default/nginx": {ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "nginx"}, Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone,
			Ports: []api.ServicePort{{Name: "web", Port: 80}}}},
		"default/empty": {ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "empty"}, Spec: api.ServiceSpec{ClusterIP: api.ClusterIPNone}},
		"default/ext":   {ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "ext"}, Spec: api.ServiceSpec{Type: api.ServiceTypeExternalName, ExternalName: "db.example.com"}},
	}
	endpoints := map[string]*api.Endpoints{
		"default/nginx": {ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "nginx"}, Subsets: []api.EndpointSubset{{
			Addresses:         []api.EndpointAddress{{IP: "10.244.0.5", Hostname: "web-0"}, {IP: "10.244.1.6", Hostname: "web-1"}, {IP: "10.244.2.7"}},
			NotReadyAddresses: []api.EndpointAddress{{IP: "10.244.3.8", Hostname: "web-2"}},
			Ports:             []api.EndpointPort{{Name: "web", Port: 8080, Protocol: api.ProtocolTCP}},
		}}},
	}
	v := view{
		service:   func(k string) (*api.Service, bool) { s, ok := services[k]; return s, ok },
		endpoints: func(k string) (*api.Endpoints, bool) { e, ok := endpoints[k]; return e, ok },
	}
	const zone = "cluster.local"
	hosts := []struct{ name, want string }{
		{"web.default.svc.cluster.local", "[10.96.0.10]"},
		{"WEB.default.svc.cluster.local.", "[10.96.0.10]"},
		{"nginx.default.svc.cluster.local", "[10.244.0.5 10.244.1.6 10.244.2.7]"}, // ready endpoints only
		{"web-0.nginx.default.svc.cluster.local", "[10.244.0.5]"},
		{"web-1.nginx.default.svc.cluster.local", "[10.244.1.6]"},
		{"web-2.nginx.default.svc.cluster.local", "not found"}, // not ready
		{"web-0.web.default.svc.cluster.local", "not found"},   // not headless
		{"empty.default.svc.cluster.local", "not found"},       // headless, no endpoints
		{"ext.default.svc.cluster.local", "not found"},         // a CNAME, no A
		{"web.other.svc.cluster.local", "not found"},
		{"web.default.svc.example.org", "not found"},
		{"default.svc.cluster.local", "not found"},
	}
	for _, tc := range hosts {
		ips, err := v.lookupHost(tc.name, zone)
		got := fmt.Sprint(ips)
		if errors.Is(err, ErrNotFound) {
			got = "not found"
		} else if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("A %s: %s, want %s", tc.name, got, tc.want)
		}
	}
	srvs := []struct{ name, want string }{
		{"_http._tcp.web.default.svc.cluster.local", "[{web.default.svc.cluster.local. 80 0 100}]"},
		{"_http._udp.web.default.svc.cluster.local", "not found"},
		{"_web._tcp.nginx.default.svc.cluster.local",
			"[{10-244-2-7.nginx.default.svc.cluster.local. 8080 0 33} {web-0.nginx.default.svc.cluster.local. 8080 0 33} {web-1.nginx.default.svc.cluster.local. 8080 0 33}]"},
		{"_nope._tcp.web.default.svc.cluster.local", "not found"},
	}
	for _, tc := range srvs {
		rs, err := v.lookupSRV(tc.name, zone)
		got := fmt.Sprint(rs)
		if errors.Is(err, ErrNotFound) {
			got = "not found"
		}
		if got != tc.want {
			t.Errorf("SRV %s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if c, err := v.lookupCNAME("ext.default.svc.cluster.local", zone); err != nil || c != "db.example.com." {
		t.Errorf("CNAME: %q %v", c, err)
	}
	if _, err := v.lookupCNAME("web.default.svc.cluster.local", zone); !errors.Is(err, ErrNotFound) {
		t.Errorf("CNAME of a ClusterIP service: %v", err)
	}
}

func TestSearch(t *testing.T) {
	r := &Resolver{zone: "cluster.local"}
	cases := []struct{ name, want string }{
		{"web", "[web.default.svc.cluster.local. web.svc.cluster.local. web.cluster.local. web.]"},
		{"web.other", "[web.other.default.svc.cluster.local. web.other.svc.cluster.local. web.other.cluster.local. web.other.]"},
		{"web.default.svc.cluster.local.", "[web.default.svc.cluster.local.]"},
		{"a.b.c.d.e.f", "[a.b.c.d.e.f. a.b.c.d.e.f.default.svc.cluster.local. a.b.c.d.e.f.svc.cluster.local. a.b.c.d.e.f.cluster.local.]"},
	}
	for _, tc := range cases {
		if got := fmt.Sprint(r.Search("default", tc.name)); got != tc.want {
			t.Errorf("Search(%q) = %s, want %s", tc.name, got, tc.want)
		}
	}
}
