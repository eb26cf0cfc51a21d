package endpointslicemirroring

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/netip"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/endpoints"
)

// Annotations never copied from an Endpoints to its slices (kcm's
// EndpointsLastChangeTriggerTime and LastAppliedConfigAnnotation).
const (
	annotationLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
	annotationLastApplied           = "kubectl.kubernetes.io/last-applied-configuration"
)

// plan is what one sync writes: slices to update (named), to create
// (GenerateName set) and to delete, and what it skipped.
type plan struct {
	create, update, delete []*api.EndpointSlice
	// invalid counts addresses that are not IPs; skipped, every address
	// left out (invalid ones and those beyond the cap).
	invalid, skipped int
}

// reconciler is kcm's reconciler over explicit inputs: it computes the
// slices mirroring one Endpoints, without writing them.
type reconciler struct {
	maxPerSubset int
}

// group is one address type and set of ports: the desired endpoints
// (by hash) and their ports.
type group struct {
	addrType  api.AddressType
	ports     []api.EndpointSlicePort
	endpoints map[string]api.Endpoint
}

// reconcile is kcm's reconcile: the Endpoints' subsets, repacked, give
// per address type and set of ports a set of endpoints (at most
// maxPerSubset addresses per subset, ready ones first); each group keeps
// its first existing slice (updated if anything differs) and deletes the
// others; groups no longer desired lose their slices; a create and a
// delete of the same address type become an update (recycleSlices).
func (r reconciler) reconcile(ep *api.Endpoints, existing []*api.EndpointSlice) plan {
	var p plan
	desired := map[string]*group{}
	var order []string
	for _, subset := range endpoints.RepackSubsets(ep.Subsets) {
		ports := slicePorts(subset.Ports)
		keyOf := map[api.AddressType]string{}
		for _, t := range []api.AddressType{api.AddressTypeIPv4, api.AddressTypeIPv6} {
			k := groupKey(t, ports)
			keyOf[t] = k
			if _, ok := desired[k]; !ok {
				desired[k] = &group{addrType: t, endpoints: map[string]api.Endpoint{}}
				order = append(order, k)
			}
			desired[k].ports = ports
		}
		total := len(subset.Addresses) + len(subset.NotReadyAddresses)
		added := 0
		add := func(addrs []api.EndpointAddress, ready bool) {
			for _, a := range addrs {
				if added >= r.maxPerSubset {
					return
				}
				e, t, ok := addressToEndpoint(a, ready)
				if !ok {
					p.invalid++
					continue
				}
				desired[keyOf[t]].endpoints[endpointHash(e)] = e
				added++
			}
		}
		add(subset.Addresses, true)
		add(subset.NotReadyAddresses, false)
		p.skipped += total - added
	}

	byKey := map[string][]*api.EndpointSlice{}
	for _, s := range existing {
		k := groupKey(s.AddressType, s.Ports)
		byKey[k] = append(byKey[k], s)
	}
	for _, ss := range byKey {
		slices.SortFunc(ss, func(a, b *api.EndpointSlice) int { return cmp.Compare(a.Name, b.Name) })
	}
	for _, k := range order {
		r.reconcileGroup(ep, byKey[k], desired[k], &p)
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		if _, ok := desired[k]; !ok {
			p.delete = append(p.delete, byKey[k]...)
		}
	}
	recycle(&p)
	if ep.DeletionTimestamp != nil {
		p.create = nil // kcm's finalize creates nothing for an Endpoints being deleted
	}
	return p
}

// reconcileGroup is kcm's reconcileByPortMapping.
func (r reconciler) reconcileGroup(ep *api.Endpoints, existing []*api.EndpointSlice, g *group, p *plan) {
	if len(g.endpoints) == 0 {
		p.delete = append(p.delete, existing...)
		return
	}
	name := ""
	if len(existing) > 0 {
		p.delete = append(p.delete, existing[1:]...)
		first := existing[0]
		if !changed(first, g.endpoints) &&
			maps.Equal(ep.Labels, withoutKeys(first.Labels, LabelManagedBy, api.LabelServiceName)) &&
			maps.Equal(withoutKeys(ep.Annotations, annotationLastChangeTriggerTime, annotationLastApplied), first.Annotations) &&
			!needRebuild(ep, first) {
			return
		}
		name = first.Name
	}
	s := newSlice(ep, g.ports, g.addrType, name)
	// kcm pops the set in no particular order; here in hash order, so
	// that a sync is reproducible. At most maxPerSubset per slice.
	for _, h := range slices.Sorted(maps.Keys(g.endpoints)) {
		if len(s.Endpoints) >= r.maxPerSubset {
			break
		}
		s.Endpoints = append(s.Endpoints, g.endpoints[h])
	}
	if name != "" {
		p.update = append(p.update, s)
	} else {
		p.create = append(p.create, s)
	}
}

// changed reports whether a slice's endpoints differ from the desired
// ones (kcm's totalChanges: any added, updated or removed).
func changed(s *api.EndpointSlice, desired map[string]api.Endpoint) bool {
	matches := 0
	for _, e := range s.Endpoints {
		d, ok := desired[endpointHash(e)]
		if !ok || !sameJSON(d, e) {
			return true
		}
		matches++
	}
	return matches != len(desired)
}

// needRebuild: the slice's owner is an Endpoints of the same name but
// another UID (deleted and re-created).
func needRebuild(ep *api.Endpoints, s *api.EndpointSlice) bool {
	for _, o := range s.OwnerReferences {
		if o.Kind == "Endpoints" && o.Name == ep.Name && o.UID != ep.UID {
			return true
		}
	}
	return false
}

// recycle is kcm's recycleSlices: a slice to create and one to delete of
// the same address type become an update of the latter.
func recycle(p *plan) {
	for _, t := range []api.AddressType{api.AddressTypeIPv4, api.AddressTypeIPv6} {
		var creates, deletes []*api.EndpointSlice
		for _, s := range p.create {
			if s.AddressType == t {
				creates = append(creates, s)
			}
		}
		for _, s := range p.delete {
			if s.AddressType == t {
				deletes = append(deletes, s)
			}
		}
		for i := 0; i < len(creates) && i < len(deletes); i++ {
			p.create = slices.DeleteFunc(p.create, func(s *api.EndpointSlice) bool { return s == creates[i] })
			p.delete = slices.DeleteFunc(p.delete, func(s *api.EndpointSlice) bool { return s == deletes[i] })
			creates[i].Name, creates[i].GenerateName = deletes[i].Name, ""
			p.update = append(p.update, creates[i])
		}
	}
}

// newSlice is kcm's newEndpointSlice: the Endpoints' labels and
// annotations (but the two above), the service-name and managed-by
// labels, a controller reference to the Endpoints; named, or generated
// from "<endpoints>-".
func newSlice(ep *api.Endpoints, ports []api.EndpointSlicePort, t api.AddressType, name string) *api.EndpointSlice {
	s := &api.EndpointSlice{AddressType: t, Ports: ports, Endpoints: []api.Endpoint{}}
	s.Namespace = ep.Namespace
	s.Labels = maps.Clone(ep.Labels)
	if s.Labels == nil {
		s.Labels = map[string]string{}
	}
	s.Labels[api.LabelServiceName] = ep.Name
	s.Labels[LabelManagedBy] = ControllerName
	s.Annotations = withoutKeys(ep.Annotations, annotationLastChangeTriggerTime, annotationLastApplied)
	yes := true
	s.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Endpoints", Name: ep.Name, UID: ep.UID, Controller: &yes, BlockOwnerDeletion: &yes}}
	if name != "" {
		s.Name = name
	} else {
		s.GenerateName = ep.Name + "-"
	}
	return s
}

// addressToEndpoint is kcm's: an endpoint of the address's IP (in its
// canonical form), ready as given, with its target, node and hostname;
// not ok for an address that is not an IP.
func addressToEndpoint(a api.EndpointAddress, ready bool) (api.Endpoint, api.AddressType, bool) {
	ip, err := netip.ParseAddr(a.IP)
	if err != nil || ip.Zone() != "" {
		return api.Endpoint{}, "", false
	}
	t := api.AddressTypeIPv4
	if !ip.Unmap().Is4() {
		t = api.AddressTypeIPv6
	}
	e := api.Endpoint{Addresses: []string{ip.Unmap().String()}, Conditions: api.EndpointConditions{Ready: &ready}, NodeName: a.NodeName}
	if a.TargetRef != nil {
		ref := *a.TargetRef
		e.TargetRef = &ref
	}
	if a.Hostname != "" {
		h := a.Hostname
		e.Hostname = &h
	}
	return e, t, true
}

// slicePorts is kcm's epPortsToEpsPorts.
func slicePorts(ports []api.EndpointPort) []api.EndpointSlicePort {
	out := []api.EndpointSlicePort{}
	for _, p := range ports {
		name, port, proto := p.Name, p.Port, p.Protocol
		out = append(out, api.EndpointSlicePort{Name: &name, Port: &port, Protocol: &proto, AppProtocol: p.AppProtocol})
	}
	return out
}

// groupKey identifies an address type and a set of ports, whatever the
// ports' order (kcm's addrTypePortMapKey).
func groupKey(t api.AddressType, ports []api.EndpointSlicePort) string {
	ks := make([]string, 0, len(ports))
	for _, p := range ports {
		b, _ := json.Marshal(p)
		ks = append(ks, string(b))
	}
	slices.Sort(ks)
	return string(t) + "-" + strings.Join(ks, ",")
}

// endpointHash identifies an endpoint as kcm's hashEndpoint: its
// addresses, hostname and target's namespace and name.
func endpointHash(e api.Endpoint) string {
	addrs := slices.Sorted(slices.Values(e.Addresses))
	h := ""
	if e.Hostname != nil {
		h = *e.Hostname
	}
	ns, name := "", ""
	if e.TargetRef != nil {
		ns, name = e.TargetRef.Namespace, e.TargetRef.Name
	}
	b, _ := json.Marshal([]any{addrs, h, ns, name})
	return string(b)
}

func withoutKeys(m map[string]string, keys ...string) map[string]string {
	out := maps.Clone(m)
	for _, k := range keys {
		delete(out, k)
	}
	if out == nil {
		out = map[string]string{}
	}
	return out
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
