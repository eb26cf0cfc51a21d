package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Service address allocation: kube-apiserver's ClusterIP and NodePort
// allocators, as admission on service creates.
//
// Where the state lives. kube-apiserver keeps a bitmap of taken
// addresses in a stored RangeAllocation object (and, since 1.31, one
// IPAddress object per cluster IP) and repairs it periodically from the
// services. Here the stored services are the allocation state: every
// allocation lists them from the store (the backend's storage, so etcd
// with the etcd backend) under Cluster.allocMu, and picks an address no
// stored service holds. That makes the state survive a control-plane
// restart on a persistent backend with nothing to repair, and a deleted
// service's addresses free at once (a service being deleted gracefully
// still holds them until it is gone). The lock serializes the allocation
// with the create that takes the addresses, within one Cluster value;
// several Cluster values writing to one etcd are not serialized with each
// other (left out, see the package documentation).
//
// Which address. kube-apiserver picks at random (from the upper part of
// the range first, keeping the lower part for static requests). Here the
// lowest free address (and the lowest free node port) is taken, so that
// tests and examples can predict it: the first service of a cluster gets
// 10.96.0.1, the address kube-apiserver reserves for the "kubernetes"
// service. A requested address or port is honoured if it is in the range
// and free, and refused as invalid otherwise.

// DefaultServiceCIDR is the default service cluster IP range:
// kube-apiserver's --service-cluster-ip-range default.
var DefaultServiceCIDR = netip.MustParsePrefix("10.96.0.0/12")

const (
	// NodePortMin and NodePortMax bound the default node port range:
	// kube-apiserver's --service-node-port-range default 30000-32767.
	NodePortMin = 30000
	NodePortMax = 32767
)

// ErrRangeFull is wrapped (with ErrForbidden) by the error of a service
// create that needs an address or a node port when every one of its
// range is taken: kube-apiserver's "range is full".
var ErrRangeFull = errors.New("range is full")

// PortRange is an inclusive range of ports, as
// --service-node-port-range "30000-32767" gives it.
type PortRange struct {
	// Min is the lowest port of the range.
	Min int32
	// Max is the highest port of the range, at least Min.
	Max int32
}

// String returns r as "min-max".
func (r PortRange) String() string { return fmt.Sprintf("%d-%d", r.Min, r.Max) }

// Contains reports whether port is in r.
func (r PortRange) Contains(port int32) bool { return port >= r.Min && port <= r.Max }

// validateServiceRanges fills the defaults of ServiceCIDR and
// NodePortRange and checks them.
func (o *Options) validateServiceRanges() error {
	if !o.ServiceCIDR.IsValid() {
		o.ServiceCIDR = DefaultServiceCIDR
	}
	p := o.ServiceCIDR
	switch {
	case !p.Addr().Is4():
		return fmt.Errorf("cluster: Options.ServiceCIDR %s is not IPv4 (dual stack is left out)", p)
	case p.Bits() > 30:
		return fmt.Errorf("cluster: Options.ServiceCIDR %s has no room for a service (at most /30)", p)
	case p.Masked() != p:
		return fmt.Errorf("cluster: Options.ServiceCIDR %s has host bits set (want %s)", p, p.Masked())
	}
	if o.NodePortRange == (PortRange{}) {
		o.NodePortRange = PortRange{Min: NodePortMin, Max: NodePortMax}
	}
	if r := o.NodePortRange; r.Min < 1 || r.Max > 65535 || r.Min > r.Max {
		return fmt.Errorf("cluster: Options.NodePortRange %s is not a range of ports", r)
	}
	return nil
}

// ServiceCIDR returns the range c allocates cluster IPs from.
func (c *Cluster) ServiceCIDR() netip.Prefix { return c.opts.ServiceCIDR }

// NodePortRange returns the range c allocates node ports from.
func (c *Cluster) NodePortRange() PortRange { return c.opts.NodePortRange }

// serviceIPRange is the usable part of a service CIDR: its network and
// broadcast addresses are never allocated, as kube-apiserver's.
type serviceIPRange struct{ first, last netip.Addr }

func ipRangeOf(p netip.Prefix) serviceIPRange {
	first := p.Addr()
	b := first.As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]) | host
	last := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	return serviceIPRange{first: first.Next(), last: last.Prev()}
}

func (r serviceIPRange) contains(ip netip.Addr) bool {
	return ip.Is4() && r.first.Compare(ip) <= 0 && ip.Compare(r.last) <= 0
}

func (r serviceIPRange) String() string { return r.first.String() + "-" + r.last.String() }

// allocateServiceAddresses gives a new service its cluster IP (unless
// headless or ExternalName) and node ports (NodePort and LoadBalancer
// types), checking requested ones against the services already stored.
// The caller holds c.allocMu.
func (c *Cluster) allocateServiceAddresses(ctx context.Context, svc *api.Service) error {
	l, err := storeOf[*api.Service](c).s.List(ctx, source.ListOptions{})
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
	ips := ipRangeOf(c.opts.ServiceCIDR)
	ports := c.opts.NodePortRange
	var fs fieldErrors
	sp := &svc.Spec
	switch {
	case sp.Type == api.ServiceTypeExternalName || sp.ClusterIP == api.ClusterIPNone:
	case sp.ClusterIP == "":
		ip := ips.first
		for ips.contains(ip) && usedIPs[ip] {
			ip = ip.Next()
		}
		if !ips.contains(ip) {
			return fmt.Errorf("cluster: create services %q: failed to allocate a serviceIP in %s: %w: %w", api.Key(svc), c.opts.ServiceCIDR, ErrRangeFull, ErrForbidden)
		}
		sp.ClusterIP = ip.String()
	default:
		ip, err := netip.ParseAddr(sp.ClusterIP)
		switch {
		case err != nil:
			fs.invalid("spec.clusterIP", sp.ClusterIP, "must be a valid IP address")
		case !ips.contains(ip):
			fs.invalid("spec.clusterIP", sp.ClusterIP, "provided IP is not in the valid range. The range of valid IPs is "+c.opts.ServiceCIDR.String())
		case usedIPs[ip]:
			fs.invalid("spec.clusterIP", sp.ClusterIP, "provided IP is already allocated")
		}
	}
	if sp.ClusterIP != "" && len(sp.ClusterIPs) == 0 {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if sp.Type == api.ServiceTypeNodePort || sp.Type == api.ServiceTypeLoadBalancer {
		// Requested ports first, so that an automatic one never takes a
		// port a later entry of the same service asks for.
		for i, p := range sp.Ports {
			if p.NodePort == 0 {
				continue
			}
			path := fmt.Sprintf("spec.ports[%d].nodePort", i)
			switch {
			case !ports.Contains(p.NodePort):
				fs.invalid(path, strconv.Itoa(int(p.NodePort)), "provided port is not in the valid range. The range of valid ports is "+ports.String())
			case usedPorts[p.NodePort]:
				fs.invalid(path, strconv.Itoa(int(p.NodePort)), "provided port is already allocated")
			}
			usedPorts[p.NodePort] = true
		}
		next := ports.Min
		for i := range sp.Ports {
			p := &sp.Ports[i]
			if p.NodePort != 0 {
				continue
			}
			for next <= ports.Max && usedPorts[next] {
				next++
			}
			if next > ports.Max {
				return fmt.Errorf("cluster: create services %q: failed to allocate a nodePort in %s: %w: %w", api.Key(svc), ports, ErrRangeFull, ErrForbidden)
			}
			p.NodePort = next
			usedPorts[next] = true
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
