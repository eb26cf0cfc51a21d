package cluster

import (
	"context"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// The service address ranges (kube-apiserver's --service-cluster-ip-range
// default 10.96.0.0/12, narrowed here to a /16, and
// --service-node-port-range default 30000-32767).
var serviceCIDR = netip.MustParsePrefix("10.96.0.0/16")

const (
	// NodePortMin and NodePortMax bound the node ports the cluster
	// allocates and accepts.
	NodePortMin = 30000
	NodePortMax = 32767
)

// allocateServiceAddresses gives a new service its cluster IP (unless
// headless or ExternalName) and node ports (NodePort and LoadBalancer
// types), checking requested ones. Unlike kube-apiserver's random
// allocators, it picks the lowest free address, so tests can predict it.
// The caller holds c.allocMu, which serializes service creates within
// this Cluster value (several Cluster values over one etcd may collide:
// the allocation is not stored as its own object, as Kubernetes'
// IPAddress objects are).
func (c *Cluster) allocateServiceAddresses(ctx context.Context, svc *api.Service) error {
	l, err := c.services.s.List(ctx, source.ListOptions{})
	if err != nil {
		return fmt.Errorf("cluster: create services %q: list services: %w", api.Key(svc), err)
	}
	usedIPs := map[netip.Addr]bool{}
	usedPorts := map[int32]bool{}
	for _, s := range l.Items {
		if ip, err := netip.ParseAddr(s.Spec.ClusterIP); err == nil {
			usedIPs[ip] = true
		}
		for _, p := range s.Spec.Ports {
			if p.NodePort != 0 {
				usedPorts[p.NodePort] = true
			}
		}
	}
	var fs fieldErrors
	sp := &svc.Spec
	switch {
	case sp.Type == api.ServiceTypeExternalName || sp.ClusterIP == api.ClusterIPNone:
	case sp.ClusterIP == "":
		ip := serviceCIDR.Addr().Next()
		for serviceCIDR.Contains(ip) && usedIPs[ip] {
			ip = ip.Next()
		}
		if !serviceCIDR.Contains(ip) {
			return fmt.Errorf("cluster: create services %q: no free cluster IP in %s: %w", api.Key(svc), serviceCIDR, ErrForbidden)
		}
		sp.ClusterIP = ip.String()
	default:
		ip, err := netip.ParseAddr(sp.ClusterIP)
		switch {
		case err != nil:
			fs.invalid("spec.clusterIP", sp.ClusterIP, "must be a valid IP address")
		case !serviceCIDR.Contains(ip):
			fs.invalid("spec.clusterIP", sp.ClusterIP, "provided IP is not in the valid range "+serviceCIDR.String())
		case usedIPs[ip]:
			fs.invalid("spec.clusterIP", sp.ClusterIP, "provided IP is already allocated")
		}
	}
	if sp.ClusterIP != "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if sp.Type == api.ServiceTypeNodePort || sp.Type == api.ServiceTypeLoadBalancer {
		next := int32(NodePortMin)
		for i := range sp.Ports {
			p := &sp.Ports[i]
			path := fmt.Sprintf("spec.ports[%d].nodePort", i)
			switch {
			case p.NodePort == 0:
				for next <= NodePortMax && usedPorts[next] {
					next++
				}
				if next > NodePortMax {
					return fmt.Errorf("cluster: create services %q: no free node port: %w", api.Key(svc), ErrForbidden)
				}
				p.NodePort = next
			case p.NodePort < NodePortMin || p.NodePort > NodePortMax:
				fs.invalid(path, strconv.Itoa(int(p.NodePort)), fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", NodePortMin, NodePortMax))
			case usedPorts[p.NodePort]:
				fs.invalid(path, strconv.Itoa(int(p.NodePort)), "provided port is already allocated")
			}
			usedPorts[p.NodePort] = true
		}
	} else {
		for i, p := range sp.Ports {
			if p.NodePort != 0 {
				fs.forbidden(fmt.Sprintf("spec.ports[%d].nodePort", i), "may not be used when `type` is '"+string(sp.Type)+"'")
			}
		}
	}
	return fs.err("services", svc.Name)
}
