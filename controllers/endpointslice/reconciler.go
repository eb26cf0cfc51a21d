package endpointslice

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

// plan is what one sync writes: the slices to create (with generateName),
// to update (with their resourceVersion as precondition) and to delete.
type plan struct {
	create, update, delete []*api.EndpointSlice
	// skipped are the pods left out because their node is not known:
	// the sync is retried, as kcm's is.
	skipped []string
}

// reconciler is kcm's endpointslice reconciler as pure functions of the
// service, its pods, the nodes and the slices it manages.
type reconciler struct {
	managedBy   string // the managed-by label value
	maxPerSlice int
	node        func(name string) (*api.Node, bool)
}

// addressTypes is getAddressTypesForService: the service's ipFamilies;
// without them the family of its cluster IP, and IPv4 for a headless
// service (what kube-apiserver defaults ipFamilies to on an IPv4
// single-stack cluster, the only kind ctrlkit simulates).
func addressTypes(svc *api.Service) []api.AddressType {
	var out []api.AddressType
	for _, f := range svc.Spec.IPFamilies {
		switch f {
		case "IPv4":
			out = append(out, api.AddressTypeIPv4)
		case "IPv6":
			out = append(out, api.AddressTypeIPv6)
		}
	}
	if len(out) > 0 {
		return out
	}
	if ip := svc.Spec.ClusterIP; ip != "" && ip != api.ClusterIPNone && strings.Contains(ip, ":") {
		return []api.AddressType{api.AddressTypeIPv6}
	}
	return []api.AddressType{api.AddressTypeIPv4}
}

// desiredLabels is setEndpointSliceLabels: the service's labels but the
// two the controller owns, the service name, the managing controller, and
// service.kubernetes.io/headless for a headless service.
func (r *reconciler) desiredLabels(svc *api.Service) map[string]string {
	l := maps.Clone(svc.Labels)
	if l == nil {
		l = map[string]string{}
	}
	delete(l, LabelManagedBy)
	delete(l, api.LabelServiceHeadless)
	l[api.LabelServiceName] = svc.Name
	l[LabelManagedBy] = r.managedBy
	if svc.Spec.ClusterIP == "" || svc.Spec.ClusterIP == api.ClusterIPNone {
		l[api.LabelServiceHeadless] = ""
	}
	return l
}

// shouldPodBeInSlices is ShouldPodBeInEndpoints with terminating pods
// included, as the EndpointSlice controller calls it: a pod is left out
// when terminal or without an IP.
func shouldPodBeInSlices(p *api.Pod) bool {
	if p.Status.Phase == api.PodSucceeded || p.Status.Phase == api.PodFailed {
		return false
	}
	return p.Status.PodIP != "" || len(p.Status.PodIPs) > 0
}

// endpointPorts is getEndpointPorts: for each service port the pod
// serves (podutil.FindPort), its name, protocol, number and app protocol.
func endpointPorts(svc *api.Service, p *api.Pod) []api.EndpointSlicePort {
	var out []api.EndpointSlicePort
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		num, ok := findPort(p, sp)
		if !ok {
			continue
		}
		name := sp.Name
		proto := cmp.Or(sp.Protocol, api.ProtocolTCP)
		ep := api.EndpointSlicePort{Name: &name, Protocol: &proto, Port: &num}
		if sp.AppProtocol != nil {
			ep.AppProtocol = new(*sp.AppProtocol)
		}
		out = append(out, ep)
	}
	return out
}

// findPort is podutil.FindPort: a numeric (or absent) targetPort as is, a
// named one among the pod's container ports of the same protocol.
func findPort(p *api.Pod, sp *api.ServicePort) (int32, bool) {
	tp := sp.TargetPort
	switch {
	case tp == (api.IntOrString{}):
		return sp.Port, true
	case tp.Type == api.TypeString:
		proto := cmp.Or(sp.Protocol, api.ProtocolTCP)
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == tp.StrVal && cmp.Or(cp.Protocol, api.ProtocolTCP) == proto {
					return cp.ContainerPort, true
				}
			}
		}
		return 0, false
	default:
		return tp.IntVal, true
	}
}

// podAddresses are the pod's IPs of the address type (getEndpointAddresses).
func podAddresses(p *api.Pod, t api.AddressType) []string {
	ips := make([]string, 0, 2)
	for _, ip := range p.Status.PodIPs {
		ips = append(ips, ip.IP)
	}
	if len(ips) == 0 && p.Status.PodIP != "" {
		ips = append(ips, p.Status.PodIP)
	}
	var out []string
	for _, ip := range ips {
		if (t == api.AddressTypeIPv6) == strings.Contains(ip, ":") {
			out = append(out, ip)
			break // one address per endpoint
		}
	}
	return out
}

// podToEndpoint is kcm's: the pod's address, its conditions (serving is
// readiness, terminating its deletion, ready is serving and not
// terminating — or always with publishNotReadyAddresses), a reference to
// it, its node and the node's zone, and its hostname when its subdomain
// names the service.
func podToEndpoint(p *api.Pod, node *api.Node, svc *api.Service, t api.AddressType) api.Endpoint {
	serving := api.IsPodReady(p)
	terminating := p.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := api.Endpoint{
		Addresses:  podAddresses(p, t),
		Conditions: api.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &api.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
	}
	if p.Spec.NodeName != "" {
		ep.NodeName = new(p.Spec.NodeName)
	}
	if node != nil {
		if z, ok := node.Labels[api.LabelTopologyZone]; ok {
			ep.Zone = &z
		}
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && p.Namespace == svc.Namespace {
		ep.Hostname = new(p.Spec.Hostname)
	}
	return ep
}

// endpointKey identifies an endpoint across syncs (kcm's hashEndpoint):
// its addresses, hostname and the object it stands for.
func endpointKey(e *api.Endpoint) string {
	var b strings.Builder
	b.WriteString(strings.Join(e.Addresses, ","))
	b.WriteByte('|')
	if e.Hostname != nil {
		b.WriteString(*e.Hostname)
	}
	b.WriteByte('|')
	if e.TargetRef != nil {
		b.WriteString(e.TargetRef.Namespace + "/" + e.TargetRef.Name)
	}
	return b.String()
}

// endpointsEqual is EndpointsEqualBeyondHash: the rest of the endpoint.
func endpointsEqual(a, b *api.Endpoint) bool {
	norm := func(e *api.Endpoint) api.Endpoint {
		c := *e.DeepCopy()
		if c.TargetRef != nil {
			c.TargetRef.ResourceVersion = ""
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// portsKey identifies a set of ports, whatever their order
// (NewPortMapKey).
func portsKey(ports []api.EndpointSlicePort) string {
	keys := make([]string, 0, len(ports))
	for _, p := range ports {
		var name, proto, app string
		var num int32
		if p.Name != nil {
			name = *p.Name
		}
		if p.Protocol != nil {
			proto = string(*p.Protocol)
		}
		if p.Port != nil {
			num = *p.Port
		}
		if p.AppProtocol != nil {
			app = *p.AppProtocol
		}
		keys = append(keys, fmt.Sprintf("%s/%d/%s/%s", name, num, proto, app))
	}
	slices.Sort(keys)
	return strings.Join(keys, ",")
}

// group is the desired endpoints sharing one set of ports.
type group struct {
	ports []api.EndpointSlicePort
	eps   map[string]api.Endpoint
}

// reconcile is kcm's reconcile: the writes that bring the slices of svc
// (existing: those labelled with its name and managed by this controller)
// to the pods'. Slices of an address type the service no longer has, or
// not controlled by this service (an older one of the same name), are
// deleted.
func (r *reconciler) reconcile(svc *api.Service, pods []*api.Pod, existing []*api.EndpointSlice) plan {
	var out plan
	types := addressTypes(svc)
	byType := map[api.AddressType][]*api.EndpointSlice{}
	for _, s := range existing {
		if !slices.Contains(types, s.AddressType) || !ownedBy(s, svc) {
			out.delete = append(out.delete, s)
			continue
		}
		byType[s.AddressType] = append(byType[s.AddressType], s)
	}
	for _, t := range types {
		desired := map[string]*group{}
		for _, p := range pods {
			if !shouldPodBeInSlices(p) {
				continue
			}
			ports := endpointPorts(svc, p)
			pk := portsKey(ports)
			if desired[pk] == nil {
				desired[pk] = &group{ports: ports, eps: map[string]api.Endpoint{}}
			}
			var node *api.Node
			if p.Spec.NodeName != "" {
				n, ok := r.node(p.Spec.NodeName)
				if !ok {
					// kcm: the pod is left out and the service retried.
					out.skipped = append(out.skipped, p.Name)
					continue
				}
				node = n
			}
			ep := podToEndpoint(p, node, svc, t)
			if len(ep.Addresses) > 0 {
				desired[pk].eps[endpointKey(&ep)] = ep
			}
		}
		r.reconcileType(svc, t, desired, byType[t], &out)
	}
	r.recycle(&out)
	return out
}

// ownedBy reports whether svc is the controller of s.
func ownedBy(s *api.EndpointSlice, svc *api.Service) bool {
	ref := s.ControllerRef()
	return ref != nil && ref.Kind == "Service" && ref.UID == svc.UID
}

// reconcileType is reconcileByAddressType and reconcileByPortMapping: per
// set of ports, existing slices keep the endpoints still desired (updated
// if they changed) and lose the others (deleted when emptied); the new
// endpoints go first into the slices being updated, then, if they fit,
// into the fullest unchanged slice that can take them all, then into new
// slices of at most maxPerSlice. Slices of a set of ports no longer
// desired are deleted. A service without endpoints keeps one placeholder
// slice without ports.
func (r *reconciler) reconcileType(svc *api.Service, t api.AddressType, desired map[string]*group, existing []*api.EndpointSlice, out *plan) {
	labels := r.desiredLabels(svc)
	byPorts := map[string][]*api.EndpointSlice{}
	for _, s := range existing {
		byPorts[portsKey(s.Ports)] = append(byPorts[portsKey(s.Ports)], s)
	}
	var creates, deletes []*api.EndpointSlice
	for _, pk := range slices.Sorted(maps.Keys(byPorts)) {
		if _, ok := desired[pk]; !ok {
			deletes = append(deletes, byPorts[pk]...)
		}
	}
	for _, pk := range slices.Sorted(maps.Keys(desired)) {
		g := desired[pk]
		toAdd := maps.Clone(g.eps)
		var updates, unchanged []*api.EndpointSlice
		for _, s := range byPorts[pk] {
			var kept []api.Endpoint
			changed := !maps.Equal(s.Labels, labels)
			for i := range s.Endpoints {
				have := &s.Endpoints[i]
				k := endpointKey(have)
				want, ok := toAdd[k]
				if !ok {
					changed = true // no longer desired (or a duplicate)
					continue
				}
				if !endpointsEqual(have, &want) {
					changed = true
				}
				kept = append(kept, want)
				delete(toAdd, k)
			}
			switch {
			case len(kept) == 0:
				deletes = append(deletes, s)
			case changed:
				u := s.DeepCopy()
				u.Labels = labels
				u.Endpoints = kept
				updates = append(updates, u)
			default:
				unchanged = append(unchanged, s)
			}
		}
		remaining := make([]api.Endpoint, 0, len(toAdd))
		for _, k := range slices.Sorted(maps.Keys(toAdd)) {
			remaining = append(remaining, toAdd[k])
		}
		// 1. Fill the slices being updated anyway, fullest first.
		slices.SortStableFunc(updates, func(a, b *api.EndpointSlice) int { return cmp.Compare(len(b.Endpoints), len(a.Endpoints)) })
		for _, u := range updates {
			n := min(r.maxPerSlice-len(u.Endpoints), len(remaining))
			if n > 0 {
				u.Endpoints = append(u.Endpoints, remaining[:n]...)
				remaining = remaining[n:]
			}
		}
		// 2. What is left, if fewer than a slice holds, goes into the
		// fullest unchanged slice that can take it all.
		if len(remaining) > 0 && len(remaining) < r.maxPerSlice {
			var fill *api.EndpointSlice
			for _, s := range unchanged {
				if len(s.Endpoints)+len(remaining) <= r.maxPerSlice && (fill == nil || len(s.Endpoints) > len(fill.Endpoints)) {
					fill = s
				}
			}
			if fill != nil {
				u := fill.DeepCopy()
				u.Endpoints = append(u.Endpoints, remaining...)
				updates = append(updates, u)
				remaining = nil
			}
		}
		// 3. New slices for the rest.
		for len(remaining) > 0 {
			n := min(r.maxPerSlice, len(remaining))
			s := r.newSlice(svc, t, g.ports, labels)
			s.Endpoints = slices.Clone(remaining[:n])
			remaining = remaining[n:]
			creates = append(creates, s)
		}
		out.update = append(out.update, updates...)
	}
	if len(existing) == len(deletes) && len(creates) == 0 {
		// No endpoints: one placeholder slice, kept if it is there.
		ph := r.newSlice(svc, t, []api.EndpointSlicePort{}, labels)
		if len(deletes) == 1 && isPlaceholder(deletes[0], ph) {
			deletes = nil
		} else {
			creates = append(creates, ph)
		}
	}
	out.create = append(out.create, creates...)
	out.delete = append(out.delete, deletes...)
}

// isPlaceholder compares s with the placeholder ph as kcm's
// placeholderSliceCompare: no endpoints, no ports, same address type,
// labels and controller.
func isPlaceholder(s, ph *api.EndpointSlice) bool {
	return len(s.Endpoints) == 0 && len(s.Ports) == 0 && s.AddressType == ph.AddressType &&
		maps.Equal(s.Labels, ph.Labels) && s.ControllerRef() != nil && s.ControllerRef().UID == ph.ControllerRef().UID
}

// newSlice is newEndpointSlice: named after the service (generateName),
// controlled by it, with the given ports and labels and no endpoints.
func (r *reconciler) newSlice(svc *api.Service, t api.AddressType, ports []api.EndpointSlicePort, labels map[string]string) *api.EndpointSlice {
	prefix := svc.Name
	if len(prefix) > 57 { // a generated name stays within 63 characters
		prefix = prefix[:57]
	}
	return &api.EndpointSlice{
		ObjectMeta: api.ObjectMeta{
			Namespace:       svc.Namespace,
			GenerateName:    prefix + "-",
			Labels:          maps.Clone(labels),
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(svc)},
		},
		AddressType: t,
		Ports:       slices.Clone(ports),
		Endpoints:   []api.Endpoint{},
	}
}

// recycle is kcm's finalize: a slice to delete and one to create of the
// same address type become one update of the former, to reduce churn.
func (r *reconciler) recycle(p *plan) {
	var keep []*api.EndpointSlice
	for _, d := range p.delete {
		i := slices.IndexFunc(p.create, func(c *api.EndpointSlice) bool { return c.AddressType == d.AddressType })
		if i < 0 {
			keep = append(keep, d)
			continue
		}
		c := p.create[i]
		p.create = slices.Delete(p.create, i, i+1)
		c.Name, c.GenerateName = d.Name, ""
		c.ResourceVersion, c.UID, c.CreationTimestamp = d.ResourceVersion, d.UID, d.CreationTimestamp
		p.update = append(p.update, c)
	}
	p.delete = keep
}
