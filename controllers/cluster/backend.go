package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// Resource describes one kind's storage to a Backend.
type Resource struct {
	// Name is the plural resource name ("pods", "deployments"), the
	// segment of Kubernetes' etcd layout /registry/<Name>/<namespace>/<name>.
	Name string
	// Kind is the kind ("Pod").
	Kind string
	// Namespaced is true when objects are keyed "namespace/name", false
	// when keyed "name".
	Namespaced bool
}

// RawObject is one stored object as a Backend sees it: its key
// ("namespace/name" or "name"), its JSON encoding, and the resourceVersion
// the backend stamps into it. The JSON never holds metadata.resourceVersion.
type RawObject struct {
	// Key is the object's key; set on writes, empty on what a backend
	// reads back (the cluster decodes Data instead).
	Key string
	// Data is the object's JSON encoding. Backends must not change it.
	Data []byte
	// ResourceVersion is the version of the object's last write.
	ResourceVersion string
}

// GetResourceVersion returns r.ResourceVersion (source.Versioned).
func (r *RawObject) GetResourceVersion() string { return r.ResourceVersion }

// SetResourceVersion sets r.ResourceVersion (source.VersionSetter).
func (r *RawObject) SetResourceVersion(rv string) { r.ResourceVersion = rv }

// RawStorage is the storage of one resource: a source of RawObjects with
// the writes, keyed by RawObject.Key, with ordered resourceVersions.
// etcd.Source[*RawObject] with a pass-through codec is one.
type RawStorage interface {
	source.ListWatcher[*RawObject]
	source.Writer[*RawObject]
	source.VersionComparer
}

// Backend makes the storage of each resource of a Cluster that does not
// keep its objects in memory. The cluster encodes objects as JSON, so a
// backend stores bytes: Go methods cannot have type parameters, and bytes
// are what a distributed store keeps anyway. Open is called once per
// resource by New.
type Backend interface {
	// Open returns the storage of resource r: an empty one for a new
	// cluster, or the one holding r's objects for a cluster that exists.
	Open(r Resource) (RawStorage, error)
}

// storage is what a Store needs from its backend, typed.
type storage[T any] interface {
	source.ListWatcher[T]
	source.Writer[T]
	source.VersionComparer
}

// memoryWatchBudget is the in-memory backend's fake.Options.WatchBudget.
const memoryWatchBudget = time.Second

// memoryWatchBuffer is the in-memory backend's fake.Options.WatchBuffer:
// a burst of writes as large as 20 Deployments of 5,000 pods waits for a
// busy reader — the shared watch behind the kubelets' indexed watches
// above all, whose end makes every kubelet relist — instead of ending its
// watch (at 16,384 that watch was ended in the 100,000-pod run, and 5,000
// kubelets relisting 100,000 pods each never settled). The queue grows
// only as a reader falls behind; a queued event holds a pointer to the
// object the history holds anyway, about 100 bytes: at most 13 MB per
// watcher.
const memoryWatchBuffer = 1 << 17

// memoryStorage is the default: a fake.Source that copies what it stores
// and what Get returns, so no reader shares the writer's object, and
// measures objects by their JSON encoding, for its history's byte bound
// and the object size limit.
func memoryStorage[T api.Object](opts Options) (storage[T], error) {
	src, err := fake.NewSource(api.Key[T], fake.Options[T]{
		HistorySize:   opts.HistorySize,
		HistoryBytes:  opts.HistoryBytes,
		Size:          encodedSize[T],
		MaxObjectSize: opts.MaxObjectBytes,
		Copy:          deepCopy[T],
		// A past version the history keeps shares what did not change
		// with the version that replaced it.
		Share: shareUnchanged[T],
		// A created object shares what it has in common with its
		// siblings: the pods of one ReplicaSet, one template.
		ShareCreated: new(siblings[T]).share,
		// The store drops no-op updates itself, comparing encodings.
		Equal: fake.NeverEqual[T],
		// The watchers are this process's informers, slow only when
		// starved of CPU by the writers themselves: a write waits up to
		// a second for them (the writers then go at their pace) rather
		// than ending a watch, which costs a relist.
		WatchBudget: memoryWatchBudget,
		WatchBuffer: memoryWatchBuffer,
		// A watcher still full after the budget goes on from the
		// history (an etcd unsynced watcher) rather than being ended.
		CatchUp: true,
	})
	if err != nil {
		return nil, err
	}
	return memory[T]{src}, nil
}

// memory is the in-memory storage: a fake.Source whose size refusals
// wrap ErrTooLarge.
type memory[T any] struct{ *fake.Source[T] }

func (m memory[T]) Create(ctx context.Context, obj T) (string, error) {
	rv, err := m.Source.Create(ctx, obj)
	return rv, tooLarge(err)
}

func (m memory[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	rv, err := m.Source.Update(ctx, obj, ifVersion)
	return rv, tooLarge(err)
}

// rawStorage adapts a RawStorage to objects of type T.
type rawStorage[T api.Object] struct {
	raw  RawStorage
	kind *kind[T]
	// maxBytes is Options.MaxObjectBytes.
	maxBytes int
}

// encode encodes obj for the backend, refusing with ErrTooLarge an
// encoding larger than maxBytes.
func (r *rawStorage[T]) encode(obj T) (*RawObject, error) {
	m := obj.GetObjectMeta()
	rv := m.ResourceVersion
	m.ResourceVersion = ""
	data, err := json.Marshal(obj)
	m.ResourceVersion = rv
	if err != nil {
		return nil, fmt.Errorf("cluster: encode %s %q: %w", r.kind.resource, api.Key(obj), err)
	}
	if len(data) > r.maxBytes {
		return nil, fmt.Errorf("cluster: %s %q: the object has %d bytes, more than the limit of %d: %w",
			r.kind.resource, api.Key(obj), len(data), r.maxBytes, ErrTooLarge)
	}
	return &RawObject{Key: api.Key(obj), Data: data, ResourceVersion: rv}, nil
}

func (r *rawStorage[T]) decode(ro *RawObject) (T, error) {
	obj := r.kind.newObject()
	if ro == nil {
		return obj, fmt.Errorf("cluster: %s: the backend returned a nil object", r.kind.resource)
	}
	if err := json.Unmarshal(ro.Data, obj); err != nil {
		return obj, fmt.Errorf("cluster: decode %s %q: %w", r.kind.resource, ro.Key, err)
	}
	obj.SetResourceVersion(ro.ResourceVersion)
	return obj, nil
}

func (r *rawStorage[T]) Get(ctx context.Context, key string) (T, string, error) {
	ro, rv, err := r.raw.Get(ctx, key)
	if err != nil {
		var zero T
		return zero, "", err
	}
	obj, err := r.decode(ro)
	obj.SetResourceVersion(rv)
	return obj, rv, err
}

func (r *rawStorage[T]) Create(ctx context.Context, obj T) (string, error) {
	ro, err := r.encode(obj)
	if err != nil {
		return "", err
	}
	return r.raw.Create(ctx, ro)
}

func (r *rawStorage[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	ro, err := r.encode(obj)
	if err != nil {
		return "", err
	}
	return r.raw.Update(ctx, ro, ifVersion)
}

func (r *rawStorage[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	return r.raw.Delete(ctx, key, ifVersion)
}

func (r *rawStorage[T]) CompareResourceVersions(a, b string) (int, error) {
	return r.raw.CompareResourceVersions(a, b)
}

func (r *rawStorage[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	l, err := r.raw.List(ctx, opts)
	if err != nil {
		return source.List[T]{}, err
	}
	out := source.List[T]{ResourceVersion: l.ResourceVersion, Continue: l.Continue, Items: make([]T, 0, len(l.Items))}
	for _, ro := range l.Items {
		obj, err := r.decode(ro)
		if err != nil {
			return source.List[T]{}, err
		}
		out.Items = append(out.Items, obj)
	}
	return out, nil
}

func (r *rawStorage[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	innerCtx, cancel := context.WithCancel(ctx)
	in, err := r.raw.Watch(innerCtx, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan source.Event[T])
	go func() {
		// Close out, end the raw watch and drain it.
		defer func() {
			for range in {
			}
		}()
		defer cancel()
		defer close(out)
		for ev := range in {
			tev := source.Event[T]{Type: ev.Type, ResourceVersion: ev.ResourceVersion, InitialEventsEnd: ev.InitialEventsEnd, Err: ev.Err}
			if ev.Object != nil {
				obj, err := r.decode(ev.Object)
				if err != nil {
					tev = source.Event[T]{Type: source.Error, Err: err}
				}
				tev.Object = obj
			}
			select {
			case out <- tev:
			case <-ctx.Done():
				return
			}
			if tev.Type == source.Error {
				return
			}
		}
	}()
	return out, nil
}
