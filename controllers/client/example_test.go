package client_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// The predicates classify an error whatever the implementation that
// returned it; an *InvalidError names every field that failed.
func Example() {
	errs := []error{
		fmt.Errorf("get pods %q: %w", "default/web", source.ErrNotFound),
		fmt.Errorf("update: %w", source.ErrConflict),
		&client.InvalidError{Resource: "pods", Name: "web", Errors: []client.FieldError{
			{Type: client.FieldRequired, Field: "spec.containers"},
		}},
		&client.RetryAfterError{Err: client.ErrTooManyRequests, After: 2e9},
	}
	for _, err := range errs {
		after, ok := client.RetryAfter(err)
		fmt.Println(client.IsNotFound(err), client.IsConflict(err), client.IsInvalid(err), client.IsTooManyRequests(err), after, ok)
	}
	var invalid *client.InvalidError
	if errors.As(errs[2], &invalid) {
		fmt.Println(invalid)
	}
	// Output:
	// true false false false 0s false
	// false true false false 0s false
	// false false true false 0s false
	// false false false true 2s true
	// pods "web" is invalid: [spec.containers: Required value]
}

// For finds a kind's typed resource in a Client — here the in-process
// cluster — and the resource's writes behave as kube-apiserver's.
func ExampleFor() {
	ctx := context.Background()
	var c client.Client
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	deployments, err := client.For[*api.Deployment](c)
	if err != nil {
		panic(err)
	}
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "default"}}
	_, err = deployments.Create(ctx, d)
	fmt.Println(client.IsInvalid(err))

	d.Spec = api.DeploymentSpec{
		Selector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: api.PodTemplateSpec{
			ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       api.PodSpec{Containers: []api.Container{{Name: "web", Image: "nginx"}}},
		},
	}
	_, err = deployments.Create(ctx, d)
	fmt.Println(err, *d.Spec.Replicas, d.Generation)

	sc, err := deployments.UpdateScale(ctx, "default/web", &api.Scale{Spec: api.ScaleSpec{Replicas: 3}})
	fmt.Println(err, sc.Spec.Replicas, sc.Status.Selector)

	_, err = deployments.Patch(ctx, "default/web", client.MergePatch, []byte(`{"metadata":{"resourceVersion":"1"},"spec":{"paused":true}}`))
	fmt.Println(client.IsConflict(err))

	_, err = client.For[*api.Scale](c)
	fmt.Println(errors.Is(err, client.ErrUnknownKind))
	// Output:
	// true
	// <nil> 1 1
	// <nil> 3 app=web
	// true
	// true
}
