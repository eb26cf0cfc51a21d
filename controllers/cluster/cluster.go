package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// Options configures a Cluster. The zero value is a valid in-memory
// cluster without admission hooks.
type Options struct {
	// Backend stores the objects. nil (the default) keeps them in memory,
	// one fake.Source per kind that copies what it stores and what Get
	// returns.
	Backend Backend
	// Mutating runs, in order, on every create and update that passed
	// validation and the namespace lifecycle check, and on every delete
	// whose preconditions hold (see AdmissionFunc), before Admission,
	// and may change the object (see MutatingFunc); the first error
	// aborts the write. The ServiceAccount admission plugs in here.
	// Default: none.
	Mutating []MutatingFunc
	// Admission runs, in order, on every create and update that passed
	// validation, after the namespace lifecycle check, and on every
	// delete whose preconditions hold; the first error
	// aborts the write and is returned wrapped. The quota admission
	// plugs in here. Default: none.
	Admission []AdmissionFunc
	// HistorySize is how many writes per kind the in-memory backend
	// remembers for watches and lists at old versions (see
	// fake.Options.HistorySize). Default fake.DefaultHistorySize;
	// negative is an error. Ignored with a Backend.
	HistorySize int
	// HistoryBytes bounds, besides HistorySize, the bytes of past object
	// versions the in-memory backend keeps per kind, counting objects by
	// their JSON encoding (see fake.Options.HistoryBytes): a version older
	// than what is kept is expired (source.ErrExpired, 410 Gone through an
	// API server). Default fake.DefaultHistoryBytes (32 MiB); negative is
	// an error. Ignored with a Backend, which keeps its own history.
	HistoryBytes int64
	// MaxObjectBytes is the largest object, encoded as JSON, that a
	// create or update may store; a larger one fails with an error
	// wrapping ErrTooLarge and nothing is written, as etcd refuses
	// values over its --max-request-bytes. Default DefaultMaxObjectBytes
	// (1.5 MiB, etcd's default); negative is an error. It applies to every
	// backend, and bounds what one write can pin in the history.
	MaxObjectBytes int
	// ServiceCIDR is the IPv4 range cluster IPs are allocated from
	// (kube-apiserver's --service-cluster-ip-range); its network and
	// broadcast addresses are never given out. Default
	// DefaultServiceCIDR, 10.96.0.0/12. See allocate.go.
	ServiceCIDR netip.Prefix
	// NodePortRange is the range node ports are allocated from
	// (--service-node-port-range). Default 30000-32767.
	NodePortRange PortRange
	// BuiltinKindsOnly serves the built-in kinds and those of the
	// CustomResourceDefinitions stored, not the kinds this program added
	// with api.Register: the cluster a separate kube-apiserver (or
	// `ctrlkit up`) is, where an operator's kind exists once its CRD is
	// applied. Default false: registered kinds are served.
	BuiltinKindsOnly bool
	// ValidationRules, if set, compiles the x-kubernetes-validations (CEL)
	// rules of each CustomResourceDefinition version's schema; the
	// cluster then checks every write of a custom resource against them
	// (transition rules with the stored object on updates), and a
	// definition whose rules do not compile is refused (422). The
	// github.com/ctrlkit/ctrlkit/crdcel module provides it, with
	// kube-apiserver's CEL environment. Default nil: the rules are not
	// evaluated (an API server warns on a definition's write).
	ValidationRules ValidationRules
}

// ValidationRules compiles the x-kubernetes-validations rules of schema,
// a CustomResourceDefinition version's openAPIV3Schema, into a check;
// the errors are the rules that do not compile, at field paths under the
// schema's root ("spec.x-kubernetes-validations[0].rule"). A schema
// without rules may return a nil check.
type ValidationRules func(schema *api.JSONSchemaProps) (RuleCheck, []api.FieldError)

// RuleCheck checks obj, a whole custom resource as a JSON map, against
// the compiled rules; old is the stored object on an update (for
// transition rules, oldSelf) and nil on a create. It returns the rules
// that fail, as kube-apiserver reports them.
type RuleCheck func(ctx context.Context, obj, old map[string]any) []api.FieldError

// EvaluatesValidationRules reports whether c checks the
// x-kubernetes-validations (CEL) rules of custom resources
// (Options.ValidationRules).
func (c *Cluster) EvaluatesValidationRules() bool { return c.opts.ValidationRules != nil }

// Cluster holds one Store per kind registered in controllers/api
// (api.Registered) and applies
// kube-apiserver's write semantics to all of them; see the package
// documentation. It is safe for concurrent use and starts no goroutine.
type Cluster struct {
	opts Options

	// allocMu serializes service creates, so that two never take the
	// same cluster IP or node port.
	allocMu sync.Mutex

	// byType indexes the stores of the built-in kinds (read-only after
	// New).
	byType map[reflect.Type]any
	// kinds indexes every store by group and kind; it is replaced, never
	// changed, when kindsMu's holder opens the store of a kind registered
	// after New.
	kinds   atomic.Pointer[kindTable]
	kindsMu sync.Mutex

	// crds are the kinds CustomResourceDefinitions define, by group and
	// kind (see crd.go); crdMu guards it and is taken before kindsMu.
	crds  map[[2]string]*crdServe
	crdMu sync.Mutex
}

// kindTable indexes the stores of a cluster by group and kind, and lists
// them in the order they were opened.
type kindTable struct {
	byGroupKind map[[2]string]objectStore
	order       []objectStore
}

// with returns a copy of t with s added.
func (t *kindTable) with(s objectStore) *kindTable {
	n := &kindTable{byGroupKind: make(map[[2]string]objectStore, len(t.byGroupKind)+1), order: append(slices.Clone(t.order), s)}
	for k, v := range t.byGroupKind {
		n.byGroupKind[k] = v
	}
	g := s.gvk()
	n.byGroupKind[[2]string{g.Group, g.Kind}] = s
	return n
}

// withCRD returns a copy of t in which the stores of the kind key are
// views (none: the kind is no longer served); views[0] is the one
// lookups by group and kind find.
func (t *kindTable) withCRD(key [2]string, views []*Store[api.Object]) *kindTable {
	n := &kindTable{byGroupKind: make(map[[2]string]objectStore, len(t.byGroupKind)+1)}
	for k, v := range t.byGroupKind {
		if k != key {
			n.byGroupKind[k] = v
		}
	}
	for _, s := range t.order {
		if g := s.gvk(); [2]string{g.Group, g.Kind} != key {
			n.order = append(n.order, s)
		}
	}
	for i, v := range views {
		if i == 0 {
			n.byGroupKind[key] = v
		}
		n.order = append(n.order, v)
	}
	return n
}

// objectStore is a Store seen through api.Object, for CreateObject.
type objectStore interface {
	createObject(ctx context.Context, obj api.Object) (string, error)
	gvk() api.GroupVersionKind
	kindInfo() api.KindInfo
	Resource() string
	currentVersion(ctx context.Context) (string, error)
}

// currentVersion returns the resourceVersion a List of the store reports
// now.
func (s *Store[T]) currentVersion(ctx context.Context) (string, error) {
	l, err := s.List(ctx, source.ListOptions{Limit: 1})
	if err != nil {
		return "", err
	}
	return l.ResourceVersion, nil
}

// KindInfo returns the registration of the store's kind as the cluster
// serves it: a built-in kind's, a registered Go type's, or the one a
// CustomResourceDefinition's version makes.
func (s *Store[T]) KindInfo() api.KindInfo { return s.kindInfo() }

func (s *Store[T]) kindInfo() api.KindInfo {
	if s.kind.infoFn != nil {
		return s.kind.infoFn()
	}
	return s.kind.info
}

func (s *Store[T]) createObject(ctx context.Context, obj api.Object) (string, error) {
	t, ok := obj.(T)
	if !ok {
		return "", fmt.Errorf("cluster: create %s: got a %T: %w", s.kind.resource, obj, ErrBadRequest)
	}
	return s.Create(ctx, t)
}

// The namespaces that exist from the start and may not be deleted.
var immortalNamespaces = map[string]bool{"default": true, "kube-system": true, "kube-public": true}

// New returns a Cluster over opts.Backend (in memory by default) in which
// the namespaces default, kube-system, kube-public and kube-node-lease
// exist, as kube-apiserver creates them (New creates them unless the
// backend already holds them). It starts no goroutine.
func New(ctx context.Context, opts Options) (*Cluster, error) {
	if ctx == nil {
		return nil, errors.New("cluster: New: nil context")
	}
	switch {
	case opts.HistorySize < 0:
		return nil, fmt.Errorf("cluster: Options.HistorySize is negative (%d)", opts.HistorySize)
	case opts.HistoryBytes < 0:
		return nil, fmt.Errorf("cluster: Options.HistoryBytes is negative (%d)", opts.HistoryBytes)
	case opts.MaxObjectBytes < 0:
		return nil, fmt.Errorf("cluster: Options.MaxObjectBytes is negative (%d)", opts.MaxObjectBytes)
	}
	if opts.MaxObjectBytes == 0 {
		opts.MaxObjectBytes = DefaultMaxObjectBytes
	}
	for i, f := range opts.Admission {
		if f == nil {
			return nil, fmt.Errorf("cluster: Options.Admission[%d] is nil", i)
		}
	}
	if err := opts.validateServiceRanges(); err != nil {
		return nil, err
	}
	for i, f := range opts.Mutating {
		if f == nil {
			return nil, fmt.Errorf("cluster: Options.Mutating[%d] is nil", i)
		}
	}
	c := &Cluster{opts: opts, byType: map[reflect.Type]any{}, crds: map[[2]string]*crdServe{}}
	c.kinds.Store(&kindTable{byGroupKind: map[[2]string]objectStore{}})
	for _, k := range api.Registered() {
		if !api.IsBuiltin(k.GroupVersionKind) {
			if opts.BuiltinKindsOnly {
				continue
			}
			if _, err := c.openDynamic(k); err != nil {
				return nil, err
			}
			continue
		}
		i := slices.IndexFunc(kindInstances, func(i kindInstance) bool { return i.typ == k.GoType() })
		if i < 0 {
			return nil, fmt.Errorf("cluster: New: no store for %s (%v): run go generate in controllers/api", k.GroupVersionKind, k.GoType())
		}
		if err := kindInstances[i].open(c); err != nil {
			return nil, err
		}
	}
	namespaces := storeOf[*api.Namespace](c)
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}
		if _, err := namespaces.Create(ctx, ns); err != nil && !errors.Is(err, source.ErrAlreadyExists) {
			return nil, fmt.Errorf("cluster: New: %w", err)
		}
	}
	// Serve the kinds of the definitions a backend already holds.
	crds, err := storeOf[*api.CustomResourceDefinition](c).List(ctx, source.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("cluster: New: %w", err)
	}
	for _, crd := range crds.Items {
		c.crdChanged(ctx, crd.Name)
	}
	return c, nil
}

// register opens the storage of k and indexes its store.
func register[T api.Object](c *Cluster, k *kind[T]) error {
	_, err := open(c, k)
	return err
}

// open opens the storage of k and indexes its store.
func open[T api.Object](c *Cluster, k *kind[T]) (*Store[T], error) {
	var st storage[T]
	if c.opts.Backend == nil {
		var err error
		if st, err = memoryStorage[T](c.opts); err != nil {
			return nil, fmt.Errorf("cluster: open %s: %w", k.resource, err)
		}
	} else {
		name := k.resource
		if !api.IsBuiltin(k.gvk) {
			name = k.gvk.Group + "/" + k.resource // kube-apiserver's /registry/<group>/<resource>
		}
		raw, err := c.opts.Backend.Open(Resource{Name: name, Kind: k.gvk.Kind, Namespaced: k.namespaced})
		if err != nil {
			return nil, fmt.Errorf("cluster: open %s: %w", k.resource, err)
		}
		if raw == nil {
			return nil, fmt.Errorf("cluster: the backend opened %s as nil", k.resource)
		}
		st = &rawStorage[T]{raw: raw, kind: k, maxBytes: c.opts.MaxObjectBytes}
	}
	if k.wrapStorage != nil {
		st = k.wrapStorage(c, st)
	}
	s := &Store[T]{c: c, kind: k, s: st}
	if api.IsBuiltin(k.gvk) {
		var zero T
		c.byType[reflect.TypeOf(zero)] = s
	}
	c.kinds.Store(c.kinds.Load().with(s))
	return s, nil
}

// openDynamic opens the store of info, a kind added with api.Register,
// as a Store[api.Object]; the caller holds kindsMu or is New.
func (c *Cluster) openDynamic(info api.KindInfo) (*Store[api.Object], error) {
	return open(c, dynamicKind(info))
}

// lookup returns the store of the kind gvk names, opening the store of a
// kind registered with api.Register after New; false when no such kind
// is registered.
func (c *Cluster) lookup(gvk api.GroupVersionKind) (objectStore, bool) {
	key := [2]string{gvk.Group, gvk.Kind}
	if s, ok := c.kinds.Load().byGroupKind[key]; ok {
		return s, true
	}
	info, ok := api.InfoOf(gvk)
	if !ok || api.IsBuiltin(gvk) || c.opts.BuiltinKindsOnly {
		return nil, false
	}
	c.kindsMu.Lock()
	defer c.kindsMu.Unlock()
	if s, ok := c.kinds.Load().byGroupKind[key]; ok {
		return s, true
	}
	s, err := c.openDynamic(info)
	if err != nil {
		return nil, false
	}
	return s, true
}

// Kinds returns the registration of every kind c serves: the built-in
// kinds and those added with api.Register, in the order their stores
// were opened (api.Registered's, for the kinds registered before New).
// A kind registered after New is served from its first use
// (ResourceFor, CreateObject, DynamicStore).
func (c *Cluster) Kinds() []api.KindInfo {
	t := c.kinds.Load()
	out := make([]api.KindInfo, len(t.order))
	for i, s := range t.order {
		out[i] = s.kindInfo()
	}
	return out
}

// ResourceVersions returns, by resource ("configmaps"), the
// resourceVersion a List of each kind of Kinds reports now (the first
// store of a resource name served by two groups): a snapshot of the
// cluster's versions, at which each kind can be listed later with
// source.Exact while the store's history still holds it — what a lagging
// API server replica may serve a reader that lists at
// resourceVersion=0. Kinds that CustomResourceDefinitions define are
// not included.
func (c *Cluster) ResourceVersions(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range c.kinds.Load().order {
		if _, dup := out[s.Resource()]; dup {
			continue
		}
		rv, err := s.currentVersion(ctx)
		if err != nil {
			return nil, fmt.Errorf("cluster: version of %s: %w", s.Resource(), err)
		}
		out[s.Resource()] = rv
	}
	return out, nil
}

// DynamicStore returns the store of gvk, a kind added with api.Register,
// whose objects it holds as api.Object (the objects are of the kind's
// Go type); for code generic over kinds known only at run time, such as
// an API server or a garbage collector. client.For gives a controller
// the same store typed. The built-in kinds' stores are StoreFor's.
func (c *Cluster) DynamicStore(gvk api.GroupVersionKind) (*Store[api.Object], bool) {
	s, ok := c.lookup(gvk)
	if !ok {
		return nil, false
	}
	d, ok := s.(*Store[api.Object])
	if ok && s.gvk() != gvk {
		return c.crdVersionStore(gvk)
	}
	return d, ok
}

// crdVersionStore returns the store of a served version of a kind a
// definition defines.
func (c *Cluster) crdVersionStore(gvk api.GroupVersionKind) (*Store[api.Object], bool) {
	c.crdMu.Lock()
	defer c.crdMu.Unlock()
	s, ok := c.crds[[2]string{gvk.Group, gvk.Kind}]
	if !ok {
		return nil, false
	}
	for _, v := range s.views {
		if v.kind.gvk == gvk {
			return v, true
		}
	}
	return nil, false
}

// StoreFor returns c's store of objects of type T (for example
// StoreFor[*api.Pod]), for code generic over kinds; false when T is not a
// kind of controllers/api.
func StoreFor[T api.Object](c *Cluster) (*Store[T], bool) {
	var zero T
	s, ok := c.byType[reflect.TypeOf(zero)].(*Store[T])
	return s, ok
}

// storeOf is StoreFor of a built-in kind, which New opened.
func storeOf[T api.Object](c *Cluster) *Store[T] {
	s, ok := StoreFor[T](c)
	if !ok {
		var zero T
		panic(fmt.Sprintf("cluster: no store of %T", zero)) // New opens one per registered kind
	}
	return s
}

// CreateObject creates obj in the store of its kind, as that store's
// Create does (obj is overwritten with the stored object); for objects
// of a type known only at run time, such as decoded manifests.
func (c *Cluster) CreateObject(ctx context.Context, obj api.Object) (string, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return "", fmt.Errorf("cluster: create: nil object: %w", ErrBadRequest)
	}
	s, ok := c.lookup(obj.GroupVersionKind())
	if !ok {
		return "", fmt.Errorf("cluster: create: no store for %s: %w", obj.GroupVersionKind(), ErrBadRequest)
	}
	return s.createObject(ctx, obj)
}

// The stores of the built-in kinds, for code written for one kind;
// StoreFor serves code generic over kinds.

// Pods returns the store of pods.
func (c *Cluster) Pods() *Store[*api.Pod] { return storeOf[*api.Pod](c) }

// Nodes returns the store of nodes.
func (c *Cluster) Nodes() *Store[*api.Node] { return storeOf[*api.Node](c) }

// Services returns the store of services.
func (c *Cluster) Services() *Store[*api.Service] { return storeOf[*api.Service](c) }

// Endpoints returns the store of endpoints.
func (c *Cluster) Endpoints() *Store[*api.Endpoints] { return storeOf[*api.Endpoints](c) }

// ReplicaSets returns the store of replica sets.
func (c *Cluster) ReplicaSets() *Store[*api.ReplicaSet] { return storeOf[*api.ReplicaSet](c) }

// ReplicationControllers returns the store of replication controllers.
func (c *Cluster) ReplicationControllers() *Store[*api.ReplicationController] {
	return storeOf[*api.ReplicationController](c)
}

// Deployments returns the store of deployments.
func (c *Cluster) Deployments() *Store[*api.Deployment] { return storeOf[*api.Deployment](c) }

// StatefulSets returns the store of stateful sets.
func (c *Cluster) StatefulSets() *Store[*api.StatefulSet] { return storeOf[*api.StatefulSet](c) }

// DaemonSets returns the store of daemon sets.
func (c *Cluster) DaemonSets() *Store[*api.DaemonSet] { return storeOf[*api.DaemonSet](c) }

// ControllerRevisions returns the store of controller revisions.
func (c *Cluster) ControllerRevisions() *Store[*api.ControllerRevision] {
	return storeOf[*api.ControllerRevision](c)
}

// Jobs returns the store of jobs.
func (c *Cluster) Jobs() *Store[*api.Job] { return storeOf[*api.Job](c) }

// CronJobs returns the store of cron jobs.
func (c *Cluster) CronJobs() *Store[*api.CronJob] { return storeOf[*api.CronJob](c) }

// Namespaces returns the store of namespaces.
func (c *Cluster) Namespaces() *Store[*api.Namespace] { return storeOf[*api.Namespace](c) }

// ResourceQuotas returns the store of resource quotas.
func (c *Cluster) ResourceQuotas() *Store[*api.ResourceQuota] {
	return storeOf[*api.ResourceQuota](c)
}

// ServiceAccounts returns the store of service accounts.
func (c *Cluster) ServiceAccounts() *Store[*api.ServiceAccount] {
	return storeOf[*api.ServiceAccount](c)
}

// ConfigMaps returns the store of config maps.
func (c *Cluster) ConfigMaps() *Store[*api.ConfigMap] { return storeOf[*api.ConfigMap](c) }

// Secrets returns the store of secrets.
func (c *Cluster) Secrets() *Store[*api.Secret] { return storeOf[*api.Secret](c) }

// PersistentVolumes returns the store of persistent volumes.
func (c *Cluster) PersistentVolumes() *Store[*api.PersistentVolume] {
	return storeOf[*api.PersistentVolume](c)
}

// PersistentVolumeClaims returns the store of persistent volume claims.
func (c *Cluster) PersistentVolumeClaims() *Store[*api.PersistentVolumeClaim] {
	return storeOf[*api.PersistentVolumeClaim](c)
}

// StorageClasses returns the store of storage classes.
func (c *Cluster) StorageClasses() *Store[*api.StorageClass] {
	return storeOf[*api.StorageClass](c)
}

// HorizontalPodAutoscalers returns the store of horizontal pod autoscalers.
func (c *Cluster) HorizontalPodAutoscalers() *Store[*api.HorizontalPodAutoscaler] {
	return storeOf[*api.HorizontalPodAutoscaler](c)
}

// Leases returns the store of leases.
func (c *Cluster) Leases() *Store[*api.Lease] { return storeOf[*api.Lease](c) }

// Events returns the store of events.
func (c *Cluster) Events() *Store[*api.Event] { return storeOf[*api.Event](c) }
