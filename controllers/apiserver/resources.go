package apiserver

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// resourceInfo is what the server says about one resource: its
// api.KindInfo registration, as discovery, routing and tables use it.
type resourceInfo struct {
	group, version, kind string
	// name is the plural resource name ("pods").
	name       string
	namespaced bool
	shortNames []string
	categories []string
	hasStatus  bool
	hasScale   bool
	// printer is the columns and cells of the resource's tables.
	printer printer
}

func (r *resourceInfo) groupVersion() string {
	if r.group == "" {
		return r.version
	}
	return r.group + "/" + r.version
}

// qualified is "pods" or "deployments.apps", as kube-apiserver names a
// resource in messages.
func (r *resourceInfo) qualified() string {
	if r.group == "" {
		return r.name
	}
	return r.name + "." + r.group
}

// qualifiedKind is "Pod" or "Deployment.apps", as Invalid messages name a kind.
func (r *resourceInfo) qualifiedKind() string {
	if r.group == "" {
		return r.kind
	}
	return r.kind + "." + r.group
}

// singular is the lower-case kind.
func (r *resourceInfo) singular() string { return strings.ToLower(r.kind) }

// handler serves the requests of one resource.
type handler interface {
	info() *resourceInfo
	serve(req *request)
}

// register adds the handler of T's store in c to s.
func register[T api.Object](s *Server, c *cluster.Cluster) error {
	st, ok := cluster.StoreFor[T](c)
	if !ok {
		var zero T
		return fmt.Errorf("apiserver: the cluster has no store of %T", zero)
	}
	ki, ok := api.InfoFor[T]()
	if !ok {
		var zero T
		return fmt.Errorf("apiserver: %T is not a registered kind", zero)
	}
	info := &resourceInfo{
		group: ki.Group, version: ki.Version, kind: ki.Kind,
		name:       ki.Resource,
		namespaced: ki.Namespaced,
		shortNames: ki.ShortNames,
		categories: ki.Categories,
		hasStatus:  ki.Status,
		hasScale:   ki.Scale,
		printer:    printerOf(&ki),
	}
	h := &typed[T]{srv: s, store: st, res: info}
	s.handlers[info.groupVersion()+"/"+info.name] = h
	s.order = append(s.order, h)
	return nil
}

// kindInstance is register instantiated for the Go type of one kind;
// kindInstances (zz_generated_kinds.go, written by go generate in
// controllers/api) holds one per registered kind.
type kindInstance struct {
	typ      reflect.Type
	register func(*Server, *cluster.Cluster) error
}

func instantiate[T api.Object]() kindInstance {
	return kindInstance{reflect.TypeFor[T](), register[T]}
}

// registerAll registers every kind of controllers/api, in the order of
// api.Registered (the order of discovery).
func registerAll(s *Server, c *cluster.Cluster) error {
	for _, k := range api.Registered() {
		i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == k.GoType() })
		if i < 0 {
			return fmt.Errorf("apiserver: no handler for %s (%v): run go generate in controllers/api", k.GroupVersionKind, k.GoType())
		}
		if err := kindInstances[i].register(s, c); err != nil {
			return err
		}
	}
	return nil
}
