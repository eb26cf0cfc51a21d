package endpointslicemirroring

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func port(name string, p int32, proto api.Protocol) api.EndpointPort {
	return api.EndpointPort{Name: name, Port: p, Protocol: proto}
}

func addrs(ips ...string) []api.EndpointAddress {
	var out []api.EndpointAddress
	for i, ip := range ips {
		out = append(out, api.EndpointAddress{IP: ip, Hostname: fmt.Sprintf("pod-%d", i+1)})
	}
	return out
}

func slicePort(name string, p int32, proto api.Protocol) api.EndpointSlicePort {
	return api.EndpointSlicePort{Name: &name, Port: &p, Protocol: &proto}
}

func readyEndpoint(ip, host string) api.Endpoint {
	yes := true
	return api.Endpoint{Addresses: []string{ip}, Hostname: &host, Conditions: api.EndpointConditions{Ready: &yes}}
}

func onNode(e api.Endpoint, node string) api.Endpoint { e.NodeName = &node; return e }

func existingSlice(name string, ports []api.EndpointSlicePort, eps ...api.Endpoint) *api.EndpointSlice {
	s := &api.EndpointSlice{AddressType: api.AddressTypeIPv4, Ports: ports, Endpoints: eps}
	s.Namespace, s.Name = "test", name
	return s
}

// After pkg/controller/endpointslicemirroring/reconciler_test.go
// TestReconcile: the number of slices after the sync and the writes it
// takes, and (expectEndpointSlices) every slice mirrors its Endpoints.
func TestReconcile(t *testing.T) {
	tcp, udp := api.ProtocolTCP, api.ProtocolUDP
	http := []api.EndpointPort{port("http", 80, tcp)}
	httpSlice := []api.EndpointSlicePort{slicePort("http", 80, tcp)}
	multi := []api.EndpointPort{port("http", 80, tcp), port("https", 443, udp)}
	multi2 := []api.EndpointPort{port("dns-udp", 53, udp), port("dns-tcp", 53, tcp)}
	const uid = "d8f2c1f6-5285-4b3c-b3c1-9b89f9e7ed7a"
	owned := func(s *api.EndpointSlice, uid api.UID) *api.EndpointSlice {
		s.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Endpoints", Name: "test-ep", UID: uid}}
		return s
	}
	withAnn := func(s *api.EndpointSlice, ann map[string]string) *api.EndpointSlice { s.Annotations = ann; return s }
	cases := []struct {
		name       string
		subsets    []api.EndpointSubset
		labels     map[string]string
		ann        map[string]string
		uid        api.UID
		deleting   bool
		max        int
		existing   []*api.EndpointSlice
		wantSlices int
		wantWrites int
		wantEvents [2]int // invalid, skipped
	}{
		{name: "Endpoints with no subsets"},
		{name: "Endpoints with no addresses", subsets: []api.EndpointSubset{{Ports: http}}},
		{name: "Endpoints with 1 subset, port, and address",
			subsets: []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}}, wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 2 subset, different port and address",
			subsets: []api.EndpointSubset{
				{Ports: http, Addresses: addrs("10.0.0.1")},
				{Ports: []api.EndpointPort{port("https", 443, tcp)}, Addresses: addrs("10.0.0.2")},
			}, wantSlices: 2, wantWrites: 2},
		{name: "Endpoints with 2 subset, different port and same address",
			subsets: []api.EndpointSubset{
				{Ports: http, Addresses: addrs("10.0.0.1")},
				{Ports: []api.EndpointPort{port("https", 443, tcp)}, Addresses: addrs("10.0.0.1")},
			}, wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 2 subset, different address and same port",
			subsets: []api.EndpointSubset{
				{Ports: http, Addresses: addrs("10.0.0.1")},
				{Ports: http, Addresses: []api.EndpointAddress{{IP: "10.0.0.2", Hostname: "pod-2"}}},
			}, wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 1 subset, port, and address, pending deletion", deleting: true,
			subsets: []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}}},
		{name: "Endpoints with 1 subset, port, and address and existing slice with same fields", uid: uid,
			subsets:    []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}},
			existing:   []*api.EndpointSlice{owned(existingSlice("test-ep-1", httpSlice, readyEndpoint("10.0.0.1", "pod-1")), uid)},
			wantSlices: 1},
		{name: "Endpoints with 1 subset, port, and address and existing slice with same fields but different OwnerReferences", uid: uid,
			subsets:    []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}},
			existing:   []*api.EndpointSlice{owned(existingSlice("test-ep-1", httpSlice, readyEndpoint("10.0.0.1", "pod-1")), "fb91e798-1875-4857-b5eb-e2c878157b4d")},
			wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 1 subset, port, and address and existing slice with an additional annotation",
			subsets:    []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}},
			existing:   []*api.EndpointSlice{withAnn(existingSlice("test-ep-1", httpSlice, readyEndpoint("10.0.0.1", "pod-1")), map[string]string{"foo": "bar"})},
			wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 1 subset, port, label and address and existing slice with same fields but the label",
			labels:     map[string]string{"foo": "bar"},
			subsets:    []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}},
			existing:   []*api.EndpointSlice{withAnn(existingSlice("test-ep-1", httpSlice, readyEndpoint("10.0.0.1", "pod-1")), map[string]string{"foo": "bar"})},
			wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 1 subset, 2 ports, and 2 addresses",
			subsets: []api.EndpointSubset{{Ports: multi, Addresses: addrs("10.0.0.1", "10.0.0.2")}}, wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 1 subset, 2 ports, and 2 not ready addresses",
			subsets: []api.EndpointSubset{{Ports: multi, NotReadyAddresses: addrs("10.0.0.1", "10.0.0.2")}}, wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 1 subset, 2 ports, and 2 ready and 2 not ready addresses",
			subsets:    []api.EndpointSubset{{Ports: multi, Addresses: addrs("10.1.1.1", "10.1.1.2"), NotReadyAddresses: addrs("10.0.0.1", "10.0.0.2")}},
			wantSlices: 1, wantWrites: 1},
		{name: "Endpoints with 2 subsets, multiple ports and addresses",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("10.0.0.1", "10.0.0.2")},
				{Ports: multi2, Addresses: addrs("10.0.1.1", "10.0.1.2", "10.0.1.3")},
			}, wantSlices: 2, wantWrites: 2},
		{name: "Endpoints with 2 subsets, multiple ports and addresses, existing empty EndpointSlice",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("10.0.0.1", "10.0.0.2")},
				{Ports: multi2, Addresses: addrs("10.0.1.1", "10.0.1.2", "10.0.1.3")},
			},
			existing:   []*api.EndpointSlice{existingSlice("test-ep-1", []api.EndpointSlicePort{slicePort("http", 80, tcp), slicePort("https", 443, udp)})},
			wantSlices: 2, wantWrites: 2},
		{name: "Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice with some addresses",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("10.0.0.1", "10.0.0.2")},
				{Ports: multi2, Addresses: addrs("10.0.1.1", "10.0.1.2", "10.0.1.3")},
			},
			existing: []*api.EndpointSlice{existingSlice("test-ep-1", []api.EndpointSlicePort{slicePort("http", 80, tcp), slicePort("https", 443, udp)},
				api.Endpoint{Addresses: []string{"10.0.0.2"}, Hostname: new("pod-2")},
				api.Endpoint{Addresses: []string{"10.0.0.1", "10.0.0.3"}, Hostname: new("pod-1")})},
			wantSlices: 2, wantWrites: 2},
		{name: "Endpoints with 2 subsets, multiple ports and addresses, existing EndpointSlice identical to subset",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: []api.EndpointAddress{
					{IP: "10.0.0.1", Hostname: "pod-1", NodeName: new("node-1")},
					{IP: "10.0.0.2", Hostname: "pod-2", NodeName: new("node-2")},
				}},
				{Ports: multi2, Addresses: addrs("10.0.1.1", "10.0.1.2", "10.0.1.3")},
			},
			existing: []*api.EndpointSlice{existingSlice("test-ep-1", []api.EndpointSlicePort{slicePort("http", 80, tcp), slicePort("https", 443, udp)},
				onNode(readyEndpoint("10.0.0.1", "pod-1"), "node-1"), onNode(readyEndpoint("10.0.0.2", "pod-2"), "node-2"))},
			wantSlices: 2, wantWrites: 1},
		{name: "Endpoints with 2 subsets, multiple ports, and dual stack addresses",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("2001:db8:2222:3333:4444:5555:6666:7777", "10.0.0.2")},
				{Ports: multi2, Addresses: addrs("10.0.1.1", "2001:db8:3333:4444:5555:6666:7777:8888", "10.0.1.3")},
			}, wantSlices: 4, wantWrites: 4},
		{name: "Endpoints with 2 subsets, multiple ports, ipv6 only addresses",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("2001:db8:1111:3333:4444:5555:6666:7777", "2001:db8:2222:3333:4444:5555:6666:7777")},
				{Ports: multi2, Addresses: addrs("2001:db8:3333:3333:4444:5555:6666:7777", "2001:db8:4444:3333:4444:5555:6666:7777", "2001:db8:5555:3333:4444:5555:6666:7777")},
			}, wantSlices: 2, wantWrites: 2},
		{name: "Endpoints with 2 subsets, multiple ports, some invalid addresses",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("2001:db8:1111:3333:4444:5555:6666:7777", "this-is-not-an-ip")},
				{Ports: multi2, Addresses: addrs("this-is-also-not-an-ip", "2001:db8:4444:3333:4444:5555:6666:7777", "2001:db8:5555:3333:4444:5555:6666:7777")},
			}, wantSlices: 2, wantWrites: 2, wantEvents: [2]int{2, 2}},
		{name: "Endpoints with 2 subsets, multiple ports, all invalid addresses",
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("this-is-not-an-ip1", "this-is-not-an-ip12")},
				{Ports: multi2, Addresses: addrs("this-is-not-an-ip11", "this-is-not-an-ip12", "this-is-not-an-ip3")},
			}, wantEvents: [2]int{5, 5}},
		{name: "Endpoints with 2 subsets, 1 exceeding maxEndpointsPerSubset", max: 2,
			subsets: []api.EndpointSubset{
				{Ports: multi, Addresses: addrs("10.0.0.1", "10.0.0.2")},
				{Ports: multi2, Addresses: addrs("10.0.1.1", "10.0.1.2", "10.0.1.3")},
			}, wantSlices: 2, wantWrites: 2, wantEvents: [2]int{0, 1}},
		{name: "The last-applied-configuration annotation should not get mirrored to created or updated endpoint slices",
			ann:     map[string]string{annotationLastApplied: "{}"},
			subsets: []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}}, wantSlices: 1, wantWrites: 1},
		{name: "Annotations other than last-applied-configuration should get correctly mirrored",
			ann:     map[string]string{annotationLastApplied: "{}", "foo": "bar", annotationLastChangeTriggerTime: "2026-01-01T00:00:00Z"},
			subsets: []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}}, wantSlices: 1, wantWrites: 1},
		{name: "Annotation mirroring should remove the last-applied-configuration annotation from existing endpoint slices",
			subsets:    []api.EndpointSubset{{Ports: http, Addresses: addrs("10.0.0.1")}},
			existing:   []*api.EndpointSlice{withAnn(existingSlice("test-ep-1", httpSlice, readyEndpoint("10.0.0.1", "pod-1")), map[string]string{annotationLastApplied: "{}"})},
			wantSlices: 1, wantWrites: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ep := &api.Endpoints{Subsets: tc.subsets}
			ep.Namespace, ep.Name, ep.UID, ep.Labels, ep.Annotations = "test", "test-ep", tc.uid, tc.labels, tc.ann
			if tc.deleting {
				now := api.NewTime(t0)
				ep.DeletionTimestamp = &now
			}
			store := map[string]*api.EndpointSlice{}
			for _, s := range tc.existing {
				s.Labels = map[string]string{api.LabelServiceName: ep.Name, LabelManagedBy: ControllerName}
				store[s.Name] = s
			}
			max := tc.max
			if max == 0 {
				max = DefaultMaxEndpointsPerSubset
			}
			p := reconciler{maxPerSubset: max}.reconcile(ep, tc.existing)
			if got := len(p.create) + len(p.update) + len(p.delete); got != tc.wantWrites {
				t.Fatalf("%d writes (create %d, update %d, delete %d), want %d", got, len(p.create), len(p.update), len(p.delete), tc.wantWrites)
			}
			if [2]int{p.invalid, p.skipped} != tc.wantEvents {
				t.Errorf("invalid, skipped = %d, %d; want %v", p.invalid, p.skipped, tc.wantEvents)
			}
			for _, s := range p.update {
				if _, ok := store[s.Name]; !ok {
					t.Fatalf("update of a slice that does not exist: %s", s.Name)
				}
				store[s.Name] = s
			}
			for _, s := range p.delete {
				delete(store, s.Name)
			}
			for i, s := range p.create {
				if s.Name != "" || s.GenerateName != "test-ep-" {
					t.Fatalf("create named %q, generateName %q", s.Name, s.GenerateName)
				}
				store[fmt.Sprintf("created-%d", i)] = s
			}
			if len(store) != tc.wantSlices {
				t.Fatalf("%d slices, want %d", len(store), tc.wantSlices)
			}
			if tc.wantSlices > 0 {
				written := map[*api.EndpointSlice]bool{}
				for _, s := range slices.Concat(p.create, p.update) {
					written[s] = true
				}
				expectMirrors(t, ep, slices.Collect(maps.Values(store)), written, max)
			}
		})
	}
}

// expectMirrors is expectEndpointSlices: each slice is labelled, owned
// and annotated after the Endpoints, and the slices hold exactly the
// valid addresses (at most max per subset), ready or not as listed.
func expectMirrors(t *testing.T, ep *api.Endpoints, got []*api.EndpointSlice, written map[*api.EndpointSlice]bool, max int) {
	t.Helper()
	want := map[string]bool{}
	for _, ss := range ep.Subsets {
		n := 0
		for _, list := range []struct {
			a     []api.EndpointAddress
			ready bool
		}{{ss.Addresses, true}, {ss.NotReadyAddresses, false}} {
			for _, a := range list.a {
				if _, _, ok := addressToEndpoint(a, true); ok && n < max {
					want[fmt.Sprint(a.IP, list.ready)] = true
					n++
				}
			}
		}
	}
	have := map[string]bool{}
	for _, s := range got {
		if s.Labels[api.LabelServiceName] != ep.Name || s.Labels[LabelManagedBy] != ControllerName {
			t.Errorf("slice %s labels %v", s.Name, s.Labels)
		}
		for k, v := range ep.Labels {
			if s.Labels[k] != v {
				t.Errorf("slice %s lacks label %s", s.Name, k)
			}
		}
		if _, ok := s.Annotations[annotationLastApplied]; ok {
			t.Errorf("slice %s has %s", s.Name, annotationLastApplied)
		}
		if _, ok := s.Annotations[annotationLastChangeTriggerTime]; ok {
			t.Errorf("slice %s has %s", s.Name, annotationLastChangeTriggerTime)
		}
		if ep.Annotations["foo"] != "" && s.Annotations["foo"] != ep.Annotations["foo"] {
			t.Errorf("slice %s annotations %v", s.Name, s.Annotations)
		}
		if len(s.Endpoints) > max {
			t.Errorf("slice %s holds %d endpoints, more than %d", s.Name, len(s.Endpoints), max)
		}
		if o := s.OwnerReferences; written[s] && (len(o) != 1 || o[0].Kind != "Endpoints" || o[0].Name != ep.Name || o[0].UID != ep.UID) {
			t.Errorf("slice %s owners %+v", s.Name, o)
		}
		for _, e := range s.Endpoints {
			have[fmt.Sprint(e.Addresses[0], *e.Conditions.Ready)] = true
		}
	}
	if !maps.Equal(have, want) {
		t.Errorf("mirrored %v, want %v", have, want)
	}
}
