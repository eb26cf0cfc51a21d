package proxy

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// ServicePortName names one port of one service, as kube-proxy's
// proxy.ServicePortName: "namespace/name:port" ("namespace/name" for an
// unnamed port).
type ServicePortName struct {
	// Namespace and Name of the service.
	Namespace, Name string
	// Port is the service port's name, "" for an unnamed one.
	Port string
	// Protocol of the port.
	Protocol api.Protocol
}

// String returns "namespace/name:port".
func (n ServicePortName) String() string {
	if n.Port == "" {
		return n.Namespace + "/" + n.Name
	}
	return n.Namespace + "/" + n.Name + ":" + n.Port
}

// Mode says how Lookup picks one of a service port's endpoints.
type Mode int

const (
	// RoundRobin takes the endpoints in turn, as the userspace mode's
	// LoadBalancerRR. The default.
	RoundRobin Mode = iota
	// Random takes one at random with equal probability, as the
	// iptables mode's statistic rules.
	Random
)

// DefaultAffinityTimeout is how long a ClientIP session sticks without
// traffic: core/v1's default timeoutSeconds, 10800 (3 hours).
const DefaultAffinityTimeout = 10800 * time.Second

// Errors of Lookup.
var (
	// ErrNoService: no rule matches the address (no service has it).
	ErrNoService = errors.New("proxy: no service at this address")
	// ErrNoEndpoints: the service has no ready endpoint; kube-proxy's
	// iptables mode rejects such connections.
	ErrNoEndpoints = errors.New("proxy: service has no endpoints")
)

// Rule is one row of the rules table: where a service port is reached
// (its cluster IP, external IPs and node port) and where it leads.
type Rule struct {
	// Service is the service port.
	Service ServicePortName
	// ClusterIP is the service's cluster IP and port.
	ClusterIP netip.AddrPort
	// ExternalIPs also lead to the service.
	ExternalIPs []netip.AddrPort
	// NodePort is the service's node port, 0 if none: any node address
	// with this port leads to the service.
	NodePort uint16
	// Endpoints are the ready endpoints, sorted.
	Endpoints []netip.AddrPort
	// Affinity is the ClientIP session timeout, 0 without session
	// affinity.
	Affinity time.Duration
}

// table is one applied state of the rules: built by buildTable from
// services and endpoints, then read-only but for each service port's
// balancer.
type table struct {
	rules     []Rule                        // sorted by service
	byIP      map[dest]*balancer            // cluster and external IP:port
	byNode    map[nodeDest]*balancer        // node port
	byService map[ServicePortName]*balancer // every rule
}

type dest struct {
	addr  netip.AddrPort
	proto api.Protocol
}

type nodeDest struct {
	port  uint16
	proto api.Protocol
}

// balancer picks endpoints for one service port. Its rule never changes;
// its cursor and sticky sessions do, under mu. A rebuilt table keeps the
// previous balancer of a service port whose rule did not change, so the
// rotation and the sessions carry on; a changed rule starts afresh (as
// kube-proxy's userspace LoadBalancerRR resets on new endpoints).
type balancer struct {
	rule Rule
	mode Mode

	mu       sync.Mutex
	next     int                    // round-robin cursor
	sessions map[netip.Addr]session // ClientIP affinity
	rand     func(n int) int        // rand.IntN, replaceable in tests
}

// sessionsTo copies b's sessions to endpoints still in eps: a client
// whose backend stayed keeps it (removeSessionAffinityByEndpoint).
func (b *balancer) sessionsTo(eps []netip.AddrPort) map[netip.Addr]session {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out map[netip.Addr]session
	for c, s := range b.sessions {
		if _, found := slices.BinarySearchFunc(eps, s.endpoint, netip.AddrPort.Compare); found {
			if out == nil {
				out = map[netip.Addr]session{}
			}
			out[c] = s
		}
	}
	return out
}

type session struct {
	endpoint netip.AddrPort
	last     time.Time
}

// pick returns an endpoint for a connection from client at now: the
// client's live session's endpoint with ClientIP affinity, else the next
// in turn (RoundRobin) or one at random (Random). reset drops the
// client's session first (a retry after a failed dial).
func (b *balancer) pick(client netip.Addr, now time.Time, reset bool) (netip.AddrPort, error) {
	eps := b.rule.Endpoints
	if len(eps) == 0 {
		return netip.AddrPort{}, fmt.Errorf("%w: %s", ErrNoEndpoints, b.rule.Service)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.rule.Affinity > 0 && client.IsValid() {
		if s, ok := b.sessions[client]; ok && !reset && now.Sub(s.last) < b.rule.Affinity {
			s.last = now
			b.sessions[client] = s
			return s.endpoint, nil
		}
	}
	var ep netip.AddrPort
	if b.mode == Random {
		ep = eps[b.rand(len(eps))]
	} else {
		ep = eps[b.next%len(eps)]
		b.next = (b.next + 1) % len(eps)
	}
	if b.rule.Affinity > 0 && client.IsValid() {
		if b.sessions == nil {
			b.sessions = map[netip.Addr]session{}
		}
		// Expired sessions go when a new one is made (kube-proxy's
		// userspace mode cleans them up periodically).
		for c, s := range b.sessions {
			if now.Sub(s.last) >= b.rule.Affinity {
				delete(b.sessions, c)
			}
		}
		b.sessions[client] = session{endpoint: ep, last: now}
	}
	return ep, nil
}

// buildTable is the sync of kube-proxy's iptables mode as a pure
// function: from every service with a cluster IP and the Endpoints of the
// same name, one rule per service port leading to the ready addresses of
// the endpoint port of the same name. prev (nil at first) lends its
// balancers to unchanged service ports.
func buildTable(services []*api.Service, endpoints map[string]*api.Endpoints, mode Mode, prev *table) *table {
	t := &table{byIP: map[dest]*balancer{}, byNode: map[nodeDest]*balancer{}, byService: map[ServicePortName]*balancer{}}
	for _, svc := range services {
		ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err != nil || svc.Spec.Type == api.ServiceTypeExternalName {
			continue // headless, ExternalName, or not yet allocated: no rules
		}
		ep := endpoints[api.Key(svc)]
		for _, sp := range svc.Spec.Ports {
			proto := cmp.Or(sp.Protocol, api.ProtocolTCP)
			r := Rule{
				Service:   ServicePortName{Namespace: svc.Namespace, Name: svc.Name, Port: sp.Name, Protocol: proto},
				ClusterIP: netip.AddrPortFrom(ip, uint16(sp.Port)),
				NodePort:  uint16(sp.NodePort),
				Endpoints: endpointsFor(ep, sp.Name, proto),
			}
			for _, e := range svc.Spec.ExternalIPs {
				if a, err := netip.ParseAddr(e); err == nil {
					r.ExternalIPs = append(r.ExternalIPs, netip.AddrPortFrom(a, uint16(sp.Port)))
				}
			}
			if svc.Spec.SessionAffinity == "ClientIP" {
				r.Affinity = DefaultAffinityTimeout
				if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil {
					r.Affinity = time.Duration(*c.ClientIP.TimeoutSeconds) * time.Second
				}
			}
			b := &balancer{rule: r, mode: mode, rand: rand.IntN}
			if prev != nil {
				if old, ok := prev.byService[r.Service]; ok {
					if sameRule(old.rule, r) {
						b = old
					} else {
						b.sessions = old.sessionsTo(r.Endpoints)
					}
				}
			}
			t.rules = append(t.rules, r)
			t.byService[r.Service] = b
			t.byIP[dest{r.ClusterIP, proto}] = b
			for _, x := range r.ExternalIPs {
				t.byIP[dest{x, proto}] = b
			}
			if r.NodePort != 0 {
				t.byNode[nodeDest{r.NodePort, proto}] = b
			}
		}
	}
	slices.SortFunc(t.rules, func(a, b Rule) int {
		return cmp.Compare(a.Service.String()+"/"+string(a.Service.Protocol), b.Service.String()+"/"+string(b.Service.Protocol))
	})
	return t
}

func sameRule(a, b Rule) bool {
	return a.Service == b.Service && a.ClusterIP == b.ClusterIP && a.NodePort == b.NodePort && a.Affinity == b.Affinity &&
		slices.Equal(a.ExternalIPs, b.ExternalIPs) && slices.Equal(a.Endpoints, b.Endpoints)
}

// endpointsFor lists the ready addresses of ep serving the endpoint port
// named port (kube-proxy matches endpoint ports to service ports by
// name), sorted.
func endpointsFor(ep *api.Endpoints, port string, proto api.Protocol) []netip.AddrPort {
	if ep == nil {
		return nil
	}
	var out []netip.AddrPort
	for _, s := range ep.Subsets {
		for _, p := range s.Ports {
			if p.Name != port || cmp.Or(p.Protocol, api.ProtocolTCP) != proto {
				continue
			}
			for _, a := range s.Addresses {
				if ip, err := netip.ParseAddr(a.IP); err == nil {
					out = append(out, netip.AddrPortFrom(ip, uint16(p.Port)))
				}
			}
		}
	}
	slices.SortFunc(out, netip.AddrPort.Compare)
	return slices.Compact(out)
}

// lookup finds the balancer of a TCP destination: a cluster or external
// IP and port, else a node port (any other address is taken to be a
// node's).
func (t *table) lookup(dst netip.AddrPort, proto api.Protocol) (*balancer, bool) {
	if b, ok := t.byIP[dest{dst, proto}]; ok {
		return b, true
	}
	b, ok := t.byNode[nodeDest{dst.Port(), proto}]
	return b, ok
}
