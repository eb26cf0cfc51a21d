package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

// The events the controller records, as sample-controller names them.
const (
	// SuccessSynced is the reason of the event after a Foo synced.
	SuccessSynced = "Synced"
	// ErrResourceExists is the reason of the event when the Deployment a
	// Foo names exists and another object controls it.
	ErrResourceExists = "ErrResourceExists"
	// MessageResourceExists is that event's message.
	MessageResourceExists = "Resource %q already exists and is not managed by Foo"
	// MessageResourceSynced is the message of the Synced event.
	MessageResourceSynced = "Foo synced successfully"
)

// Controller is sample-controller's controller on ctrlkit: it keeps, for
// every Foo, a Deployment with the Foo's replicas, and copies the
// Deployment's available replicas into the Foo's status.
type Controller struct {
	foos        informer.Lister[*Foo]
	deployments informer.Lister[*api.Deployment]
	fooWriter   source.Writer[*Foo]
	depWriter   source.Writer[*api.Deployment]
	recorder    events.Recorder
	log         *slog.Logger
	ctl         *reconcile.Controller[string]
}

// NewController wires a Controller to its informers (sample-controller's
// NewController). Writes go through the two writers; events to recorder.
func NewController(foos *informer.Informer[*Foo], deployments *informer.Informer[*api.Deployment],
	fooWriter source.Writer[*Foo], depWriter source.Writer[*api.Deployment],
	recorder events.Recorder, logger *slog.Logger) (*Controller, error) {
	c := &Controller{
		foos: foos.Lister(), deployments: deployments.Lister(),
		fooWriter: fooWriter, depWriter: depWriter, recorder: recorder, log: logger,
	}
	var err error
	c.ctl, err = reconcile.New("foos", reconcile.Func[string](c.sync), reconcile.Options[string]{Workers: 2, Logger: logger})
	if err != nil {
		return nil, err
	}
	// A Foo is reconciled by its own key ...
	if _, err := reconcile.Watch(c.ctl, foos, reconcile.ByKey(api.Key[*Foo]), reconcile.WatchOptions{}); err != nil {
		return nil, err
	}
	// ... and so is the Foo that controls a Deployment (handleObject).
	// No tombstone to unwrap: OnDelete gets the Deployment itself.
	if _, err := reconcile.Watch(c.ctl, deployments, c.ownerOf, reconcile.WatchOptions{}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run runs the controller until ctx ends (the workers wait for the
// caches first, as WaitForCacheSync did).
func (c *Controller) Run(ctx context.Context) error { return c.ctl.Run(ctx) }

// ownerOf maps a Deployment to the key of the Foo that controls it.
func (c *Controller) ownerOf(d *api.Deployment) []string {
	ref := d.ControllerRef()
	if ref == nil || ref.Kind != "Foo" {
		return nil
	}
	if _, ok := c.foos.Namespace(d.Namespace).Get(ref.Name); !ok {
		return nil // an orphan
	}
	return []string{api.NamespacedKey(d.Namespace, ref.Name)}
}

// sync is sample-controller's syncHandler.
func (c *Controller) sync(ctx context.Context, key string) (reconcile.Result, error) {
	foo, ok := c.foos.Get(key)
	if !ok {
		return reconcile.Result{}, nil // the Foo is gone
	}
	name := foo.Spec.DeploymentName
	if name == "" {
		// Absorbed: the next change of the Foo queues it again.
		c.log.Error("samplecontroller: deployment name missing", "foo", key)
		return reconcile.Result{}, nil
	}
	deployment, ok := c.deployments.Namespace(foo.Namespace).Get(name)
	if !ok {
		deployment = newDeployment(foo)
		if _, err := c.depWriter.Create(ctx, deployment); err != nil {
			return reconcile.Result{}, err
		}
	}
	if !api.IsControlledBy(deployment, foo) {
		msg := fmt.Sprintf(MessageResourceExists, deployment.Name)
		c.recorder.Event(ref(foo), events.Warning, ErrResourceExists, msg)
		return reconcile.Result{}, errors.New(msg)
	}
	if foo.Spec.Replicas != nil && (deployment.Spec.Replicas == nil || *foo.Spec.Replicas != *deployment.Spec.Replicas) {
		deployment = newDeployment(foo)
		if _, err := c.depWriter.Update(ctx, deployment, ""); err != nil {
			return reconcile.Result{}, err
		}
	}
	if err := c.updateFooStatus(ctx, foo, deployment); err != nil {
		return reconcile.Result{}, err
	}
	c.recorder.Event(ref(foo), events.Normal, SuccessSynced, MessageResourceSynced)
	return reconcile.Result{}, nil
}

// updateFooStatus copies the Deployment's available replicas into the
// Foo's status. The cached Foo is never changed: the write goes to a
// copy, whose version is the precondition. An update that changes
// nothing is not written by the store, so writing the status on every
// sync does not wake the controller again.
func (c *Controller) updateFooStatus(ctx context.Context, foo *Foo, deployment *api.Deployment) error {
	cp := foo.DeepCopy()
	cp.Status.AvailableReplicas = deployment.Status.AvailableReplicas
	_, err := c.fooWriter.Update(ctx, cp, "")
	return err
}

// newDeployment is the Deployment a Foo asks for, controlled by it.
func newDeployment(foo *Foo) *api.Deployment {
	labels := map[string]string{"app": "nginx", "controller": foo.Name}
	d := &api.Deployment{
		TypeMeta: api.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: api.ObjectMeta{
			Name:            foo.Spec.DeploymentName,
			Namespace:       foo.Namespace,
			OwnerReferences: []api.OwnerReference{api.NewControllerRef(foo)},
		},
	}
	d.Spec.Replicas = foo.Spec.Replicas
	d.Spec.Selector = &api.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "nginx", Image: "nginx:latest"}}
	return d
}

// ref is the events.Ref of a Foo.
func ref(foo *Foo) events.Ref {
	return events.Ref{APIVersion: fooGVK.APIVersion(), Kind: fooGVK.Kind, Namespace: foo.Namespace, Name: foo.Name, UID: string(foo.UID)}
}
