package cluster

import (
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/internal/jsonequal"
)

// kind is what a store knows about its objects beyond api.Object: the
// Kubernetes strategy of the kind (kube-apiserver's rest.RESTCreateStrategy
// and RESTUpdateStrategy), in plain functions. Every hook may be nil.
type kind[T api.Object] struct {
	// info is the kind's registration.
	info api.KindInfo
	// alloc returns a new zero object of the kind.
	alloc func() T
	// resource is the plural resource name, the etcd key segment.
	resource string
	// namespaced is true for namespaced kinds.
	namespaced bool
	// gvk is the kind's current group, version and kind.
	gvk api.GroupVersionKind
	// hasSpec and hasStatus say whether the kind has Spec and Status
	// fields: generation tracks Spec, Update ignores Status.
	hasSpec, hasStatus bool
	// generationAll says that the generation tracks every field but the
	// metadata and the status, as kube-apiserver's strategy of custom
	// resources does (the kinds added with api.Register), not only Spec.
	generationAll bool
	// scale says whether the kind has a scale subresource.
	scale bool
	// keepStatusOnCreate keeps the status a create carries (nodes, which
	// their kubelet registers with a status); other kinds start with
	// an empty status, as in Kubernetes.
	keepStatusOnCreate bool

	// defaults fills in unset fields, on create and on update.
	defaults func(obj T)
	// prepareCreate resets or derives server-owned fields on create,
	// after the uid is set (a pod's status, a job's selector).
	prepareCreate func(obj T)
	// validate checks an object, on create and on update.
	validate func(obj T, fs *fieldErrors)
	// validateCreate, if set, checks an object on create only, after
	// validate.
	validateCreate func(obj T, fs *fieldErrors)
	// validateUpdate checks what may not change between old and obj.
	validateUpdate func(old, obj T, fs *fieldErrors)
	// fields returns the kind's field-selector fields beyond
	// metadata.name and metadata.namespace.
	fields func(obj T) map[string]string
	// fieldNames are the keys fields returns.
	fieldNames []string
	// field, if set, returns one of fieldNames' values without building
	// fields' map (the kinds selected on hot paths: pods).
	field func(obj T, name string) string
	// trigger, if set, indexes the watches of Select by one field (see
	// trigger).
	trigger *trigger[T]
	// gracePeriod returns the grace period of a deletion requested with
	// want (nil: the object's default), and whether the deletion is
	// graceful at all; nil means never graceful (everything but pods).
	gracePeriod func(obj T, want *int64) (int64, bool)
	// specFinalizers returns a kind's finalizers held in its spec
	// (namespaces' spec.finalizers); nil for other kinds.
	specFinalizers func(obj T) int
	// onDelete changes an object that enters graceful deletion (a
	// namespace turns Terminating).
	onDelete func(obj T)

	// unstructured says that the objects are *api.Unstructured: status
	// and content are entries of their Content map, not struct fields.
	unstructured bool
	// typeMeta, if set, writes apiVersion and kind into an object on
	// create and update instead of the kind's gvk (a custom resource
	// keeps the served version it was written at until its storage
	// converts it).
	typeMeta func(obj T)
	// prepareStatus, if set, prepares and validates obj, the object a
	// status update writes over old (a custom resource's status against
	// its schema and validation rules).
	prepareStatus func(old, obj T, fs *fieldErrors)
	// scaleAccess, if set, reads and writes the scale subresource's
	// fields instead of info.ScaleFields.
	scaleAccess func(obj T) (scaleFields, bool)
	// wrapStorage, if set, wraps the storage the store is opened over.
	wrapStorage func(c *Cluster, st storage[T]) storage[T]
	// unknownFields, if set, returns the fields of obj the kind's schema
	// does not know, which a write prunes.
	unknownFields func(obj T) []string
	// infoFn, if set, returns the kind's registration as it is now (a
	// custom resource's changes with its definition).
	infoFn func() api.KindInfo
}

// scaleFields is where an object keeps what its scale subresource reads
// and writes.
type scaleFields struct {
	spec     *int32 // spec.replicas, nil when unset
	status   int32
	selector string
	set      func(int32)
}

// newKind returns the kind of T as its registration in controllers/api
// describes it, without a strategy. T must be registered.
func newKind[T api.Object]() *kind[T] {
	info, ok := api.InfoFor[T]()
	if !ok {
		var zero T
		panic(fmt.Sprintf("cluster: %T is not a registered kind", zero))
	}
	elem := reflect.TypeFor[T]().Elem()
	_, spec := elem.FieldByName("Spec")
	return &kind[T]{
		info:       info,
		alloc:      func() T { return reflect.New(elem).Interface().(T) },
		resource:   info.Resource,
		namespaced: info.Namespaced,
		gvk:        info.GroupVersionKind,
		hasSpec:    spec,
		hasStatus:  info.Status,
		scale:      info.Scale,
	}
}

// dynamicKind returns the kind of info, a kind added with api.Register,
// over api.Object: its strategy is the registration's Default, Validate
// and ValidateUpdate.
func dynamicKind(info api.KindInfo) *kind[api.Object] {
	k := &kind[api.Object]{
		info:       info,
		alloc:      func() api.Object { return info.New() },
		resource:   info.Resource,
		namespaced: info.Namespaced,
		gvk:        info.GroupVersionKind,
		hasSpec:    true, // generation from 1, as a custom resource's
		hasStatus:  info.Status,
		scale:      info.Scale,

		generationAll: true,
	}
	if info.Default != nil {
		k.defaults = info.Default
	}
	if info.Validate != nil {
		k.validate = func(obj api.Object, fs *fieldErrors) { *fs = append(*fs, info.Validate(obj)...) }
	}
	if info.ValidateUpdate != nil {
		k.validateUpdate = func(old, obj api.Object, fs *fieldErrors) { *fs = append(*fs, info.ValidateUpdate(old, obj)...) }
	}
	return k
}

// newObject returns a new zero object of the kind.
func (k *kind[T]) newObject() T { return k.alloc() }

func deepCopy[T api.Object](obj T) T { return obj.DeepCopyObject().(T) }

// assign overwrites *dst with *src (both pointers to the same struct).
func assign[T api.Object](dst, src T) {
	reflect.ValueOf(dst).Elem().Set(reflect.ValueOf(src).Elem())
}

func field[T api.Object](obj T, name string) reflect.Value {
	return reflect.ValueOf(obj).Elem().FieldByName(name)
}

// setTypeMeta writes the kind's current apiVersion and kind into obj.
func (k *kind[T]) setTypeMeta(obj T) {
	if k.typeMeta != nil {
		k.typeMeta(obj)
		return
	}
	field(obj, "TypeMeta").Set(reflect.ValueOf(k.gvk.TypeMeta()))
}

// specEqual reports whether a and b have the same spec (true for kinds
// without one).
func (k *kind[T]) specEqual(a, b T) bool {
	if k.unstructured {
		return jsonEqual(withoutStatus(any(a).(*api.Unstructured)), withoutStatus(any(b).(*api.Unstructured)))
	}
	if k.generationAll {
		return jsonEqual(content(a), content(b))
	}
	if !k.hasSpec {
		return true
	}
	return jsonEqual(field(a, "Spec").Interface(), field(b, "Spec").Interface())
}

// content returns a shallow copy of obj's struct without its TypeMeta,
// ObjectMeta and Status: what a custom resource's generation tracks.
func content(obj api.Object) any {
	v := reflect.ValueOf(obj).Elem()
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	for _, name := range []string{"TypeMeta", "ObjectMeta", "Status"} {
		if f := c.FieldByName(name); f.IsValid() {
			f.SetZero()
		}
	}
	return c.Interface()
}

// withoutStatus returns u's content without its status: what a custom
// resource's generation tracks.
func withoutStatus(u *api.Unstructured) map[string]any {
	if _, ok := u.Content["status"]; !ok {
		return u.Content
	}
	m := make(map[string]any, len(u.Content))
	for k, v := range u.Content {
		if k != "status" {
			m[k] = v
		}
	}
	return m
}

// clearStatus empties obj's status.
func (k *kind[T]) clearStatus(obj T) {
	if k.unstructured {
		delete(any(obj).(*api.Unstructured).Content, "status")
		return
	}
	field(obj, "Status").SetZero()
}

// scaleOf returns where obj keeps its scale subresource's fields, and
// false for a kind without one.
func (k *kind[T]) scaleOf(obj T) (scaleFields, bool) {
	if k.scaleAccess != nil {
		return k.scaleAccess(obj)
	}
	spec, status, selector, ok := scaleOf(obj)
	if !ok {
		return scaleFields{}, false
	}
	return scaleFields{spec: *spec, status: status, selector: selector, set: func(n int32) { *spec = &n }}, true
}

// copyStatus sets dst's status to src's (dst and src are private copies).
func (k *kind[T]) copyStatus(dst, src T) {
	if k.hasStatus && k.unstructured {
		d, s := any(dst).(*api.Unstructured), any(src).(*api.Unstructured)
		if d.Content == nil {
			d.Content = map[string]any{}
		}
		if st, ok := s.Content["status"]; ok {
			d.Content["status"] = st
		} else {
			delete(d.Content, "status")
		}
		return
	}
	if k.hasStatus {
		field(dst, "Status").Set(field(src, "Status"))
	}
}

// jsonEqual compares two values by their JSON encoding, as kube-apiserver
// compares the encoded bytes of an update with the stored ones: nil and
// empty slices and maps are the same. Deeply equal values are equal
// without encoding them.
// Both are walked together rather than encoded (package jsonequal).
func jsonEqual(a, b any) bool { return jsonequal.Equal(a, b) }

// finalizing reports whether obj still has finalizers of any sort.
func (k *kind[T]) finalizing(obj T) bool {
	if len(obj.GetObjectMeta().Finalizers) > 0 {
		return true
	}
	return k.specFinalizers != nil && k.specFinalizers(obj) > 0
}
