package kube_test

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1"
	clientset "k8s.io/sample-apiserver/pkg/generated/clientset/versioned"

	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/source"
)

// clusterConfig stands for your cluster's *rest.Config (from
// clientcmd or rest.InClusterConfig); here it is the test server's.
func clusterConfig() *rest.Config { return server.Config }

// Example writes and watches Flunders of k8s.io/sample-apiserver
// through a typed Source. Any typed resource works the same way with
// its group client: kube.New[*corev1.ConfigMap, *corev1.ConfigMapList](
// clientset.CoreV1().RESTClient(), "configmaps", opts).
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the watch
	cs, err := clientset.NewForConfig(clusterConfig())
	if err != nil {
		panic(err)
	}
	src, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](
		cs.WardleV1alpha1().RESTClient(), "flunders", kube.Options{Namespace: "example"})
	if err != nil {
		panic(err)
	}

	f := &v1alpha1.Flunder{}
	f.Namespace, f.Name = "example", "hello"
	rv, err := src.Create(ctx, f) // f now carries rv
	if err != nil {
		panic(err)
	}
	// Watch everything after the create.
	events, err := src.Watch(ctx, source.WatchOptions{ResourceVersion: rv})
	if err != nil {
		panic(err)
	}
	f.Spec.Reference = "world"
	if _, err := src.Update(ctx, f, ""); err != nil { // precondition: f's rv
		panic(err)
	}
	if _, err := src.Delete(ctx, kube.Key(f), ""); err != nil {
		panic(err)
	}
	for range 2 {
		e := <-events
		fmt.Println(e.Type, kube.Key(e.Object), e.Object.Spec.Reference)
	}
	// Output:
	// Modified example/hello world
	// Deleted example/hello world
}

// ExampleNewDynamic lists Flunders as unstructured objects, in pages of
// one, the way a reflector with a PageSize does.
func ExampleNewDynamic() {
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "wardle.example.com", Version: "v1alpha1", Resource: "flunders"}
	src, err := kube.NewDynamic(clusterConfig(), gvr, kube.Options{Namespace: "example-dynamic"})
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"one", "two"} {
		u := &unstructured.Unstructured{}
		u.SetAPIVersion("wardle.example.com/v1alpha1")
		u.SetKind("Flunder")
		u.SetName(name)
		if _, err := src.Create(ctx, u); err != nil {
			panic(err)
		}
	}
	opts := source.ListOptions{Limit: 1}
	for {
		page, err := src.List(ctx, opts)
		if err != nil {
			panic(err)
		}
		for _, u := range page.Items {
			fmt.Println(kube.Key(u))
			if _, err := src.Delete(ctx, kube.Key(u), u.GetResourceVersion()); err != nil {
				panic(err)
			}
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	// Output:
	// example-dynamic/one
	// example-dynamic/two
}
