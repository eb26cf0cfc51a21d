package dns

import (
	"cmp"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ErrNotFound is wrapped by the error of a lookup whose name has no
// record of the asked type (NXDOMAIN, or no data).
var ErrNotFound = errors.New("dns: no such host")

// SRV is one SRV record, as net.SRV.
type SRV struct {
	// Target is the fully qualified name the record points to, with a
	// trailing dot.
	Target string
	// Port is the port of the service there.
	Port uint16
	// Priority and Weight are 0 and 100 / (number of records) as
	// CoreDNS's kubernetes plugin answers (equal weights).
	Priority, Weight uint16
}

// view is what the resolver reads: the services and endpoints caches.
type view struct {
	service   func(key string) (*api.Service, bool)
	endpoints func(key string) (*api.Endpoints, bool)
}

// query is a name under the cluster domain, split: [hostname.]service.namespace.svc.
type query struct {
	host, service, namespace string
	port, proto              string // SRV: _port._proto.
}

// parse splits a fully qualified name under zone ("cluster.local").
func parse(name, zone string) (query, bool) {
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	suffix := ".svc." + zone
	if !strings.HasSuffix(name, suffix) {
		return query{}, false
	}
	labels := strings.Split(strings.TrimSuffix(name, suffix), ".")
	var q query
	if len(labels) == 4 && strings.HasPrefix(labels[0], "_") && strings.HasPrefix(labels[1], "_") {
		q.port, q.proto = labels[0][1:], labels[1][1:]
		labels = labels[2:]
	}
	switch len(labels) {
	case 2:
		q.service, q.namespace = labels[0], labels[1]
	case 3:
		if q.port != "" {
			return query{}, false
		}
		q.host, q.service, q.namespace = labels[0], labels[1], labels[2]
	default:
		return query{}, false
	}
	return q, q.service != "" && q.namespace != ""
}

// fqdn of service (and host, if set) under zone, with a trailing dot.
func fqdn(host, service, namespace, zone string) string {
	if host != "" {
		return fmt.Sprintf("%s.%s.%s.svc.%s.", host, service, namespace, zone)
	}
	return fmt.Sprintf("%s.%s.svc.%s.", service, namespace, zone)
}

// lookupHost answers A queries (the Kubernetes DNS specification,
// records for services): a ClusterIP service's name is its cluster IP; a
// headless service's name is the IPs of its ready endpoints, and
// hostname.service its ready endpoint of that hostname.
func (v view) lookupHost(name, zone string) ([]netip.Addr, error) {
	q, ok := parse(name, zone)
	if !ok || q.port != "" {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	svc, ok := v.service(q.namespace + "/" + q.service)
	if !ok || svc.Spec.Type == api.ServiceTypeExternalName {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	if !isHeadless(svc) {
		if q.host != "" {
			return nil, fmt.Errorf("%w: %s (hostnames are served for headless services only)", ErrNotFound, name)
		}
		ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err != nil {
			return nil, fmt.Errorf("%w: %s (no cluster IP yet)", ErrNotFound, name)
		}
		return []netip.Addr{ip}, nil
	}
	var out []netip.Addr
	for _, a := range v.readyAddresses(svc) {
		if q.host != "" && a.hostname != q.host {
			continue
		}
		out = append(out, a.ip)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	slices.SortFunc(out, netip.Addr.Compare)
	return slices.Compact(out), nil
}

// lookupSRV answers _port._proto.service.namespace.svc.zone: for a
// ClusterIP service one record to the service's name and port; for a
// headless one a record per ready endpoint serving the named port, to
// its hostname (or, without one, its dashed IP) under the service.
func (v view) lookupSRV(name, zone string) ([]SRV, error) {
	q, ok := parse(name, zone)
	if !ok || q.port == "" {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	svc, ok := v.service(q.namespace + "/" + q.service)
	if !ok || svc.Spec.Type == api.ServiceTypeExternalName {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	var out []SRV
	if !isHeadless(svc) {
		for _, p := range svc.Spec.Ports {
			if p.Name != "" && p.Name == q.port && strings.EqualFold(string(cmp.Or(p.Protocol, api.ProtocolTCP)), q.proto) {
				out = append(out, SRV{Target: fqdn("", svc.Name, svc.Namespace, zone), Port: uint16(p.Port)})
			}
		}
	} else {
		for _, a := range v.readyAddresses(svc) {
			for _, p := range a.ports {
				if p.Name != "" && p.Name == q.port && strings.EqualFold(string(cmp.Or(p.Protocol, api.ProtocolTCP)), q.proto) {
					host := a.hostname
					if host == "" {
						host = strings.ReplaceAll(a.ip.String(), ".", "-")
					}
					out = append(out, SRV{Target: fqdn(host, svc.Name, svc.Namespace, zone), Port: uint16(p.Port)})
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	slices.SortFunc(out, func(a, b SRV) int { return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Port, b.Port)) })
	out = slices.Compact(out)
	for i := range out {
		out[i].Weight = uint16(100 / len(out))
	}
	return out, nil
}

// lookupCNAME answers an ExternalName service's name with its
// externalName.
func (v view) lookupCNAME(name, zone string) (string, error) {
	q, ok := parse(name, zone)
	if !ok || q.port != "" || q.host != "" {
		return "", fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	svc, ok := v.service(q.namespace + "/" + q.service)
	if !ok || svc.Spec.Type != api.ServiceTypeExternalName || svc.Spec.ExternalName == "" {
		return "", fmt.Errorf("%w: %s", ErrNotFound, name)
	}
	return strings.TrimSuffix(svc.Spec.ExternalName, ".") + ".", nil
}

func isHeadless(svc *api.Service) bool { return svc.Spec.ClusterIP == api.ClusterIPNone }

type address struct {
	ip       netip.Addr
	hostname string
	ports    []api.EndpointPort
}

// readyAddresses lists the ready addresses of svc's Endpoints (with
// publishNotReadyAddresses the endpoints controller lists them all as
// ready).
func (v view) readyAddresses(svc *api.Service) []address {
	ep, ok := v.endpoints(api.Key(svc))
	if !ok {
		return nil
	}
	var out []address
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			ip, err := netip.ParseAddr(a.IP)
			if err != nil {
				continue
			}
			out = append(out, address{ip: ip, hostname: strings.ToLower(a.Hostname), ports: s.Ports})
		}
	}
	return out
}
