package endpoints

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

func podRef(uid string) *api.ObjectReference { return &api.ObjectReference{UID: api.UID(uid)} }

type ea = api.EndpointAddress
type ep = api.EndpointPort

// Cases ported from kube's pkg/api/v1/endpoints/util_test.go
// (TestPackSubsets). kube compares with SortSubsets(expect), ordered by
// hash; the expectations here are sorted by RepackSubsets' own order
// (repacking them is the identity on a packed, sorted input).
func TestRepackSubsets(t *testing.T) {
	foo := &api.ObjectReference{Name: "foo"}
	bar := &api.ObjectReference{Name: "bar"}
	tests := []struct {
		name   string
		given  []api.EndpointSubset
		expect []api.EndpointSubset
	}{
		{name: "empty everything", given: []api.EndpointSubset{{Addresses: []ea{}, Ports: []ep{}}}},
		{name: "empty addresses", given: []api.EndpointSubset{{Addresses: []ea{}, Ports: []ep{{Port: 111}}}}},
		{name: "empty ports",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}}}},
		{name: "empty ports, not ready",
			given:  []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{}}},
			expect: []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4"}}}}},
		{name: "one set, one ip, one port",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, one ip, one port (IPv6)",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "beef::1:2:3:4"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "beef::1:2:3:4"}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, one notReady ip, one UID, one port",
			given:  []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, two mixed ips, one port",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, NotReadyAddresses: []ea{{IP: "5.6.7.8"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, NotReadyAddresses: []ea{{IP: "5.6.7.8"}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, two duplicate ips, one port, notReady is covered by ready",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, NotReadyAddresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, one ip, two ports",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}, {Port: 222}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}, {Port: 222}}}}},
		{name: "one set, dup ips, one port",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}, {IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, dup ips with target-refs, one port",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4", TargetRef: foo}, {IP: "1.2.3.4", TargetRef: bar}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4", TargetRef: foo}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, dup mixed ips with target-refs, one port",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4", TargetRef: foo}}, NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: bar}},
				Ports: []ep{{Port: 111}}}},
			// The first address met is kept; not ready wins.
			expect: []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: foo}}, Ports: []ep{{Port: 111}}}}},
		{name: "one set, one ip, dup ports",
			given:  []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}, {Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}}},
		{name: "two sets, dup mixed ip, dup port",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{NotReadyAddresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}}},
		{name: "two sets, dup ip, two ports",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}},
				{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 222}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}, {Port: 222}}}}},
		{name: "two sets, dup mixed ip, dup uids, two ports",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 222}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 222}}}}},
		{name: "two set, dup ip, with and without uid, dup ports",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}},
				{Addresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-2")}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}, {IP: "1.2.3.4", TargetRef: podRef("uid-2")}}, Ports: []ep{{Port: 111}}}}},
		{name: "two sets, two mixed ips, two dup ip with uid, dup port, wrong order, ends up with split addresses",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "5.6.7.8"}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "5.6.7.8", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.4", TargetRef: podRef("uid-1")}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "5.6.7.8"}},
				NotReadyAddresses: []ea{{IP: "1.2.3.4"}, {IP: "1.2.3.4", TargetRef: podRef("uid-1")}, {IP: "5.6.7.8", TargetRef: podRef("uid-1")}},
				Ports:             []ep{{Port: 111}}}}},
		{name: "four sets, three ips, three ports, jumbled",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}},
				{Addresses: []ea{{IP: "1.2.3.5"}}, Ports: []ep{{Port: 222}}},
				{Addresses: []ea{{IP: "1.2.3.6"}}, Ports: []ep{{Port: 111}}},
				{Addresses: []ea{{IP: "1.2.3.5"}}, Ports: []ep{{Port: 333}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}, {IP: "1.2.3.6"}}, Ports: []ep{{Port: 111}}},
				{Addresses: []ea{{IP: "1.2.3.5"}}, Ports: []ep{{Port: 222}, {Port: 333}}}}},
		{name: "four sets, three mixed ips, three ports, jumbled",
			given: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.5"}}, Ports: []ep{{Port: 222}}},
				{Addresses: []ea{{IP: "1.2.3.6"}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.5"}}, Ports: []ep{{Port: 333}}}},
			expect: []api.EndpointSubset{{Addresses: []ea{{IP: "1.2.3.4"}, {IP: "1.2.3.6"}}, Ports: []ep{{Port: 111}}},
				{NotReadyAddresses: []ea{{IP: "1.2.3.5"}}, Ports: []ep{{Port: 222}, {Port: 333}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RepackSubsets(tt.given)
			want := RepackSubsets(tt.expect)
			require.Equal(t, len(tt.expect), len(want), "the expectation is packed")
			require.Equal(t, want, got)
			// The expectation, in whatever order kube lists it, is what
			// came out (up to order).
			require.ElementsMatch(t, tt.expect, got)
		})
	}
}
