package cluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
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
