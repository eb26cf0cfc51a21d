package apiserver

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
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
	// builtin is true for the built-in kinds of controllers/api, false
	// for the kinds added with api.Register (served as custom resources
	// are: no strategic merge patch).
	builtin bool
	// printer is the columns and cells of the resource's tables.
	printer printer
	// unstructured says that the kind's objects are api.Unstructured
	// (a CustomResourceDefinition's kind).
	unstructured bool
	// servedType is the Go type of a version served converted over the
	// store of another (converted.go), as OpenAPI describes it.
	servedType reflect.Type
}

func (r *resourceInfo) gvk() api.GroupVersionKind {
	return api.GroupVersionKind{Group: r.group, Version: r.version, Kind: r.kind}
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
	// current reports whether the handler still serves its kind's store
	// in the cluster (a kind added with api.Register may go away, or be
	// opened anew).
	current(c *cluster.Cluster) bool
}

func newResourceInfo(ki *api.KindInfo) *resourceInfo {
	return &resourceInfo{
		group: ki.Group, version: ki.Version, kind: ki.Kind,
		name:       ki.Resource,
		namespaced: ki.Namespaced,
		shortNames: ki.ShortNames,
		categories: ki.Categories,
		hasStatus:  ki.Status,
		hasScale:   ki.Scale,
		builtin:    api.IsBuiltin(ki.GroupVersionKind),
		printer:    printerOf(ki),

		unstructured: ki.GoType() == reflect.TypeFor[*api.Unstructured](),
	}
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
	h := &typed[T]{srv: s, store: st, res: newResourceInfo(&ki)}
	s.builtins = append(s.builtins, h)
	return nil
}

// kindInstance is register instantiated for the Go type of one kind;
// kindInstances (zz_generated_kinds.go, written by go generate in
// controllers/api) holds one per built-in kind.
type kindInstance struct {
	typ      reflect.Type
	register func(*Server, *cluster.Cluster) error
}

func instantiate[T api.Object]() kindInstance {
	return kindInstance{reflect.TypeFor[T](), register[T]}
}

// registerAll registers the handler of every built-in kind of
// controllers/api, in the order of api.Registered (the order of
// discovery). The kinds added with api.Register are served through
// dynamic handlers, made at their first use (see served and lookup).
func registerAll(s *Server, c *cluster.Cluster) error {
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) {
			continue
		}
		i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == k.GoType() })
		if i < 0 {
			return fmt.Errorf("apiserver: no handler for %s (%v): run go generate in controllers/api", k.GroupVersionKind, k.GoType())
		}
		if err := kindInstances[i].register(s, c); err != nil {
			return err
		}
	}
	if err := servedConversions(s, c); err != nil { // converted.go
		return err
	}
	for _, h := range s.builtins {
		s.builtinByPath[h.info().groupVersion()+"/"+h.info().name] = h
	}
	return nil
}

// dynamicHandler returns the handler of a kind added with api.Register,
// made from its registration over the cluster's store of it (which the
// cluster opens at its first use); false when the cluster does not serve
// the kind.
func (s *Server) dynamicHandler(ki api.KindInfo) (handler, bool) {
	key := ki.GroupVersionKind
	s.dynMu.Lock()
	defer s.dynMu.Unlock()
	if h, ok := s.dynamic[key]; ok && h.current(s.c) {
		return h, true
	}
	st, ok := s.c.DynamicStore(key)
	if !ok {
		delete(s.dynamic, key)
		return nil, false
	}
	info := st.KindInfo() // the kind as the cluster serves it (a CRD's, maybe)
	h := &typed[api.Object]{srv: s, store: st, res: newResourceInfo(&info)}
	s.dynamic[key] = h
	return h, true
}

// served returns the handler of every kind served now, in discovery's
// order: the built-in kinds, then the kinds added with api.Register in
// the order they were registered, then any other kind the cluster serves
// dynamically. Kinds come (and may go) while the server runs: this is
// read at each discovery request.
func (s *Server) served() []handler {
	out := slices.Clone(s.builtins)
	seen := map[api.GroupVersionKind]bool{}
	add := func(k api.KindInfo) {
		if api.IsBuiltin(k.GroupVersionKind) || seen[k.GroupVersionKind] {
			return
		}
		seen[k.GroupVersionKind] = true
		if h, ok := s.dynamicHandler(k); ok {
			out = append(out, h)
		}
	}
	for _, k := range api.Registered() {
		add(k)
	}
	for _, k := range s.c.Kinds() {
		add(k)
	}
	return out
}

// lookup returns the handler of resource in the group version gv
// ("v1", "apps/v1"): a built-in kind's, else that of a kind added with
// api.Register or served dynamically by the cluster, looked up now, so
// that a kind registered after New is served.
func (s *Server) lookup(gv, resource string) (handler, bool) {
	if h, ok := s.builtinByPath[gv+"/"+resource]; ok {
		return h, true
	}
	group, version, ok := strings.Cut(gv, "/")
	if !ok {
		group, version = "", gv
	}
	for _, ki := range s.c.Kinds() {
		if ki.Group == group && ki.Version == version && ki.Resource == resource && !api.IsBuiltin(ki.GroupVersionKind) {
			return s.dynamicHandler(ki)
		}
	}
	if ki, ok := api.InfoOfResource(group, resource); ok && !api.IsBuiltin(ki.GroupVersionKind) && ki.Version == version {
		return s.dynamicHandler(ki) // registered after the cluster was made: opened now
	}
	return nil, false
}

// compareVersions orders Kubernetes API versions as kube-apiserver's
// discovery does (version.CompareKubeAwareVersionStrings), highest
// priority first: GA, then beta, then alpha, each by major then minor
// number descending; versions of another form last, alphabetically.
func compareVersions(a, b string) int {
	pa, pb := parseVersion(a), parseVersion(b)
	if c := cmp.Compare(pb.rank, pa.rank); c != 0 {
		return c
	}
	if pa.rank == 0 {
		return strings.Compare(a, b)
	}
	if c := cmp.Compare(pb.major, pa.major); c != 0 {
		return c
	}
	return cmp.Compare(pb.minor, pa.minor)
}

type parsedVersion struct {
	rank         int // 3 GA, 2 beta, 1 alpha, 0 other
	major, minor int
}

func parseVersion(v string) parsedVersion {
	rest, ok := strings.CutPrefix(v, "v")
	if !ok {
		return parsedVersion{}
	}
	i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if i == 0 {
		return parsedVersion{}
	}
	num, tail := rest, ""
	if i > 0 {
		num, tail = rest[:i], rest[i:]
	}
	major, err := strconv.Atoi(num)
	if err != nil {
		return parsedVersion{}
	}
	if tail == "" {
		return parsedVersion{rank: 3, major: major}
	}
	for _, stage := range []struct {
		name string
		rank int
	}{{"beta", 2}, {"alpha", 1}} {
		if m, ok := strings.CutPrefix(tail, stage.name); ok {
			minor, err := strconv.Atoi(m)
			if err != nil {
				return parsedVersion{}
			}
			return parsedVersion{rank: stage.rank, major: major, minor: minor}
		}
	}
	return parsedVersion{}
}
