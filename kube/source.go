package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/source"
)

// Object is what a Source holds: a Kubernetes object with metadata,
// through a pointer (*corev1.Pod, *unstructured.Unstructured).
type Object interface {
	runtime.Object
	metav1.Object
}

// Options configures a Source. The zero value watches every namespace
// with no selectors.
type Options struct {
	// Namespace restricts List and Watch to one namespace, and is the
	// namespace of objects created without one. "" means all namespaces
	// (and is the only choice for cluster-scoped resources).
	Namespace string
	// LabelSelector and FieldSelector restrict List and Watch, as in
	// metav1.ListOptions. Default: everything.
	LabelSelector, FieldSelector string
	// MaxUpdateRetries bounds how often an unconditional Update (one with
	// no resourceVersion to go by) reads the object again after a
	// conflict. Default 5.
	MaxUpdateRetries int
}

func (o *Options) validate() error {
	if o.MaxUpdateRetries < 0 {
		return fmt.Errorf("kube: Options.MaxUpdateRetries is negative (%d)", o.MaxUpdateRetries)
	}
	if o.MaxUpdateRetries == 0 {
		o.MaxUpdateRetries = 5
	}
	return nil
}

// Source is a source.ListWatcher[T] and a source.Writer[T] over one
// resource of a Kubernetes API server. Keys are "namespace/name" ("name"
// for cluster-scoped objects); see Key. It is safe for concurrent use
// and starts no goroutine except one per open watch, which ends when
// the watch's context ends or its stream closes.
type Source[T Object] struct {
	client   rest.Interface
	absPath  string // "" for a group client, whose base path is its group version
	resource string
	opts     Options
	newObj   func() T
	newList  func() runtime.Object
	// accept, when set, is the Accept header of object and list requests
	// (the metadata-only form).
	accept, acceptList string
}

// New returns a Source of the typed objects T, listed as L, of resource
// (its lower-case plural, "configmaps") served by client, a typed group
// client's REST client: clientset.CoreV1().RESTClient() for
// *corev1.ConfigMap and *corev1.ConfigMapList. T and L must be pointers
// to structs registered in the client's scheme.
//
// New goes through the REST client rather than a typed client such as
// clientset.CoreV1().ConfigMaps(ns), because typed clients drop the
// response of a delete and with it the resourceVersion Delete returns.
func New[T Object, L runtime.Object](client rest.Interface, resource string, opts Options) (*Source[T], error) {
	if v := reflect.ValueOf(client); client == nil || v.Kind() == reflect.Pointer && v.IsNil() {
		return nil, errors.New("kube: New: nil client")
	}
	newObj, err := newFunc[T]()
	if err != nil {
		return nil, err
	}
	newList, err := newFunc[L]()
	if err != nil {
		return nil, err
	}
	return newSource(client, "", resource, opts, newObj, func() runtime.Object { return newList() })
}

// NewDynamic returns a Source of unstructured objects of the resource
// gvr, through a REST client configured as client-go's dynamic client
// configures its own (dynamic.ConfigFor(config)).
func NewDynamic(config *rest.Config, gvr schema.GroupVersionResource, opts Options) (*Source[*unstructured.Unstructured], error) {
	if config == nil {
		return nil, errors.New("kube: NewDynamic: nil config")
	}
	client, err := rest.UnversionedRESTClientFor(dynamic.ConfigFor(config))
	if err != nil {
		return nil, fmt.Errorf("kube: NewDynamic: %w", err)
	}
	return newSource(client, apiPath(gvr.GroupVersion()), gvr.Resource, opts,
		func() *unstructured.Unstructured { return &unstructured.Unstructured{} },
		func() runtime.Object { return &unstructured.UnstructuredList{} })
}

// The Accept headers of the metadata client (k8s.io/client-go/metadata).
const (
	acceptMetadata     = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	acceptMetadataList = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
)

// NewMetadata returns a Source of the metadata of the objects of the
// resource gvr (*metav1.PartialObjectMetadata: no spec, no status), as
// client-go's metadata client reads them: the API server strips the
// objects, so a cache of them costs a fraction of the memory. Get, List,
// Watch and Delete work; Create and Update return an error wrapping
// source.ErrUnsupported, since metadata cannot be written alone.
func NewMetadata(config *rest.Config, gvr schema.GroupVersionResource, opts Options) (*Source[*metav1.PartialObjectMetadata], error) {
	if config == nil {
		return nil, errors.New("kube: NewMetadata: nil config")
	}
	cfg := metadata.ConfigFor(config)
	cfg.GroupVersion = &schema.GroupVersion{} // for the options only; paths are absolute
	cfg.APIPath = "/"
	client, err := rest.RESTClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kube: NewMetadata: %w", err)
	}
	s, err := newSource(client, apiPath(gvr.GroupVersion()), gvr.Resource, opts,
		func() *metav1.PartialObjectMetadata { return &metav1.PartialObjectMetadata{} },
		func() runtime.Object { return &metav1.PartialObjectMetadataList{} })
	if err != nil {
		return nil, err
	}
	s.accept, s.acceptList = acceptMetadata, acceptMetadataList
	return s, nil
}

func newSource[T Object](client rest.Interface, absPath, resource string, opts Options, newObj func() T, newList func() runtime.Object) (*Source[T], error) {
	if resource == "" || strings.Contains(resource, "/") {
		return nil, fmt.Errorf("kube: invalid resource %q", resource)
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Source[T]{client: client, absPath: absPath, resource: resource, opts: opts, newObj: newObj, newList: newList}, nil
}

// newFunc returns a constructor of the struct a pointer type P points to.
func newFunc[P any]() (func() P, error) {
	t := reflect.TypeFor[P]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("kube: %v is not a pointer to a struct", t)
	}
	return func() P { return reflect.New(t.Elem()).Interface().(P) }, nil
}

func apiPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

// Key returns the key of obj in a Source: "namespace/name", or "name"
// for a cluster-scoped object (client-go's MetaNamespaceKeyFunc).
func Key[T metav1.Object](obj T) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

func splitKey(key string) (namespace, name string, err error) {
	namespace, name, ok := strings.Cut(key, "/")
	if !ok {
		namespace, name = "", key
	}
	if name == "" || strings.Contains(name, "/") {
		return "", "", fmt.Errorf("kube: invalid key %q", key)
	}
	return namespace, name, nil
}

// request starts a request for the resource in namespace ("" for all
// namespaces or a cluster-scoped resource).
func (s *Source[T]) request(verb, namespace string) *rest.Request {
	r := s.client.Verb(verb)
	if s.absPath != "" {
		r = r.AbsPath(s.absPath)
	}
	return r.NamespaceIfScoped(namespace, namespace != "").Resource(s.resource)
}

// List implements source.ListWatcher. opts.ResourceVersion and
// opts.ResourceVersionMatch become resourceVersion and
// resourceVersionMatch (none when the version is ""); a page after the
// first is asked with its continue token alone, as the API server
// requires. List does not retry (see Watch); a refused or dropped
// connection is an error wrapping source.ErrTransient.
func (s *Source[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	if ctx == nil {
		return source.List[T]{}, errors.New("kube: List: nil context")
	}
	lo := metav1.ListOptions{
		LabelSelector: s.opts.LabelSelector,
		FieldSelector: s.opts.FieldSelector,
		Limit:         opts.Limit,
		Continue:      opts.Continue,
	}
	if opts.Continue == "" && opts.ResourceVersion != "" {
		lo.ResourceVersion = opts.ResourceVersion
		switch opts.ResourceVersionMatch {
		case source.NotOlderThan:
			lo.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		case source.Exact:
			lo.ResourceVersionMatch = metav1.ResourceVersionMatchExact
		default:
			return source.List[T]{}, fmt.Errorf("kube: List: unknown %v", opts.ResourceVersionMatch)
		}
	}
	list := s.newList()
	// No client-go retries (it retries a GET cut by EOF ten times, a
	// second apart): a reflector retries with its own backoff.
	r := s.request("GET", s.opts.Namespace).SpecificallyVersionedParams(&lo, parameterCodec, versionV1).MaxRetries(0)
	if s.acceptList != "" {
		r = r.SetHeader("Accept", s.acceptList)
	}
	if err := r.Do(ctx).Into(list); err != nil {
		return source.List[T]{}, convertError("list "+s.resource, err)
	}
	lm, err := meta.ListAccessor(list)
	if err != nil {
		return source.List[T]{}, fmt.Errorf("kube: list %s: %w", s.resource, err)
	}
	objs, err := meta.ExtractList(list)
	if err != nil {
		return source.List[T]{}, fmt.Errorf("kube: list %s: %w", s.resource, err)
	}
	items := make([]T, len(objs))
	for i, o := range objs {
		t, ok := o.(T)
		if !ok {
			return source.List[T]{}, fmt.Errorf("kube: list %s: item %d is a %T, not a %T", s.resource, i, o, t)
		}
		items[i] = t
	}
	return source.List[T]{Items: items, ResourceVersion: lm.GetResourceVersion(), Continue: lm.GetContinue()}, nil
}

// Get implements source.Writer: a GET of the object, and its
// resourceVersion.
func (s *Source[T]) Get(ctx context.Context, key string) (T, string, error) {
	var zero T
	if ctx == nil {
		return zero, "", errors.New("kube: Get: nil context")
	}
	ns, name, err := splitKey(key)
	if err != nil {
		return zero, "", err
	}
	obj := s.newObj()
	r := s.request("GET", ns).Name(name)
	if s.accept != "" {
		r = r.SetHeader("Accept", s.accept)
	}
	if err := r.Do(ctx).Into(obj); err != nil {
		return zero, "", convertError("get "+s.resource+" "+key, err)
	}
	return obj, obj.GetResourceVersion(), nil
}

// Create implements source.Writer: a POST of a copy of obj without
// resourceVersion (in Options.Namespace when obj has none). The new
// resourceVersion is stamped into obj.
func (s *Source[T]) Create(ctx context.Context, obj T) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: Create: nil context")
	}
	if s.accept != "" {
		return "", fmt.Errorf("kube: create %s: %w: metadata-only source", s.resource, source.ErrUnsupported)
	}
	in := obj.DeepCopyObject().(T)
	in.SetResourceVersion("")
	if in.GetNamespace() == "" {
		in.SetNamespace(s.opts.Namespace)
	}
	out := s.newObj()
	if err := s.request("POST", in.GetNamespace()).Body(in).Do(ctx).Into(out); err != nil {
		return "", convertError("create "+s.resource+" "+Key(in), err)
	}
	rv := out.GetResourceVersion()
	obj.SetResourceVersion(rv)
	return rv, nil
}

// Update implements source.Writer: a PUT of a copy of obj with
// resourceVersion ifVersion, or obj's own when ifVersion is "", which
// the API server checks (source.ErrConflict when stale). When neither
// is set the update is unconditional: since most resources refuse a PUT
// without resourceVersion, Update reads the current one and retries on
// conflict, up to Options.MaxUpdateRetries times. The new
// resourceVersion is stamped into obj.
func (s *Source[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: Update: nil context")
	}
	if s.accept != "" {
		return "", fmt.Errorf("kube: update %s: %w: metadata-only source", s.resource, source.ErrUnsupported)
	}
	in := obj.DeepCopyObject().(T)
	if in.GetNamespace() == "" {
		in.SetNamespace(s.opts.Namespace)
	}
	key := Key(in)
	if ifVersion != "" {
		in.SetResourceVersion(ifVersion)
	}
	unconditional := in.GetResourceVersion() == ""
	for attempt := 0; ; attempt++ {
		if unconditional {
			_, rv, err := s.Get(ctx, key)
			if err != nil {
				return "", err
			}
			in.SetResourceVersion(rv)
		}
		out := s.newObj()
		err := s.request("PUT", in.GetNamespace()).Name(in.GetName()).Body(in).Do(ctx).Into(out)
		if err == nil {
			rv := out.GetResourceVersion()
			obj.SetResourceVersion(rv)
			return rv, nil
		}
		if !unconditional || !apierrors.IsConflict(err) || attempt >= s.opts.MaxUpdateRetries {
			return "", convertError("update "+s.resource+" "+key, err)
		}
	}
}

// Delete implements source.Writer: a DELETE with the precondition
// ifVersion ("": none). The API server answers most deletes with a
// Status rather than the object, and so without the resourceVersion of
// the delete; Delete then learns it from a watch of the one object,
// opened before the delete from its current version (a GET), which
// ends with its Deleted event (of the UID the Status names). That makes
// a delete three requests. If that event does not come (ctx ends, the
// watch breaks) the object is deleted all the same and Delete returns
// an error saying so.
func (s *Source[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: Delete: nil context")
	}
	ns, name, err := splitKey(key)
	if err != nil {
		return "", err
	}
	do := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}}
	if ifVersion != "" {
		do.Preconditions = &metav1.Preconditions{ResourceVersion: &ifVersion}
	}
	body, err := json.Marshal(&do)
	if err != nil {
		return "", fmt.Errorf("kube: delete %s %s: %w", s.resource, key, err)
	}
	del := func() (runtime.Object, error) {
		out, err := s.request("DELETE", ns).Name(name).SetHeader("Content-Type", "application/json").Body(body).Do(ctx).Get()
		return out, convertError("delete "+s.resource+" "+key, err)
	}
	_, rv, err := s.Get(ctx, key)
	if err != nil {
		return "", err
	}
	if ifVersion != "" && ifVersion != rv {
		// The precondition fails; the server says so in its own words.
		if _, err := del(); err != nil {
			return "", err
		}
		return "", fmt.Errorf("kube: delete %s %s: %w: precondition %q passed at version %q", s.resource, key, source.ErrConflict, ifVersion, rv)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lo := metav1.ListOptions{
		Watch:           true,
		ResourceVersion: rv,
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", name).String(),
	}
	w, err := s.watch(ctx, ns, &lo)
	if err != nil {
		return "", convertError("delete "+s.resource+" "+key+": watch", err)
	}
	defer w.Stop()
	out, err := del()
	if err != nil {
		return "", err
	}
	if m, err := meta.Accessor(out); err == nil && m.GetDeletionTimestamp() != nil {
		// Finalizers or a grace period hold the object: the delete was
		// an update that set its deletionTimestamp.
		return m.GetResourceVersion(), nil
	}
	// The Status names the UID deleted: an object deleted and created
	// again between the GET and the DELETE has two Deleted events.
	uid := deletedUID(out)
	failed := func(why string, err error) (string, error) {
		// The object is gone; only its version is unknown.
		return "", fmt.Errorf("kube: delete %s %s: deleted, but %s: %w", s.resource, key, why, err)
	}
	for {
		select {
		case <-ctx.Done():
			return failed("no Deleted event came", ctx.Err())
		case e, ok := <-w.ResultChan():
			if !ok {
				return failed("the watch for its version closed", errors.New("watch closed"))
			}
			switch e.Type {
			case watch.Deleted:
				m, err := meta.Accessor(e.Object)
				if err != nil {
					return failed("its Deleted event", err)
				}
				if uid == "" || m.GetUID() == uid {
					return m.GetResourceVersion(), nil
				}
			case watch.Error:
				return failed("the watch for its version failed", convertError("watch", apierrors.FromObject(e.Object)))
			}
		}
	}
}

// deletedUID returns the UID in the Status a DELETE answers with, or ""
// if there is none.
func deletedUID(out runtime.Object) types.UID {
	switch st := out.(type) {
	case *metav1.Status:
		if st.Details != nil {
			return st.Details.UID
		}
	case *unstructured.Unstructured:
		if st.GetKind() == "Status" {
			uid, _, _ := unstructured.NestedString(st.Object, "details", "uid")
			return types.UID(uid)
		}
	}
	return ""
}
