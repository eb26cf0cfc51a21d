package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/source"
)

// Resource is the client.Resource[T] of one kind of controllers/api on a
// Kubernetes API server; get it with client.For[T](c) from a Client.
// Objects are encoded and decoded as Kubernetes JSON; those returned
// carry the kind's current apiVersion and kind.
type Resource[T api.Object] struct {
	c          *Client
	gvk        api.GroupVersionKind
	resource   string
	namespaced bool
	base       string // "/api/v1", "/apis/apps/v1"
	hasScale   bool
	typ        reflect.Type // T's struct type
}

func newResource[T api.Object](c *Client, gvk api.GroupVersionKind) *Resource[T] {
	base := "/apis/" + gvk.Group + "/" + gvk.Version
	if gvk.Group == "" {
		base = "/api/" + gvk.Version
	}
	r := &Resource[T]{
		c: c, gvk: gvk, resource: PluralOf(gvk), namespaced: api.IsNamespaced(gvk.Kind), base: base,
		hasScale: gvk.Kind == "Deployment" || gvk.Kind == "ReplicaSet" || gvk.Kind == "StatefulSet" || gvk.Kind == "ReplicationController",
	}
	if t := reflect.TypeFor[T](); t.Kind() == reflect.Pointer {
		r.typ = t.Elem()
	}
	if info, ok := api.InfoOf(gvk); ok && !api.IsBuiltin(gvk) {
		// A kind added with api.Register, whose Resource may be over
		// api.Object: its objects are of its Go type.
		r.namespaced, r.hasScale, r.typ = info.Namespaced, info.Scale, info.GoType().Elem()
	}
	return r
}

// Resource implements client.Resource: the plural resource name.
func (r *Resource[T]) Resource() string { return r.resource }

func (r *Resource[T]) newObj() T { return reflect.New(r.typ).Interface().(T) }

// request starts a request in namespace ("" for all namespaces or a
// cluster-scoped kind).
func (r *Resource[T]) request(verb, namespace string) *rest.Request {
	return r.c.rest.Verb(verb).AbsPath(r.base).NamespaceIfScoped(namespace, r.namespaced && namespace != "").Resource(r.resource)
}

// decode reads one object of the kind from the server's JSON, stamps
// its TypeMeta, and remembers the JSON for a later write.
func (r *Resource[T]) decode(raw []byte) (T, error) {
	obj := r.newObj()
	if err := json.Unmarshal(raw, obj); err != nil {
		var zero T
		return zero, fmt.Errorf("kube: decode %s: %w", r.resource, err)
	}
	reflect.ValueOf(obj).Elem().FieldByName("TypeMeta").Set(reflect.ValueOf(r.gvk.TypeMeta()))
	m := obj.GetObjectMeta()
	r.c.raw.put(m.UID, m.ResourceVersion, raw)
	return obj, nil
}

// encode returns obj as the JSON of a request body, with the kind's
// apiVersion and kind and resourceVersion rv.
func (r *Resource[T]) encode(obj T, rv string) ([]byte, error) {
	c := obj.DeepCopyObject().(T)
	reflect.ValueOf(c).Elem().FieldByName("TypeMeta").Set(reflect.ValueOf(r.gvk.TypeMeta()))
	c.SetResourceVersion(rv)
	return json.Marshal(c)
}

func (r *Resource[T]) splitKey(key string) (ns, name string, err error) {
	ns, name, err = splitKey(key)
	if err == nil && ns != "" && !r.namespaced {
		err = fmt.Errorf("kube: invalid key %q: %s are cluster-scoped", key, r.resource)
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", err, client.ErrBadRequest)
	}
	return ns, name, nil
}

// List implements source.ListWatcher over every namespace.
func (r *Resource[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	return (&selection[T]{r: r}).List(ctx, opts)
}

// Watch implements source.ListWatcher over every namespace.
func (r *Resource[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return (&selection[T]{r: r}).Watch(ctx, opts)
}

// Select implements client.Resource: the objects of opts.Namespace
// matching the selectors, listed and watched by the server
// (labelSelector, fieldSelector). A label or field selector that does
// not parse, or a namespace for a cluster-scoped kind, is
// client.ErrBadRequest at once; a field the kind cannot be selected by
// is the server's 400 at the first List or Watch.
func (r *Resource[T]) Select(opts client.SelectOptions) (source.ListWatcher[T], error) {
	if opts.Namespace != "" && !r.namespaced {
		return nil, fmt.Errorf("kube: select %s: namespace %q for a cluster-scoped kind: %w", r.resource, opts.Namespace, client.ErrBadRequest)
	}
	if _, err := labels.Parse(opts.LabelSelector); err != nil {
		return nil, fmt.Errorf("kube: select %s: label selector: %v: %w", r.resource, err, client.ErrBadRequest)
	}
	if _, err := fields.ParseSelector(opts.FieldSelector); err != nil {
		return nil, fmt.Errorf("kube: select %s: field selector: %v: %w", r.resource, err, client.ErrBadRequest)
	}
	return &selection[T]{r: r, opts: opts}, nil
}

// Get implements source.Writer.
func (r *Resource[T]) Get(ctx context.Context, key string) (T, string, error) {
	var zero T
	if ctx == nil {
		return zero, "", errors.New("kube: Get: nil context")
	}
	ns, name, err := r.splitKey(key)
	if err != nil {
		return zero, "", err
	}
	body, err := r.c.do(ctx, r.request("GET", ns).Name(name))
	if err != nil {
		return zero, "", r.fail("get "+r.resource+" "+key, err)
	}
	obj, err := r.decode(body)
	if err != nil {
		return zero, "", err
	}
	return obj, obj.GetResourceVersion(), nil
}

// Create implements source.Writer: a POST of obj without resourceVersion;
// obj is overwritten with the server's answer.
func (r *Resource[T]) Create(ctx context.Context, obj T) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: Create: nil context")
	}
	m := obj.GetObjectMeta()
	key := api.Key(obj)
	body, err := r.encode(obj, "")
	if err != nil {
		return "", fmt.Errorf("kube: create %s %s: %w", r.resource, key, err)
	}
	out, err := r.c.do(ctx, r.request("POST", m.Namespace).SetHeader("Content-Type", "application/json").Body(body))
	if err != nil {
		return "", r.fail("create "+r.resource+" "+key, err)
	}
	return r.overwrite(obj, out)
}

// overwrite decodes the server's answer into obj.
func (r *Resource[T]) overwrite(obj T, answer []byte) (string, error) {
	got, err := r.decode(answer)
	if err != nil {
		return "", err
	}
	reflect.ValueOf(obj).Elem().Set(reflect.ValueOf(got).Elem())
	return got.GetResourceVersion(), nil
}

// Update implements source.Writer: a PUT of obj, on the condition that
// the object is at ifVersion or obj's own resourceVersion. The body keeps
// every field of the object as the server last sent it that ctrlkit's
// type does not model (see the package documentation). With neither
// version the update is unconditional: Update reads the object and puts
// it at the version read, again after a conflict, up to
// ClientOptions.MaxUpdateRetries times. obj is overwritten with the
// server's answer.
func (r *Resource[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: Update: nil context")
	}
	rv := ifVersion
	if rv == "" {
		rv = obj.GetResourceVersion()
	}
	return r.put(ctx, "update", "", obj, rv)
}

// UpdateStatus implements client.Resource: a PUT to the status
// subresource, at obj's resourceVersion (unconditional, as Update, when
// it has none), keeping the fields ctrlkit does not model as Update
// does.
func (r *Resource[T]) UpdateStatus(ctx context.Context, obj T) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: UpdateStatus: nil context")
	}
	return r.put(ctx, "update status", "status", obj, obj.GetResourceVersion())
}

func (r *Resource[T]) put(ctx context.Context, op, sub string, obj T, rv string) (string, error) {
	m := obj.GetObjectMeta()
	key := api.Key(obj)
	op = op + " " + r.resource + " " + key
	unconditional := rv == ""
	for attempt := 0; ; attempt++ {
		at := rv
		raw, ok := r.c.raw.get(m.UID, rv)
		if !ok {
			// Not remembered (never read here, evicted, or no version to
			// go by): the object as the server has it now.
			cur, err := r.c.do(ctx, r.request("GET", m.Namespace).Name(m.Name))
			if err != nil {
				return "", r.fail(op, err)
			}
			var cm struct {
				Metadata struct {
					UID             api.UID `json:"uid"`
					ResourceVersion string  `json:"resourceVersion"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(cur, &cm); err != nil {
				return "", fmt.Errorf("kube: %s: %w", op, err)
			}
			if unconditional {
				at = cm.Metadata.ResourceVersion
			}
			if at == cm.Metadata.ResourceVersion && (m.UID == "" || m.UID == cm.Metadata.UID) {
				raw = cur
			} // else the server refuses the stale version; nothing to keep
		}
		body, err := r.encode(obj, at)
		if err != nil {
			return "", fmt.Errorf("kube: %s: %w", op, err)
		}
		if raw != nil {
			if body, err = r.keepUnknown(raw, body); err != nil {
				return "", fmt.Errorf("kube: %s: %w", op, err)
			}
		}
		req := r.request("PUT", m.Namespace).Name(m.Name)
		if sub != "" {
			req = req.SubResource(sub)
		}
		out, err := r.c.do(ctx, req.SetHeader("Content-Type", "application/json").Body(body))
		if err != nil {
			if unconditional && client.IsConflict(r.fail(op, err)) && attempt < r.c.opts.MaxUpdateRetries {
				continue
			}
			return "", r.fail(op, err)
		}
		return r.overwrite(obj, out)
	}
}

// keepUnknown returns the body of a write of typed (ctrlkit's encoding
// of the object) over raw (the server's JSON of the version written
// over): what ctrlkit changed, on top of everything the server had.
func (r *Resource[T]) keepUnknown(raw, typed []byte) ([]byte, error) {
	// The typed view of raw: what ctrlkit's type makes of it.
	orig := r.newObj()
	if err := json.Unmarshal(raw, orig); err != nil {
		return nil, err
	}
	o, err := json.Marshal(orig)
	if err != nil {
		return nil, err
	}
	var rv, ov, nv any
	for _, p := range []struct {
		b []byte
		v *any
	}{{raw, &rv}, {o, &ov}, {typed, &nv}} {
		d := json.NewDecoder(bytes.NewReader(p.b))
		d.UseNumber()
		if err := d.Decode(p.v); err != nil {
			return nil, err
		}
	}
	return json.Marshal(merge3(rv, ov, nv))
}

// Patch implements client.Resource: a PATCH of type pt.
func (r *Resource[T]) Patch(ctx context.Context, key string, pt client.PatchType, data []byte) (T, error) {
	var zero T
	if ctx == nil {
		return zero, errors.New("kube: Patch: nil context")
	}
	ns, name, err := r.splitKey(key)
	if err != nil {
		return zero, err
	}
	switch pt {
	case client.JSONPatch, client.MergePatch, client.StrategicMergePatch:
	default:
		return zero, fmt.Errorf("kube: patch %s %s: unknown patch type %q: %w", r.resource, key, pt, client.ErrBadRequest)
	}
	out, err := r.c.do(ctx, r.request("PATCH", ns).Name(name).SetHeader("Content-Type", string(pt)).Body(data))
	if err != nil {
		return zero, r.fail("patch "+r.resource+" "+key, err)
	}
	return r.decode(out)
}

// Delete implements source.Writer: DeleteWith with a resourceVersion
// precondition ifVersion ("" for none).
func (r *Resource[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	return r.DeleteWith(ctx, key, client.DeleteOptions{Preconditions: client.Preconditions{ResourceVersion: ifVersion}})
}

// DeleteWith implements client.Resource: a DELETE with a v1
// DeleteOptions body (preconditions, propagationPolicy,
// gracePeriodSeconds), one request. When the object stays (finalizers,
// or a pod's grace period), the server answers with it and DeleteWith
// returns the version of that marking. When the object is gone, the
// server answers with a Status (or, for pods, the last state) that does
// not carry the version of the removal, and DeleteWith returns "".
func (r *Resource[T]) DeleteWith(ctx context.Context, key string, opts client.DeleteOptions) (string, error) {
	if ctx == nil {
		return "", errors.New("kube: DeleteWith: nil context")
	}
	ns, name, err := r.splitKey(key)
	if err != nil {
		return "", err
	}
	do := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}, GracePeriodSeconds: opts.GracePeriodSeconds}
	if p := opts.Preconditions; p.UID != "" || p.ResourceVersion != "" {
		do.Preconditions = &metav1.Preconditions{}
		if p.UID != "" {
			uid := p.UID
			u := types.UID(uid)
			do.Preconditions.UID = &u
		}
		if p.ResourceVersion != "" {
			do.Preconditions.ResourceVersion = &p.ResourceVersion
		}
	}
	if opts.PropagationPolicy != "" {
		pp := metav1.DeletionPropagation(opts.PropagationPolicy)
		do.PropagationPolicy = &pp
	}
	body, err := json.Marshal(&do)
	if err != nil {
		return "", err
	}
	out, err := r.c.do(ctx, r.request("DELETE", ns).Name(name).SetHeader("Content-Type", "application/json").Body(body))
	if err != nil {
		return "", r.fail("delete "+r.resource+" "+key, err)
	}
	var head struct {
		Kind     string         `json:"kind"`
		Metadata api.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(out, &head); err != nil || head.Kind == "Status" {
		return "", nil
	}
	m := head.Metadata
	stays := m.DeletionTimestamp != nil && (len(m.Finalizers) > 0 ||
		m.DeletionGracePeriodSeconds != nil && *m.DeletionGracePeriodSeconds > 0 &&
			(opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds > 0))
	if !stays {
		r.c.raw.drop(m.UID)
		return "", nil
	}
	if _, err := r.decode(out); err != nil {
		return "", err
	}
	return m.ResourceVersion, nil
}

// GetScale implements client.Resource: a GET of the scale subresource
// (autoscaling/v1 Scale); source.ErrUnsupported for a kind without one.
func (r *Resource[T]) GetScale(ctx context.Context, key string) (*api.Scale, error) {
	if ctx == nil {
		return nil, errors.New("kube: GetScale: nil context")
	}
	if !r.hasScale {
		return nil, fmt.Errorf("kube: %s have no scale subresource: %w", r.resource, source.ErrUnsupported)
	}
	ns, name, err := r.splitKey(key)
	if err != nil {
		return nil, err
	}
	out, err := r.c.do(ctx, r.request("GET", ns).Name(name).SubResource("scale"))
	if err != nil {
		return nil, r.fail("get "+r.resource+" "+key+" scale", err)
	}
	return decodeScale(out)
}

// UpdateScale implements client.Resource: a PUT of the scale
// subresource, conditional on scale's resourceVersion when it has one.
func (r *Resource[T]) UpdateScale(ctx context.Context, key string, scale *api.Scale) (*api.Scale, error) {
	if ctx == nil {
		return nil, errors.New("kube: UpdateScale: nil context")
	}
	if !r.hasScale {
		return nil, fmt.Errorf("kube: %s have no scale subresource: %w", r.resource, source.ErrUnsupported)
	}
	if scale == nil {
		return nil, fmt.Errorf("kube: update %s %s scale: nil scale: %w", r.resource, key, client.ErrBadRequest)
	}
	ns, name, err := r.splitKey(key)
	if err != nil {
		return nil, err
	}
	in := api.Scale{
		TypeMeta:   api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: scale.ResourceVersion, UID: scale.UID},
		Spec:       scale.Spec,
	}
	body, err := json.Marshal(&in)
	if err != nil {
		return nil, err
	}
	out, err := r.c.do(ctx, r.request("PUT", ns).Name(name).SubResource("scale").SetHeader("Content-Type", "application/json").Body(body))
	if err != nil {
		return nil, r.fail("update "+r.resource+" "+key+" scale", err)
	}
	return decodeScale(out)
}

func decodeScale(b []byte) (*api.Scale, error) {
	sc := &api.Scale{}
	if err := json.Unmarshal(b, sc); err != nil {
		return nil, fmt.Errorf("kube: decode scale: %w", err)
	}
	sc.TypeMeta = api.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"}
	return sc, nil
}

// selection is a Resource's ListWatcher restricted by SelectOptions.
type selection[T api.Object] struct {
	r    *Resource[T]
	opts client.SelectOptions
}

// List implements source.ListWatcher: resourceVersion,
// resourceVersionMatch, limit and continue as kube.Source maps them,
// with the selection's namespace and selectors. Client-go does not retry
// a list (the reflector does, with its backoff).
func (s *selection[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	r := s.r
	if ctx == nil {
		return source.List[T]{}, errors.New("kube: List: nil context")
	}
	lo := metav1.ListOptions{LabelSelector: s.opts.LabelSelector, FieldSelector: s.opts.FieldSelector, Limit: opts.Limit, Continue: opts.Continue}
	if opts.Continue == "" && opts.ResourceVersion != "" {
		lo.ResourceVersion = opts.ResourceVersion
		switch opts.ResourceVersionMatch {
		case source.NotOlderThan:
			lo.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
		case source.Exact:
			lo.ResourceVersionMatch = metav1.ResourceVersionMatchExact
		default:
			return source.List[T]{}, fmt.Errorf("kube: List: unknown %v: %w", opts.ResourceVersionMatch, client.ErrBadRequest)
		}
	}
	req := r.request("GET", s.opts.Namespace).SpecificallyVersionedParams(&lo, parameterCodec, versionV1).MaxRetries(0)
	body, err := r.c.do(ctx, req)
	if err != nil {
		return source.List[T]{}, r.fail("list "+r.resource, err)
	}
	var l struct {
		Metadata metav1.ListMeta   `json:"metadata"`
		Items    []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(body, &l); err != nil {
		return source.List[T]{}, fmt.Errorf("kube: list %s: %w", r.resource, err)
	}
	items := make([]T, len(l.Items))
	for i, raw := range l.Items {
		if items[i], err = r.decode(raw); err != nil {
			return source.List[T]{}, err
		}
	}
	return source.List[T]{Items: items, ResourceVersion: l.Metadata.ResourceVersion, Continue: l.Metadata.Continue}, nil
}
