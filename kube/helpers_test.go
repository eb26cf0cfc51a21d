package kube_test

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1"
	clientset "k8s.io/sample-apiserver/pkg/generated/clientset/versioned"

	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

var flunderGVR = v1alpha1.SchemeGroupVersion.WithResource("flunders")

var namespaces atomic.Int64

// newNamespace returns a namespace no other test uses. The server runs
// no namespace admission, so a namespace needs no object.
func newNamespace(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, namespaces.Add(1))
}

// flunders returns a typed Source of the Flunders in namespace ns.
func flunders(t testing.TB, ns string) *kube.Source[*v1alpha1.Flunder] {
	t.Helper()
	cs, err := clientset.NewForConfig(server.Config)
	if err != nil {
		t.Fatal(err)
	}
	src, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](cs.WardleV1alpha1().RESTClient(), "flunders", kube.Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// dynamicFlunders returns an unstructured Source of the Flunders in ns.
func dynamicFlunders(t testing.TB, ns string) *kube.Source[*unstructured.Unstructured] {
	t.Helper()
	src, err := kube.NewDynamic(server.Config, flunderGVR, kube.Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func newFlunder(ns, name, ref string) *v1alpha1.Flunder {
	return &v1alpha1.Flunder{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.FlunderSpec{Reference: ref},
	}
}

// objects adapts a kube.Source of T to the conformance suite's
// *sourcetest.Object: Key is the name (in the source's own namespace),
// Value the Flunder's spec.reference.
type objects[T kube.Object] struct {
	src  kube.Ordered[T]
	ns   string
	to   func(ns string, o *sourcetest.Object) T
	from func(T) *sourcetest.Object
}

var _ sourcetest.Source = objects[*v1alpha1.Flunder]{}

func typedObjects(t *testing.T, ns string) objects[*v1alpha1.Flunder] {
	return objects[*v1alpha1.Flunder]{
		src: kube.Ordered[*v1alpha1.Flunder]{Source: flunders(t, ns)},
		ns:  ns,
		to: func(ns string, o *sourcetest.Object) *v1alpha1.Flunder {
			f := newFlunder(ns, o.Key, o.Value)
			f.ResourceVersion = o.ResourceVersion
			return f
		},
		from: func(f *v1alpha1.Flunder) *sourcetest.Object {
			return &sourcetest.Object{Key: f.Name, Value: f.Spec.Reference, ResourceVersion: f.ResourceVersion}
		},
	}
}

func unstructuredObjects(t *testing.T, ns string) objects[*unstructured.Unstructured] {
	gvk := schema.GroupVersionKind{Group: flunderGVR.Group, Version: flunderGVR.Version, Kind: "Flunder"}
	return objects[*unstructured.Unstructured]{
		src: kube.Ordered[*unstructured.Unstructured]{Source: dynamicFlunders(t, ns)},
		ns:  ns,
		to: func(ns string, o *sourcetest.Object) *unstructured.Unstructured {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			u.SetNamespace(ns)
			u.SetName(o.Key)
			u.SetResourceVersion(o.ResourceVersion)
			if o.Value != "" {
				if err := unstructured.SetNestedField(u.Object, o.Value, "spec", "reference"); err != nil {
					panic(err)
				}
			}
			return u
		},
		from: func(u *unstructured.Unstructured) *sourcetest.Object {
			ref, _, _ := unstructured.NestedString(u.Object, "spec", "reference")
			return &sourcetest.Object{Key: u.GetName(), Value: ref, ResourceVersion: u.GetResourceVersion()}
		},
	}
}

func (s objects[T]) key(k string) string { return s.ns + "/" + k }

func (s objects[T]) List(ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error) {
	l, err := s.src.List(ctx, opts)
	if err != nil {
		return source.List[*sourcetest.Object]{}, err
	}
	out := source.List[*sourcetest.Object]{ResourceVersion: l.ResourceVersion, Continue: l.Continue}
	for _, it := range l.Items {
		out.Items = append(out.Items, s.from(it))
	}
	return out, nil
}

func (s objects[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*sourcetest.Object], error) {
	// A watch from a version the server has not reached: an API server
	// with a watch cache answers "Too large resource version" (which
	// kube.Source maps to ErrFutureVersion); the test server runs
	// without one so that 410s are real, and its etcd-backed watch just
	// waits for that version. The check the watch cache would make is
	// made here, so that the rest of the suite's FutureVersion case runs.
	if v, err := strconv.ParseInt(opts.ResourceVersion, 10, 64); err == nil {
		cur, err := server.Revision(ctx)
		if err != nil {
			return nil, err
		}
		if v > cur {
			return nil, fmt.Errorf("test server emulating the watch cache: %w: Too large resource version: %d, current: %d", source.ErrFutureVersion, v, cur)
		}
	}
	in, err := s.src.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan source.Event[*sourcetest.Object])
	go func() {
		defer close(out)
		for e := range in {
			c := source.Event[*sourcetest.Object]{Type: e.Type, ResourceVersion: e.ResourceVersion, InitialEventsEnd: e.InitialEventsEnd, Err: e.Err}
			if e.Type != source.Bookmark && e.Type != source.Error {
				c.Object = s.from(e.Object)
			}
			select {
			case out <- c:
			case <-ctx.Done():
				for range in {
				}
				return
			}
		}
	}()
	return out, nil
}

func (s objects[T]) CompareResourceVersions(a, b string) (int, error) {
	return s.src.CompareResourceVersions(a, b)
}

func (s objects[T]) Get(ctx context.Context, key string) (*sourcetest.Object, string, error) {
	o, rv, err := s.src.Get(ctx, s.key(key))
	if err != nil {
		return nil, "", err
	}
	return s.from(o), rv, nil
}

func (s objects[T]) Create(ctx context.Context, obj *sourcetest.Object) (string, error) {
	rv, err := s.src.Create(ctx, s.to(s.ns, obj))
	if err == nil {
		obj.ResourceVersion = rv
	}
	return rv, err
}

func (s objects[T]) Update(ctx context.Context, obj *sourcetest.Object, ifVersion string) (string, error) {
	rv, err := s.src.Update(ctx, s.to(s.ns, obj), ifVersion)
	if err == nil {
		obj.ResourceVersion = rv
	}
	return rv, err
}

func (s objects[T]) Delete(ctx context.Context, key, ifVersion string) (string, error) {
	return s.src.Delete(ctx, s.key(key), ifVersion)
}

func (s objects[T]) Compact(ctx context.Context) error {
	_, err := server.Compact(ctx)
	return err
}
