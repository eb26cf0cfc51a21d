package endpoints

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// op is what a sync does to a service's Endpoints.
type op int

const (
	opNone op = iota
	opCreate
	opUpdate
)

func (o op) String() string { return [...]string{"none", "create", "update"}[o] }

// decision is the outcome of decide: the write to make, if any, and the
// Endpoints it writes.
type decision struct {
	op        op
	endpoints *api.Endpoints // the object to create or update; nil for opNone
	ready     int            // addresses × ports counted as ready
	notReady  int
}

// decide is kube-controller-manager's syncService for a service that
// exists and has a selector, as a pure function: the desired subsets from
// the pods the selector matched (the caller lists them), compared with
// the current Endpoints (nil when there is none) on subsets and labels.
func decide(svc *api.Service, pods []*api.Pod, current *api.Endpoints) decision {
	subsets, ready, notReady := desiredSubsets(svc, pods)
	want := maps.Clone(svc.Labels)
	if want == nil {
		want = map[string]string{}
	}
	if isHeadless(svc) {
		want[api.LabelServiceHeadless] = ""
	} else {
		delete(want, api.LabelServiceHeadless)
	}
	d := decision{ready: ready, notReady: notReady}
	if current != nil {
		// The headless label is not on the service: compare without it.
		have := maps.Clone(current.Labels)
		delete(have, api.LabelServiceHeadless)
		if maps.Equal(have, svc.Labels) && subsetsEqual(current.Subsets, subsets) {
			return d
		}
		d.op = opUpdate
		d.endpoints = current.DeepCopy()
	} else {
		d.op = opCreate
		d.endpoints = &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: svc.Namespace, Name: svc.Name}}
	}
	d.endpoints.Labels = want
	d.endpoints.Subsets = subsets
	return d
}

// isHeadless reports a service without a cluster IP (helper.IsServiceIPSet
// negated).
func isHeadless(svc *api.Service) bool {
	return svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == api.ClusterIPNone
}

// desiredSubsets builds the subsets of svc from the pods its selector
// matched, repacked canonically, and counts ready and not-ready
// address-ports.
func desiredSubsets(svc *api.Service, pods []*api.Pod) (subsets []api.EndpointSubset, ready, notReady int) {
	tolerateUnready := svc.Spec.PublishNotReadyAddresses
	var flat []api.EndpointSubset
	add := func(p *api.Pod, addr api.EndpointAddress, port *api.EndpointPort) {
		s := api.EndpointSubset{}
		if port != nil {
			s.Ports = []api.EndpointPort{*port}
		}
		if tolerateUnready || api.IsPodReady(p) {
			s.Addresses = []api.EndpointAddress{addr}
			ready++
		} else {
			s.NotReadyAddresses = []api.EndpointAddress{addr}
			notReady++
		}
		flat = append(flat, s)
	}
	for _, p := range pods {
		if !shouldPodBeInEndpoints(p, tolerateUnready) {
			continue
		}
		addr := podAddress(svc, p)
		if len(svc.Spec.Ports) == 0 {
			// A headless service may have no ports: addresses only.
			if svc.Spec.ClusterIP == api.ClusterIPNone {
				add(p, addr, nil)
			}
			continue
		}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			num, err := findPort(p, sp)
			if err != nil {
				continue // this pod does not serve this port
			}
			add(p, addr, &api.EndpointPort{Name: sp.Name, Port: num, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
		}
	}
	return RepackSubsets(flat), ready, notReady
}

// shouldPodBeInEndpoints is endpointsliceutil.ShouldPodBeInEndpoints:
// terminal pods (Succeeded, Failed) and pods without an IP are left out,
// and so are terminating pods unless includeTerminating
// (publishNotReadyAddresses).
func shouldPodBeInEndpoints(p *api.Pod, includeTerminating bool) bool {
	switch {
	case p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed:
		return false
	case p.Status.PodIP == "" && len(p.Status.PodIPs) == 0:
		return false
	case !includeTerminating && p.DeletionTimestamp != nil:
		return false
	}
	return true
}

// podAddress is podToEndpointAddressForService plus ShouldSetHostname:
// the pod's IP, node and a reference to it, and its hostname when it
// sets one and its subdomain names this service (in its namespace).
func podAddress(svc *api.Service, p *api.Pod) api.EndpointAddress {
	ip := p.Status.PodIP
	if ip == "" {
		ip = p.Status.PodIPs[0].IP
	}
	node := p.Spec.NodeName
	a := api.EndpointAddress{
		IP:        ip,
		NodeName:  &node,
		TargetRef: &api.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && p.Namespace == svc.Namespace {
		a.Hostname = p.Spec.Hostname
	}
	return a
}

// findPort is podutil.FindPort: a numeric targetPort is taken as is (the
// pod need not declare it); a named one is looked up among the pod's
// containers' ports of the service port's protocol.
func findPort(p *api.Pod, sp *api.ServicePort) (int32, error) {
	tp := sp.TargetPort
	switch {
	case tp == (api.IntOrString{}):
		return sp.Port, nil
	case tp.Type == api.TypeString:
		proto := cmp.Or(sp.Protocol, api.ProtocolTCP)
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == tp.StrVal && cmp.Or(cp.Protocol, api.ProtocolTCP) == proto {
					return cp.ContainerPort, nil
				}
			}
		}
		return 0, fmt.Errorf("no suitable port for manifest: %s", p.UID)
	default:
		return tp.IntVal, nil
	}
}

// addressKey identifies an address across subsets (the IP and the pod).
type addressKey struct {
	ip  string
	uid api.UID
}

func keyOf(a *api.EndpointAddress) addressKey {
	k := addressKey{ip: a.IP}
	if a.TargetRef != nil {
		k.uid = a.TargetRef.UID
	}
	return k
}

// RepackSubsets is kube's endpoints.RepackSubsets (pkg/api/v1/endpoints), shared
// with the EndpointSlice mirroring controller: it flattens the subsets into
// (address, port) pairs and regroups them so that the addresses serving
// a port with the same readiness share a subset with every other such
// port. An address is identified by its IP and its target's UID; the
// first one met is kept. An address listed both ready and not ready for
// a port is not ready there (not-ready wins). An address without ports
// is kept, in a subset without ports. Addresses, ports and subsets are
// then sorted, so that equal states compare equal.
func RepackSubsets(subsets []api.EndpointSubset) []api.EndpointSubset {
	// noPorts stands for "no port" (kube's sentinel port -1).
	noPorts := portKey{port: -1}
	addrs := map[addressKey]*api.EndpointAddress{}
	ports := map[portKey]api.EndpointPort{}
	// ready[port][address] is the address's readiness on the port.
	ready := map[portKey]map[addressKey]bool{}
	note := func(a *api.EndpointAddress, isReady bool, pk portKey) {
		k := keyOf(a)
		if addrs[k] == nil {
			addrs[k] = a
		}
		if ready[pk] == nil {
			ready[pk] = map[addressKey]bool{}
		}
		if was, seen := ready[pk][k]; !seen || was {
			ready[pk][k] = isReady
		}
	}
	for i := range subsets {
		s := &subsets[i]
		keys := []portKey{noPorts}
		if len(s.Ports) > 0 {
			keys = keys[:0]
			for _, p := range s.Ports {
				pk := portKeyOf(p)
				if _, ok := ports[pk]; !ok {
					ports[pk] = p
				}
				keys = append(keys, pk)
			}
		}
		for _, pk := range keys {
			for j := range s.Addresses {
				note(&s.Addresses[j], true, pk)
			}
			for j := range s.NotReadyAddresses {
				note(&s.NotReadyAddresses[j], false, pk)
			}
		}
	}
	// Group the ports by their set of (address, readiness).
	type group struct {
		set   map[addressKey]bool
		ports []api.EndpointPort
	}
	groups := map[string]*group{}
	for pk, set := range ready {
		sig := setKey(set)
		g, ok := groups[sig]
		if !ok {
			g = &group{set: set}
			groups[sig] = g
		}
		if pk != noPorts {
			g.ports = append(g.ports, ports[pk])
		}
	}
	out := make([]api.EndpointSubset, 0, len(groups))
	for _, g := range groups {
		var s api.EndpointSubset
		for k, isReady := range g.set {
			if isReady {
				s.Addresses = append(s.Addresses, *addrs[k])
			} else {
				s.NotReadyAddresses = append(s.NotReadyAddresses, *addrs[k])
			}
		}
		slices.SortFunc(s.Addresses, compareAddresses)
		slices.SortFunc(s.NotReadyAddresses, compareAddresses)
		slices.SortFunc(g.ports, comparePorts)
		s.Ports = g.ports
		out = append(out, s)
	}
	slices.SortFunc(out, compareSubsets)
	if len(out) == 0 {
		return nil
	}
	return out
}

// setKey is a canonical string of a set of (address, readiness).
func setKey(set map[addressKey]bool) string {
	keys := make([]string, 0, len(set))
	for k, r := range set {
		keys = append(keys, fmt.Sprintf("%s/%s/%t", k.ip, k.uid, r))
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// compareSubsets orders repacked subsets by their ports, then their
// addresses (kube orders them by a hash; any fixed order does).
func compareSubsets(a, b api.EndpointSubset) int {
	if c := cmp.Compare(portsKey(a.Ports), portsKey(b.Ports)); c != 0 {
		return c
	}
	sig := func(s api.EndpointSubset) string {
		var b strings.Builder
		for _, x := range s.Addresses {
			fmt.Fprintf(&b, "r%s/%s,", x.IP, keyOf(&x).uid)
		}
		for _, x := range s.NotReadyAddresses {
			fmt.Fprintf(&b, "n%s/%s,", x.IP, keyOf(&x).uid)
		}
		return b.String()
	}
	return cmp.Compare(sig(a), sig(b))
}

type portKey struct {
	name  string
	port  int32
	proto api.Protocol
}

func portKeyOf(p api.EndpointPort) portKey { return portKey{p.Name, p.Port, p.Protocol} }

func comparePorts(a, b api.EndpointPort) int {
	return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Port, b.Port), cmp.Compare(a.Protocol, b.Protocol))
}

func portsKey(ports []api.EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "%s/%05d/%s,", p.Name, p.Port, p.Protocol)
	}
	return b.String()
}

func compareAddresses(a, b api.EndpointAddress) int {
	ka, kb := keyOf(&a), keyOf(&b)
	return cmp.Or(compareIPs(ka.ip, kb.ip), cmp.Compare(ka.uid, kb.uid))
}

// compareIPs orders dotted IPv4 addresses numerically (10.0.0.9 before
// 10.0.0.10), anything else as strings.
func compareIPs(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	if len(pa) == 4 && len(pb) == 4 {
		for i := range 4 {
			if c := cmp.Compare(len(pa[i]), len(pb[i])); c != 0 {
				return c
			}
			if c := cmp.Compare(pa[i], pb[i]); c != 0 {
				return c
			}
		}
		return 0
	}
	return cmp.Compare(a, b)
}

// subsetsEqual compares subsets ignoring the pods' resourceVersions in
// target references (endpointSubsetsEqualIgnoreResourceVersion), and
// nil and empty slices alike.
func subsetsEqual(a, b []api.EndpointSubset) bool {
	norm := func(s []api.EndpointSubset) []api.EndpointSubset {
		out := make([]api.EndpointSubset, 0, len(s))
		for _, x := range s {
			x = *x.DeepCopy()
			for _, as := range [][]api.EndpointAddress{x.Addresses, x.NotReadyAddresses} {
				for i := range as {
					if as[i].TargetRef != nil {
						as[i].TargetRef.ResourceVersion = ""
					}
				}
			}
			if len(x.Addresses) == 0 {
				x.Addresses = nil
			}
			if len(x.NotReadyAddresses) == 0 {
				x.NotReadyAddresses = nil
			}
			if len(x.Ports) == 0 {
				x.Ports = nil
			}
			out = append(out, x)
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}
