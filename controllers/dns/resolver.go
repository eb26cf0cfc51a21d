package dns

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// DefaultClusterDomain is the kubelet's --cluster-domain default as
// clusters set it: cluster.local.
const DefaultClusterDomain = "cluster.local"

// Options configure New. The zero value is valid.
type Options struct {
	// ClusterDomain is the zone service names live under. Default
	// DefaultClusterDomain.
	ClusterDomain string
}

// Resolver answers service DNS names from the services and endpoints
// caches. It starts no goroutine: the informer factory's Start runs the
// caches. Its methods are safe for concurrent use and never block.
type Resolver struct {
	zone      string
	services  *informer.Informer[*api.Service]
	endpoints *informer.Informer[*api.Endpoints]
}

// New returns a resolver of the cluster that c serves, over the shared
// informers of f ("services", "endpoints"). Start f after New.
func New(c client.Client, f *informer.Factory, opts Options) (*Resolver, error) {
	if c == nil || f == nil {
		return nil, errors.New("dns: client and factory are required")
	}
	services, err := client.For[*api.Service](c)
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	endpoints, err := client.For[*api.Endpoints](c)
	if err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	zone := strings.Trim(strings.ToLower(opts.ClusterDomain), ".")
	if zone == "" {
		zone = DefaultClusterDomain
	}
	r := &Resolver{zone: zone}
	if r.services, err = informer.Shared(f, services.Resource(), source.ListWatcher[*api.Service](services), api.Key[*api.Service], informer.Options[*api.Service]{}); err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	if r.endpoints, err = informer.Shared(f, endpoints.Resource(), source.ListWatcher[*api.Endpoints](endpoints), api.Key[*api.Endpoints], informer.Options[*api.Endpoints]{}); err != nil {
		return nil, fmt.Errorf("dns: %w", err)
	}
	return r, nil
}

func (r *Resolver) view() view {
	return view{
		service:   r.services.Lister().Get,
		endpoints: r.endpoints.Lister().Get,
	}
}

// WaitForCacheSync waits until both caches have synced (answers before
// that may miss services), or ctx ends; it reports whether they synced.
// It is the resolver's only call that blocks, and it returns false as
// soon as ctx ends.
func (r *Resolver) WaitForCacheSync(ctx context.Context) bool {
	return informer.WaitForCacheSync(ctx, r.services.HasSynced, r.endpoints.HasSynced)
}

// ClusterDomain returns the zone the resolver serves, e.g. "cluster.local".
func (r *Resolver) ClusterDomain() string { return r.zone }

// LookupHost answers the A query for a fully qualified name (a trailing
// dot is optional, case is ignored):
//
//   - service.namespace.svc.zone: a service's cluster IP; for a headless
//     service, the IPs of its ready endpoints;
//   - hostname.service.namespace.svc.zone: the ready endpoint of a
//     headless service with that hostname — the pod whose spec.hostname
//     it is and whose spec.subdomain is the service (a StatefulSet's
//     web-0.nginx), following the pod as the Endpoints do.
//
// The error wraps ErrNotFound when there is no such record.
func (r *Resolver) LookupHost(name string) ([]netip.Addr, error) {
	return r.view().lookupHost(name, r.zone)
}

// LookupSRV answers the SRV query for _port._proto.service.namespace.svc.zone,
// port being a named service port and proto "tcp", "udp" or "sctp": one
// record to service.namespace.svc.zone for a service with a cluster IP;
// one per ready endpoint for a headless service, to its
// hostname.service.namespace.svc.zone (its dashed IP when it has no
// hostname) with the endpoint's port. The error wraps ErrNotFound when
// there is no such record.
func (r *Resolver) LookupSRV(name string) ([]SRV, error) {
	return r.view().lookupSRV(name, r.zone)
}

// LookupCNAME answers an ExternalName service's name with its
// spec.externalName, fully qualified. The error wraps ErrNotFound for
// any other name.
func (r *Resolver) LookupCNAME(name string) (string, error) {
	return r.view().lookupCNAME(name, r.zone)
}

// Search returns the names a pod of namespace ns tries for name, as the
// kubelet's resolv.conf for ClusterFirst pods makes it ("search
// ns.svc.zone svc.zone zone", "options ndots:5"): a name with fewer than
// five dots is tried under each search domain first, then as is.
func (r *Resolver) Search(ns, name string) []string {
	name = strings.ToLower(name)
	if strings.HasSuffix(name, ".") {
		return []string{name}
	}
	search := []string{ns + ".svc." + r.zone, "svc." + r.zone, r.zone}
	var out []string
	if strings.Count(name, ".") >= 5 {
		out = append(out, name+".")
	}
	for _, d := range search {
		out = append(out, name+"."+d+".")
	}
	if strings.Count(name, ".") < 5 {
		out = append(out, name+".")
	}
	return out
}

// LookupHostFrom resolves name as a pod of namespace ns would (Search):
// "web" or "web.default" find the service web of namespace default. It
// returns the first answer, with the name that gave it.
func (r *Resolver) LookupHostFrom(ns, name string) (string, []netip.Addr, error) {
	v := r.view()
	for _, n := range r.Search(ns, name) {
		if ips, err := v.lookupHost(n, r.zone); err == nil {
			return n, ips, nil
		}
	}
	return "", nil, fmt.Errorf("%w: %s (from namespace %s)", ErrNotFound, name, ns)
}
