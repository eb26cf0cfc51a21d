// Command samplecontroller is kubernetes/sample-controller ported to
// ctrlkit: a controller for a custom resource, Foo, that owns a
// Deployment. Here it runs on in-memory sources, with a stand-in for the
// deployment controller that reports the Deployment available.
//
//	go run ./examples/samplecontroller
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "samplecontroller:", err)
		os.Exit(1)
	}
}

// cluster is the two sources and their informers.
type cluster struct {
	foos        *fake.Source[*Foo]
	deployments *fake.Source[*api.Deployment]
	fooInf      *informer.Informer[*Foo]
	depInf      *informer.Informer[*api.Deployment]
}

func newCluster(logger *slog.Logger) (*cluster, error) {
	c := &cluster{}
	var err error
	if c.foos, err = fake.NewSource(api.Key[*Foo], fake.Options[*Foo]{Copy: (*Foo).DeepCopy, Logger: logger}); err != nil {
		return nil, err
	}
	if c.deployments, err = fake.NewSource(api.Key[*api.Deployment], fake.Options[*api.Deployment]{Copy: (*api.Deployment).DeepCopy, Logger: logger}); err != nil {
		return nil, err
	}
	if c.fooInf, err = informer.New(c.foos, api.Key[*Foo], informer.Options[*Foo]{Logger: logger}); err != nil {
		return nil, err
	}
	c.depInf, err = informer.New(c.deployments, api.Key[*api.Deployment], informer.Options[*api.Deployment]{Logger: logger})
	return c, err
}

func run() error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	cl, err := newCluster(logger)
	if err != nil {
		return err
	}
	recorder := events.NewMemory()
	ctl, err := NewController(cl.fooInf, cl.depInf, cl.foos, cl.deployments, recorder, logger)
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = cl.fooInf.Run(ctx) })
	wg.Go(func() { _ = cl.depInf.Run(ctx) })
	wg.Go(func() { _ = ctl.Run(ctx) })

	three := int32(3)
	foo := &Foo{
		TypeMeta:   api.TypeMeta{APIVersion: fooGVK.APIVersion(), Kind: "Foo"},
		ObjectMeta: api.ObjectMeta{Name: "example-foo", Namespace: "default", UID: "foo-uid"},
		Spec:       FooSpec{DeploymentName: "example-foo", Replicas: &three},
	}
	if _, err := cl.foos.Create(ctx, foo); err != nil {
		return err
	}
	d, err := waitFor(ctx, func() (*api.Deployment, bool) {
		return cl.depInf.Lister().Namespace("default").Get("example-foo")
	})
	if err != nil {
		return err
	}
	fmt.Printf("deployment %s/%s: %d replicas of %s, controlled by Foo %s\n",
		d.Namespace, d.Name, *d.Spec.Replicas, d.Spec.Template.Spec.Containers[0].Image, d.ControllerRef().Name)

	// The deployment controller's part: the pods came up.
	up := d.DeepCopy()
	up.Status.AvailableReplicas = 3
	if _, err := cl.deployments.Update(ctx, up, ""); err != nil {
		return err
	}
	f, err := waitFor(ctx, func() (*Foo, bool) {
		f, ok := cl.fooInf.Lister().Get("default/example-foo")
		return f, ok && f.Status.AvailableReplicas == 3
	})
	if err != nil {
		return err
	}
	fmt.Printf("foo %s: status.availableReplicas=%d\n", f.Name, f.Status.AvailableReplicas)
	fmt.Println("events:", recorder.Strings()[0])
	return nil
}

// waitFor polls the caches every 10 ms until ok (a demo; tests use
// testing/synctest instead) or 10 s pass.
func waitFor[T any](ctx context.Context, get func() (T, bool)) (T, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		if v, ok := get(); ok {
			return v, nil
		}
		if time.Now().After(deadline) {
			var zero T
			return zero, fmt.Errorf("timed out")
		}
		select {
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}
