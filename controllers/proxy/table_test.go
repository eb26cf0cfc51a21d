package proxy

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func svc(name, ip string, mutate ...func(*api.Service)) *api.Service {
	s := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name}, Spec: api.ServiceSpec{
		ClusterIP: ip, Ports: []api.ServicePort{{Name: "http", Port: 80, Protocol: api.ProtocolTCP}}}}
	for _, m := range mutate {
		m(s)
	}
	return s
}

func eps(name string, subsets ...api.EndpointSubset) *api.Endpoints {
	return &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name}, Subsets: subsets}
}

func subset(port int32, portName string, ready []string, notReady ...string) api.EndpointSubset {
	s := api.EndpointSubset{Ports: []api.EndpointPort{{Name: portName, Port: port, Protocol: api.ProtocolTCP}}}
	for _, ip := range ready {
		s.Addresses = append(s.Addresses, api.EndpointAddress{IP: ip})
	}
	for _, ip := range notReady {
		s.NotReadyAddresses = append(s.NotReadyAddresses, api.EndpointAddress{IP: ip})
	}
	return s
}

func ap(s string) netip.AddrPort { return netip.MustParseAddrPort(s) }

func TestBuildTable(t *testing.T) {
	services := []*api.Service{
		svc("web", "10.96.0.1", func(s *api.Service) {
			s.Spec.Type = api.ServiceTypeNodePort
			s.Spec.Ports[0].NodePort = 30080
			s.Spec.ExternalIPs = []string{"192.0.2.10"}
		}),
		svc("headless", api.ClusterIPNone),
		svc("ext", "", func(s *api.Service) { s.Spec.Type = api.ServiceTypeExternalName; s.Spec.ExternalName = "example.com" }),
		svc("empty", "10.96.0.2"),
		svc("udp", "10.96.0.3", func(s *api.Service) { s.Spec.Ports[0].Protocol = api.ProtocolUDP }),
	}
	endpoints := map[string]*api.Endpoints{
		"ns/web": eps("web",
			subset(8080, "http", []string{"10.0.0.2", "10.0.0.1"}, "10.0.0.9"),
			subset(9090, "metrics", []string{"10.0.0.1"})),
		"ns/headless": eps("headless", subset(8080, "http", []string{"10.0.0.5"})),
	}
	tb := buildTable(services, endpoints, RoundRobin, nil)
	var got []string
	for _, r := range tb.rules {
		got = append(got, fmt.Sprintf("%s/%s %s node:%d ext:%v -> %v", r.Service, r.Service.Protocol, r.ClusterIP, r.NodePort, r.ExternalIPs, r.Endpoints))
	}
	want := []string{
		"ns/empty:http/TCP 10.96.0.2:80 node:0 ext:[] -> []",
		"ns/udp:http/UDP 10.96.0.3:80 node:0 ext:[] -> []",
		"ns/web:http/TCP 10.96.0.1:80 node:30080 ext:[192.0.2.10:80] -> [10.0.0.1:8080 10.0.0.2:8080]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rules:\n%v\nwant\n%v", got, want)
	}
	for _, tc := range []struct {
		dst  string
		want string // service, or "" for none
	}{
		{"10.96.0.1:80", "ns/web:http"},
		{"192.0.2.10:80", "ns/web:http"},
		{"172.18.0.5:30080", "ns/web:http"}, // a node address and the node port
		{"10.96.0.1:81", ""},
		{"10.96.0.3:80", ""}, // UDP only
	} {
		b, ok := tb.lookup(ap(tc.dst), api.ProtocolTCP)
		got := ""
		if ok {
			got = b.rule.Service.String()
		}
		if got != tc.want {
			t.Errorf("lookup %s: %q, want %q", tc.dst, got, tc.want)
		}
	}
	if _, err := tb.byService[ServicePortName{"ns", "empty", "http", api.ProtocolTCP}].pick(netip.Addr{}, t0, false); !errors.Is(err, ErrNoEndpoints) {
		t.Errorf("empty service: %v, want ErrNoEndpoints", err)
	}
}

// Round robin in turn, ClientIP affinity over explicit instants, and what
// a rebuilt table keeps.
func TestPick(t *testing.T) {
	three := eps("web", subset(8080, "http", []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}))
	timeout := int32(60)
	sticky := svc("web", "10.96.0.1", func(s *api.Service) {
		s.Spec.SessionAffinity = "ClientIP"
		s.Spec.SessionAffinityConfig = &api.SessionAffinityConfig{ClientIP: &api.ClientIPConfig{TimeoutSeconds: &timeout}}
	})
	spn := ServicePortName{"ns", "web", "http", api.ProtocolTCP}
	a, b := netip.MustParseAddr("127.1.0.1"), netip.MustParseAddr("127.1.0.2")

	rr := buildTable([]*api.Service{svc("web", "10.96.0.1")}, map[string]*api.Endpoints{"ns/web": three}, RoundRobin, nil)
	var seq []string
	for i := range 4 {
		ep, _ := rr.byService[spn].pick(a, t0.Add(time.Duration(i)*time.Second), false)
		seq = append(seq, ep.Addr().String())
	}
	if fmt.Sprint(seq) != "[10.0.0.1 10.0.0.2 10.0.0.3 10.0.0.1]" {
		t.Errorf("round robin: %v", seq)
	}
	// An unchanged rebuild keeps the cursor (a periodic full sync does
	// not restart the rotation).
	rr2 := buildTable([]*api.Service{svc("web", "10.96.0.1")}, map[string]*api.Endpoints{"ns/web": three}, RoundRobin, rr)
	if ep, _ := rr2.byService[spn].pick(a, t0, false); ep.Addr().String() != "10.0.0.2" {
		t.Errorf("after an unchanged rebuild: %s, want 10.0.0.2", ep)
	}

	st := buildTable([]*api.Service{sticky}, map[string]*api.Endpoints{"ns/web": three}, RoundRobin, nil)
	bal := st.byService[spn]
	steps := []struct {
		client netip.Addr
		at     time.Duration
		reset  bool
		want   string
	}{
		{a, 0, false, "10.0.0.1"},
		{b, 1 * time.Second, false, "10.0.0.2"},
		{a, 30 * time.Second, false, "10.0.0.1"}, // sticks
		{a, 89 * time.Second, false, "10.0.0.1"}, // 59s after its last use: still
		{b, 61 * time.Second, false, "10.0.0.3"}, // 60s idle: expired, next in turn
		{a, 89 * time.Second, true, "10.0.0.1"},  // a failed dial's retry takes the next
	}
	for i, s := range steps {
		ep, err := bal.pick(s.client, t0.Add(s.at), s.reset)
		if err != nil || ep.Addr().String() != s.want {
			t.Errorf("step %d: %v %v, want %s", i, ep, err, s.want)
		}
	}
	// b's session (10.0.0.3) survives the loss of 10.0.0.1; a's does not.
	two := eps("web", subset(8080, "http", []string{"10.0.0.2", "10.0.0.3"}))
	st2 := buildTable([]*api.Service{sticky}, map[string]*api.Endpoints{"ns/web": two}, RoundRobin, st)
	if ep, _ := st2.byService[spn].pick(b, t0.Add(62*time.Second), false); ep.Addr().String() != "10.0.0.3" {
		t.Errorf("b after 10.0.0.1 left: %s, want its 10.0.0.3", ep)
	}
	if ep, _ := st2.byService[spn].pick(a, t0.Add(62*time.Second), false); ep.Addr().String() == "10.0.0.1" {
		t.Errorf("a kept a removed endpoint")
	}

	// Random mode draws with the injected source.
	rnd := buildTable([]*api.Service{svc("web", "10.96.0.1")}, map[string]*api.Endpoints{"ns/web": three}, Random, nil)
	draws := []int{2, 0, 2}
	rnd.byService[spn].rand = func(n int) int { d := draws[0]; draws = draws[1:]; return d }
	seq = nil
	for range 3 {
		ep, _ := rnd.byService[spn].pick(a, t0, false)
		seq = append(seq, ep.Addr().String())
	}
	if fmt.Sprint(seq) != "[10.0.0.3 10.0.0.1 10.0.0.3]" {
		t.Errorf("random: %v", seq)
	}
}
