package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"reflect"
	"sync"

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
	// validation and the namespace lifecycle check, before Admission,
	// and may change the object (see MutatingFunc); the first error
	// aborts the write. The ServiceAccount admission plugs in here.
	// Default: none.
	Mutating []MutatingFunc
	// Admission runs, in order, on every create and update that passed
	// validation, after the namespace lifecycle check; the first error
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
}

// Cluster holds one Store per kind of controllers/api and applies
// kube-apiserver's write semantics to all of them; see the package
// documentation. It is safe for concurrent use and starts no goroutine.
type Cluster struct {
	opts Options

	// allocMu serializes service creates, so that two never take the
	// same cluster IP or node port.
	allocMu sync.Mutex

	pods                     *Store[*api.Pod]
	nodes                    *Store[*api.Node]
	services                 *Store[*api.Service]
	endpoints                *Store[*api.Endpoints]
	replicaSets              *Store[*api.ReplicaSet]
	replicationControllers   *Store[*api.ReplicationController]
	deployments              *Store[*api.Deployment]
	statefulSets             *Store[*api.StatefulSet]
	daemonSets               *Store[*api.DaemonSet]
	controllerRevisions      *Store[*api.ControllerRevision]
	jobs                     *Store[*api.Job]
	cronJobs                 *Store[*api.CronJob]
	namespaces               *Store[*api.Namespace]
	resourceQuotas           *Store[*api.ResourceQuota]
	serviceAccounts          *Store[*api.ServiceAccount]
	configMaps               *Store[*api.ConfigMap]
	secrets                  *Store[*api.Secret]
	persistentVolumes        *Store[*api.PersistentVolume]
	persistentVolumeClaims   *Store[*api.PersistentVolumeClaim]
	storageClasses           *Store[*api.StorageClass]
	horizontalPodAutoscalers *Store[*api.HorizontalPodAutoscaler]
	leases                   *Store[*api.Lease]
	events                   *Store[*api.Event]

	// byType and byKind index the stores (read-only after New).
	byType map[reflect.Type]any
	byKind map[string]objectStore
}

// objectStore is a Store seen through api.Object, for CreateObject.
type objectStore interface {
	createObject(ctx context.Context, obj api.Object) (string, error)
	gvk() api.GroupVersionKind
	Resource() string
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
	c := &Cluster{opts: opts, byType: map[reflect.Type]any{}, byKind: map[string]objectStore{}}
	var err error
	open := func(fn func() error) {
		if err == nil {
			err = fn()
		}
	}
	open(func() (e error) { c.pods, e = register(c, podKind()); return })
	open(func() (e error) { c.nodes, e = register(c, nodeKind()); return })
	open(func() (e error) { c.services, e = register(c, serviceKind()); return })
	open(func() (e error) { c.endpoints, e = register(c, newKind[*api.Endpoints]("endpoints")); return })
	open(func() (e error) { c.replicaSets, e = register(c, replicaSetKind()); return })
	open(func() (e error) {
		c.replicationControllers, e = register(c, replicationControllerKind())
		return
	})
	open(func() (e error) { c.deployments, e = register(c, deploymentKind()); return })
	open(func() (e error) { c.statefulSets, e = register(c, statefulSetKind()); return })
	open(func() (e error) { c.daemonSets, e = register(c, daemonSetKind()); return })
	open(func() (e error) {
		c.controllerRevisions, e = register(c, newKind[*api.ControllerRevision]("controllerrevisions"))
		return
	})
	open(func() (e error) { c.jobs, e = register(c, jobKind()); return })
	open(func() (e error) { c.cronJobs, e = register(c, cronJobKind()); return })
	open(func() (e error) { c.namespaces, e = register(c, namespaceKind()); return })
	open(func() (e error) {
		c.resourceQuotas, e = register(c, newKind[*api.ResourceQuota]("resourcequotas"))
		return
	})
	open(func() (e error) {
		c.serviceAccounts, e = register(c, newKind[*api.ServiceAccount]("serviceaccounts"))
		return
	})
	open(func() (e error) { c.configMaps, e = register(c, configMapKind()); return })
	open(func() (e error) { c.secrets, e = register(c, secretKind()); return })
	open(func() (e error) {
		c.persistentVolumes, e = register(c, persistentVolumeKind())
		return
	})
	open(func() (e error) {
		c.persistentVolumeClaims, e = register(c, persistentVolumeClaimKind())
		return
	})
	open(func() (e error) {
		c.storageClasses, e = register(c, newKind[*api.StorageClass]("storageclasses"))
		return
	})
	open(func() (e error) {
		c.horizontalPodAutoscalers, e = register(c, newKind[*api.HorizontalPodAutoscaler]("horizontalpodautoscalers"))
		return
	})
	open(func() (e error) { c.leases, e = register(c, newKind[*api.Lease]("leases")); return })
	open(func() (e error) { c.events, e = register(c, eventKind()); return })
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		ns := &api.Namespace{ObjectMeta: api.ObjectMeta{Name: name}}
		if _, err := c.namespaces.Create(ctx, ns); err != nil && !errors.Is(err, source.ErrAlreadyExists) {
			return nil, fmt.Errorf("cluster: New: %w", err)
		}
	}
	return c, nil
}

// register opens the storage of k and indexes its store.
func register[T api.Object](c *Cluster, k *kind[T]) (*Store[T], error) {
	var st storage[T]
	if c.opts.Backend == nil {
		var err error
		if st, err = memoryStorage[T](c.opts); err != nil {
			return nil, fmt.Errorf("cluster: New: %s: %w", k.resource, err)
		}
	} else {
		raw, err := c.opts.Backend.Open(Resource{Name: k.resource, Kind: k.gvk.Kind, Namespaced: k.namespaced})
		if err != nil {
			return nil, fmt.Errorf("cluster: New: open %s: %w", k.resource, err)
		}
		if raw == nil {
			return nil, fmt.Errorf("cluster: New: the backend opened %s as nil", k.resource)
		}
		st = &rawStorage[T]{raw: raw, kind: k, maxBytes: c.opts.MaxObjectBytes}
	}
	s := &Store[T]{c: c, kind: k, s: st}
	var zero T
	c.byType[reflect.TypeOf(zero)] = s
	c.byKind[k.gvk.Kind] = s
	return s, nil
}

// StoreFor returns c's store of objects of type T (for example
// StoreFor[*api.Pod]), for code generic over kinds; false when T is not a
// kind of controllers/api.
func StoreFor[T api.Object](c *Cluster) (*Store[T], bool) {
	var zero T
	s, ok := c.byType[reflect.TypeOf(zero)].(*Store[T])
	return s, ok
}

// CreateObject creates obj in the store of its kind, as that store's
// Create does (obj is overwritten with the stored object); for objects
// of a type known only at run time, such as decoded manifests.
func (c *Cluster) CreateObject(ctx context.Context, obj api.Object) (string, error) {
	if obj == nil || reflect.ValueOf(obj).IsNil() {
		return "", fmt.Errorf("cluster: create: nil object: %w", ErrBadRequest)
	}
	s, ok := c.byKind[obj.GroupVersionKind().Kind]
	if !ok {
		return "", fmt.Errorf("cluster: create: no store for %s: %w", obj.GroupVersionKind(), ErrBadRequest)
	}
	return s.createObject(ctx, obj)
}

// Pods returns the store of pods.
func (c *Cluster) Pods() *Store[*api.Pod] { return c.pods }

// Nodes returns the store of nodes.
func (c *Cluster) Nodes() *Store[*api.Node] { return c.nodes }

// Services returns the store of services.
func (c *Cluster) Services() *Store[*api.Service] { return c.services }

// Endpoints returns the store of endpoints.
func (c *Cluster) Endpoints() *Store[*api.Endpoints] { return c.endpoints }

// ReplicaSets returns the store of replica sets.
func (c *Cluster) ReplicaSets() *Store[*api.ReplicaSet] { return c.replicaSets }

// ReplicationControllers returns the store of replication controllers.
func (c *Cluster) ReplicationControllers() *Store[*api.ReplicationController] {
	return c.replicationControllers
}

// Deployments returns the store of deployments.
func (c *Cluster) Deployments() *Store[*api.Deployment] { return c.deployments }

// StatefulSets returns the store of stateful sets.
func (c *Cluster) StatefulSets() *Store[*api.StatefulSet] { return c.statefulSets }

// DaemonSets returns the store of daemon sets.
func (c *Cluster) DaemonSets() *Store[*api.DaemonSet] { return c.daemonSets }

// ControllerRevisions returns the store of controller revisions.
func (c *Cluster) ControllerRevisions() *Store[*api.ControllerRevision] {
	return c.controllerRevisions
}

// Jobs returns the store of jobs.
func (c *Cluster) Jobs() *Store[*api.Job] { return c.jobs }

// CronJobs returns the store of cron jobs.
func (c *Cluster) CronJobs() *Store[*api.CronJob] { return c.cronJobs }

// Namespaces returns the store of namespaces.
func (c *Cluster) Namespaces() *Store[*api.Namespace] { return c.namespaces }

// ResourceQuotas returns the store of resource quotas.
func (c *Cluster) ResourceQuotas() *Store[*api.ResourceQuota] { return c.resourceQuotas }

// ServiceAccounts returns the store of service accounts.
func (c *Cluster) ServiceAccounts() *Store[*api.ServiceAccount] { return c.serviceAccounts }

// ConfigMaps returns the store of config maps.
func (c *Cluster) ConfigMaps() *Store[*api.ConfigMap] { return c.configMaps }

// Secrets returns the store of secrets.
func (c *Cluster) Secrets() *Store[*api.Secret] { return c.secrets }

// PersistentVolumes returns the store of persistent volumes.
func (c *Cluster) PersistentVolumes() *Store[*api.PersistentVolume] { return c.persistentVolumes }

// PersistentVolumeClaims returns the store of persistent volume claims.
func (c *Cluster) PersistentVolumeClaims() *Store[*api.PersistentVolumeClaim] {
	return c.persistentVolumeClaims
}

// StorageClasses returns the store of storage classes.
func (c *Cluster) StorageClasses() *Store[*api.StorageClass] { return c.storageClasses }

// HorizontalPodAutoscalers returns the store of horizontal pod autoscalers.
func (c *Cluster) HorizontalPodAutoscalers() *Store[*api.HorizontalPodAutoscaler] {
	return c.horizontalPodAutoscalers
}

// Leases returns the store of leases.
func (c *Cluster) Leases() *Store[*api.Lease] { return c.leases }

// Events returns the store of events.
func (c *Cluster) Events() *Store[*api.Event] { return c.events }
