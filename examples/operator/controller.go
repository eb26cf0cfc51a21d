package operator

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

const (
	// Finalizer holds a Website until its directory entry is removed.
	Finalizer = "sites.example.com/directory"
	// LabelKey labels a Website's Deployment and pods with its name.
	LabelKey = "sites.example.com/website"
	// Directory is the ConfigMap, in the namespace Options.Namespace,
	// mapping each host to its Website ("namespace/name"): state outside
	// the Website's namespace, which only a finalizer can clean up.
	Directory = "sites-directory"
)

// Options configure the operator.
type Options struct {
	// Namespace holds the Directory; default "default".
	Namespace string
	// Recorder receives events; default: logged.
	Recorder events.Recorder
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Operator reconciles Websites: for each, a Deployment it controls
// (adopting a matching orphan, releasing one whose labels no longer
// match), a Directory entry held by a finalizer, and a status with a
// Ready condition and observedGeneration.
type Operator struct {
	opts        Options
	ctl         *reconcile.Controller[string]
	siteRes     client.Resource[*Website]
	depRes      client.Resource[*api.Deployment]
	cms         client.Resource[*api.ConfigMap]
	deployments informer.Lister[*api.Deployment]
	websites    informer.Lister[*Website]
}

// New wires the operator to c through f's shared informers; Run runs it.
func New(c client.Client, f *informer.Factory, opts Options) (*Operator, error) {
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Recorder == nil {
		opts.Recorder = events.NewLog(opts.Logger, "website-operator")
	}
	o := &Operator{opts: opts}
	var err error
	if o.siteRes, err = client.For[*Website](c); err != nil {
		return nil, err
	}
	if o.depRes, err = client.For[*api.Deployment](c); err != nil {
		return nil, err
	}
	if o.cms, err = client.For[*api.ConfigMap](c); err != nil {
		return nil, err
	}
	sites, err := informer.Shared(f, "websites", o.siteRes, api.Key[*Website], informer.Options[*Website]{Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	deps, err := informer.Shared(f, "deployments", o.depRes, api.Key[*api.Deployment], informer.Options[*api.Deployment]{Logger: opts.Logger})
	if err != nil {
		return nil, err
	}
	o.websites, o.deployments = sites.Lister(), deps.Lister()
	if o.ctl, err = reconcile.New("websites", reconcile.Func[string](o.reconcile), reconcile.Options[string]{Logger: opts.Logger}); err != nil {
		return nil, err
	}
	if _, err := reconcile.Watch(o.ctl, sites, reconcile.ByKey(api.Key[*Website]), reconcile.WatchOptions{}); err != nil {
		return nil, err
	}
	// A Deployment wakes the Website that controls it or that its label
	// names (an orphan to adopt).
	_, err = reconcile.Watch(o.ctl, deps, func(d *api.Deployment) []string {
		if name, ok := d.Labels[LabelKey]; ok {
			return append(ctrlutil.ControllerKey[*api.Deployment](GVK.Kind)(d), api.NamespacedKey(d.Namespace, name))
		}
		return ctrlutil.ControllerKey[*api.Deployment](GVK.Kind)(d)
	}, reconcile.WatchOptions{})
	return o, err
}

// Run runs the operator until ctx ends.
func (o *Operator) Run(ctx context.Context) error { return o.ctl.Run(ctx) }

func (o *Operator) reconcile(ctx context.Context, key string) (reconcile.Result, error) {
	site, ok := o.websites.Get(key)
	if !ok {
		return reconcile.Result{}, nil
	}
	if site.DeletionTimestamp != nil {
		return reconcile.Result{}, o.finalize(ctx, site)
	}
	if !ctrlutil.HasFinalizer(site, Finalizer) {
		site = site.DeepCopyObject().(*Website)
		ctrlutil.AddFinalizer(site, Finalizer)
		_, err := o.siteRes.Update(ctx, site, "")
		return reconcile.Result{}, err // the update wakes us again
	}
	if err := o.setDirectory(ctx, site.Spec.Host, key); err != nil {
		return reconcile.Result{}, err
	}
	dep, err := o.ensureDeployment(ctx, site)
	if err != nil || dep == nil {
		return reconcile.Result{}, err
	}
	ready := api.Condition{Status: api.ConditionFalse, Reason: "Progressing",
		Message: fmt.Sprintf("%d of %d replicas ready", dep.Status.ReadyReplicas, replicas(site))}
	if dep.Status.ReadyReplicas == replicas(site) && dep.Status.ObservedGeneration == dep.Generation {
		ready.Status, ready.Reason = api.ConditionTrue, "AllReplicasReady"
	}
	return reconcile.Result{}, o.setReady(ctx, site, ready, dep)
}

// ensureDeployment claims the site's Deployment, then creates it or
// brings it to the spec.
func (o *Operator) ensureDeployment(ctx context.Context, site *Website) (*api.Deployment, error) {
	sel := api.SelectorFromSet(map[string]string{LabelKey: site.Name})
	live := func(ctx context.Context) (api.Object, error) {
		w, _, err := o.siteRes.Get(ctx, api.Key(site))
		return w, err
	}
	claimed, err := ctrlutil.NewClaimer[*api.Deployment](site, sel, live, o.depRes).Claim(ctx, o.deployments.Namespace(site.Namespace).List(nil))
	if err != nil {
		return nil, err
	}
	want := deploymentFor(site)
	if len(claimed) == 0 {
		_, err := o.depRes.Create(ctx, want)
		if client.IsAlreadyExists(err) { // not ours: say so, and wait for a change
			msg := fmt.Sprintf("deployment %s exists and is not controlled by this website", want.Name)
			o.opts.Recorder.Event(ref(site), events.Warning, "DeploymentExists", msg)
			return nil, reconcile.Terminal(o.setReady(ctx, site, api.Condition{Status: api.ConditionFalse, Reason: "DeploymentExists", Message: msg}, nil))
		}
		if err != nil {
			return nil, err
		}
		o.opts.Recorder.Event(ref(site), events.Normal, "Created", "Created deployment "+want.Name)
		return want, nil
	}
	dep := claimed[0]
	if *dep.Spec.Replicas != *want.Spec.Replicas || dep.Spec.Template.Spec.Containers[0].Image != site.Spec.Image {
		dep = dep.DeepCopyObject().(*api.Deployment)
		dep.Spec.Replicas, dep.Spec.Template.Spec.Containers[0].Image = want.Spec.Replicas, site.Spec.Image
		if _, err := o.depRes.Update(ctx, dep, ""); err != nil {
			return nil, err
		}
	}
	return dep, nil
}

// setReady writes the site's Ready condition and the Deployment's
// replicas (dep may be nil), with observedGeneration, when they changed.
func (o *Operator) setReady(ctx context.Context, site *Website, ready api.Condition, dep *api.Deployment) error {
	st := site.DeepCopyObject().(*Website)
	if dep != nil {
		st.Status.Replicas, st.Status.ReadyReplicas = dep.Status.Replicas, dep.Status.ReadyReplicas
	}
	ready.Type, ready.ObservedGeneration = "Ready", site.Generation
	changed := api.SetCondition(&st.Status.Conditions, ready, time.Now())
	if !changed && st.Status.Replicas == site.Status.Replicas && st.Status.ReadyReplicas == site.Status.ReadyReplicas &&
		site.Status.ObservedGeneration == site.Generation {
		return nil
	}
	st.Status.ObservedGeneration = site.Generation
	_, err := o.siteRes.UpdateStatus(ctx, st)
	return err
}

// finalize removes the site's Directory entry, then its finalizer; the
// garbage collector deletes the Deployment it owns.
func (o *Operator) finalize(ctx context.Context, site *Website) error {
	if !ctrlutil.HasFinalizer(site, Finalizer) {
		return nil
	}
	if err := o.setDirectory(ctx, site.Spec.Host, ""); err != nil {
		return err
	}
	o.opts.Recorder.Event(ref(site), events.Normal, "Unlisted", "Removed "+site.Spec.Host+" from the directory")
	site = site.DeepCopyObject().(*Website)
	ctrlutil.RemoveFinalizer(site, Finalizer)
	_, err := o.siteRes.Update(ctx, site, "")
	return client.IgnoreNotFound(err)
}

// setDirectory maps host to key in the Directory ("" removes it),
// creating the ConfigMap on first use.
func (o *Operator) setDirectory(ctx context.Context, host, key string) error {
	dirKey := api.NamespacedKey(o.opts.Namespace, Directory)
	cm, _, err := o.cms.Get(ctx, dirKey)
	if client.IsNotFound(err) {
		cm = &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: o.opts.Namespace, Name: Directory}}
		if key == "" {
			return nil
		}
		cm.Data = map[string]string{host: key}
		_, err = o.cms.Create(ctx, cm)
		return err
	}
	if err != nil || cm.Data[host] == key {
		return err
	}
	if key == "" {
		delete(cm.Data, host)
	} else if cm.Data == nil {
		cm.Data = map[string]string{host: key}
	} else {
		cm.Data[host] = key
	}
	_, err = o.cms.Update(ctx, cm, "")
	return err
}

// deploymentFor is the Deployment a site asks for, controlled by it.
func deploymentFor(site *Website) *api.Deployment {
	labels := map[string]string{LabelKey: site.Name}
	d := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: site.Namespace, Name: site.Name, Labels: labels,
		OwnerReferences: []api.OwnerReference{api.NewControllerRef(site)}}}
	d.Spec.Replicas = new(replicas(site))
	d.Spec.Selector = &api.LabelSelector{MatchLabels: labels}
	d.Spec.Template.Labels = labels
	d.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: site.Spec.Image}}
	return d
}

func ref(site *Website) events.Ref {
	return events.Ref{APIVersion: GVK.APIVersion(), Kind: GVK.Kind, Namespace: site.Namespace, Name: site.Name, UID: string(site.UID)}
}
