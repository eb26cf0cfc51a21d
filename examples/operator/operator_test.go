package operator_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/webhook"
	"github.com/ctrlkit/ctrlkit/controllers/webhook/webhooktest"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/examples/operator"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// env is the operator running beside a whole in-process control plane.
type env struct {
	t      *testing.T
	ctx    context.Context
	cp     *controlplane.ControlPlane
	sites  client.Resource[*operator.Website]
	events *events.Memory
}

func start(t *testing.T, nodes int) *env {
	ctx := t.Context()
	// The operator's webhook, served over HTTPS on an in-memory network,
	// called by the cluster through its configuration.
	hook := webhooktest.Start(t, nil)
	cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: nodes, Webhooks: &webhook.Options{DialContext: hook.Dial}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, cp.Stop()) })
	h, err := operator.Webhook(cp.Cluster)
	require.NoError(t, err)
	hook.Handle(h)
	configs, err := client.For[*api.ValidatingWebhookConfiguration](cp.Cluster)
	require.NoError(t, err)
	_, err = configs.Create(ctx, operator.WebhookConfiguration(hook.URL, hook.CABundle))
	require.NoError(t, err)
	f := informer.NewFactory(informer.FactoryOptions{})
	rec := events.NewMemory()
	op, err := operator.New(cp.Cluster, f, operator.Options{Recorder: rec})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	f.Start(ctx)
	go func() { done <- op.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
		if err := <-done; !errors.Is(err, context.Canceled) {
			require.NoError(t, err)
		}
	})
	sites, err := client.For[*operator.Website](cp.Cluster)
	require.NoError(t, err)
	return &env{t: t, ctx: ctx, cp: cp, sites: sites, events: rec}
}

// settle lets the control plane and the operator finish what they do
// within quiet of virtual time.
func (e *env) settle(quiet time.Duration) {
	require.NoError(e.t, e.cp.Settle(e.ctx, quiet))
	synctest.Wait()
}

func (e *env) site(name string) *operator.Website {
	w, _, err := e.sites.Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return w
}

func (e *env) deployment(name string) *api.Deployment {
	d, _, err := e.cp.Cluster.Deployments().Get(e.ctx, "default/"+name)
	require.NoError(e.t, err)
	return d
}

func (e *env) directory() map[string]string {
	cm, _, err := e.cp.Cluster.ConfigMaps().Get(e.ctx, "default/"+operator.Directory)
	require.NoError(e.t, err)
	return cm.Data
}

func (e *env) reasons() []string {
	var out []string
	for _, ev := range e.events.Events() {
		out = append(out, ev.Reason)
	}
	return out
}

func website(name, host string, replicas int32) *operator.Website {
	return &operator.Website{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
		Spec: operator.WebsiteSpec{Host: host, Image: "nginx:1.27", Replicas: &replicas}}
}

func ready(w *operator.Website) *api.Condition {
	return api.FindCondition(w.Status.Conditions, "Ready")
}

// The whole life of a Website on the in-process control plane, in
// virtual time: created, ready, scaled through its scale subresource, a
// node lost and its pods replaced, deleted behind its finalizer.
func TestWebsiteLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, 2)
		_, err := e.sites.Create(e.ctx, website("blog", "blog.example.com", 2))
		require.NoError(t, err)
		e.settle(time.Second)

		w := e.site("blog")
		require.Equal(t, []string{operator.Finalizer}, w.Finalizers)
		require.Equal(t, api.ConditionTrue, ready(w).Status, "%+v", w.Status)
		require.Equal(t, int32(2), w.Status.ReadyReplicas)
		require.Equal(t, w.Generation, w.Status.ObservedGeneration)
		d := e.deployment("blog")
		require.True(t, api.IsControlledBy(d, w))
		require.Equal(t, map[string]string{"blog.example.com": "default/blog"}, e.directory())
		require.Contains(t, e.reasons(), "Created")

		// kubectl scale website/blog --replicas=3
		sc, err := e.sites.GetScale(e.ctx, "default/blog")
		require.NoError(t, err)
		sc.Spec.Replicas = 3
		_, err = e.sites.UpdateScale(e.ctx, "default/blog", sc)
		require.NoError(t, err)
		e.settle(time.Second)
		w = e.site("blog")
		require.Equal(t, int32(3), *e.deployment("blog").Spec.Replicas)
		require.Equal(t, int32(3), w.Status.ReadyReplicas)
		require.Equal(t, int64(2), w.Status.ObservedGeneration)
		require.Equal(t, api.ConditionTrue, ready(w).Status)

		// A node stops: after the node monitor's grace period and the
		// 300 s not-ready toleration its pods are evicted and replaced on
		// the other node; the site is ready again. (The evicted pods stay
		// Terminating, as on a real cluster, until their node is gone: no
		// Settle here, the time passes.)
		e.cp.Kubelets[0].Stop()
		time.Sleep(7 * time.Minute)
		synctest.Wait()
		w = e.site("blog")
		require.Equal(t, int32(3), w.Status.ReadyReplicas, "%+v", w.Status)
		pods, err := e.cp.Cluster.Pods().List(e.ctx, source.ListOptions{})
		require.NoError(t, err)
		for _, p := range pods.Items {
			if p.DeletionTimestamp == nil && api.IsPodReady(p) {
				require.Equal(t, "node-2", p.Spec.NodeName)
			}
		}

		// Deleted: the finalizer removes the directory entry, then the
		// garbage collector the Deployment and its pods.
		_, err = e.sites.Delete(e.ctx, "default/blog", "")
		require.NoError(t, err)
		time.Sleep(time.Minute)
		synctest.Wait()
		_, _, err = e.sites.Get(e.ctx, "default/blog")
		require.True(t, client.IsNotFound(err), "%v", err)
		require.Empty(t, e.directory())
		require.Contains(t, e.reasons(), "Unlisted")
		_, _, err = e.cp.Cluster.Deployments().Get(e.ctx, "default/blog")
		require.True(t, client.IsNotFound(err), "the garbage collector deleted the deployment: %v", err)
	})
}

// A Website adopts the orphan Deployment its label names, and releases it
// when the label goes (reporting the name conflict rather than fighting).
func TestWebsiteAdoptsAndReleases(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, 1)
		orphan := &api.Deployment{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "shop", Labels: map[string]string{operator.LabelKey: "shop"}}}
		orphan.Spec.Replicas = new(int32(1))
		orphan.Spec.Selector = &api.LabelSelector{MatchLabels: map[string]string{operator.LabelKey: "shop"}}
		orphan.Spec.Template.Labels = map[string]string{operator.LabelKey: "shop"}
		orphan.Spec.Template.Spec.Containers = []api.Container{{Name: "web", Image: "nginx:1.26"}}
		_, err := e.cp.Cluster.Deployments().Create(e.ctx, orphan)
		require.NoError(t, err)
		e.settle(time.Second)

		_, err = e.sites.Create(e.ctx, website("shop", "shop.example.com", 1))
		require.NoError(t, err)
		e.settle(time.Second)
		w, d := e.site("shop"), e.deployment("shop")
		require.True(t, api.IsControlledBy(d, w), "adopted: %+v", d.OwnerReferences)
		require.Equal(t, "nginx:1.27", d.Spec.Template.Spec.Containers[0].Image, "brought to the spec")
		require.NotContains(t, e.reasons(), "Created")

		d = d.DeepCopy()
		delete(d.Labels, operator.LabelKey)
		_, err = e.cp.Cluster.Deployments().Update(e.ctx, d, "")
		require.NoError(t, err)
		e.settle(time.Second)
		d, w = e.deployment("shop"), e.site("shop")
		require.Empty(t, d.OwnerReferences, "released")
		require.Equal(t, "DeploymentExists", ready(w).Reason)
		require.True(t, slices.Contains(e.reasons(), "DeploymentExists"))
	})
}

// The kind's strategy refuses bad writes with every field error, as
// kube-apiserver answers 422.
func TestWebsiteValidation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, 1)
		_, err := e.sites.Create(e.ctx, website("bad", "not a host", 99))
		require.True(t, client.IsInvalid(err), "%v", err)
		require.ErrorContains(t, err, "spec.host")
		require.ErrorContains(t, err, "spec.replicas")
		w := website("ok", "ok.example.com", 1)
		_, err = e.sites.Create(e.ctx, w)
		require.NoError(t, err)
		w.Spec.Host = "other.example.com"
		_, err = e.sites.Update(e.ctx, w, "")
		require.True(t, client.IsInvalid(err), "host is immutable: %v", err)
	})
}

// The operator's validating webhook refuses what the kind's strategy,
// seeing one object, cannot: a host another Website already serves, and
// the deletion of a protected Website (until its label goes).
func TestWebsiteWebhook(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := start(t, 1)
		_, err := e.sites.Create(e.ctx, website("blog", "blog.example.com", 1))
		require.NoError(t, err)
		_, err = e.sites.Create(e.ctx, website("blog2", "blog.example.com", 1))
		var denied *webhook.DeniedError
		require.True(t, errors.As(err, &denied), "%v", err)
		require.Equal(t, `admission webhook "`+operator.WebhookName+
			`" denied the request: spec.host "blog.example.com" is already served by website default/blog`, denied.Error())
		require.True(t, client.IsBadRequest(err), "%v", err)

		shop := website("shop", "shop.example.com", 1)
		shop.Labels = map[string]string{operator.ProtectedLabel: "true"}
		_, err = e.sites.Create(e.ctx, shop)
		require.NoError(t, err)
		e.settle(time.Second)
		_, err = e.sites.Delete(e.ctx, "default/shop", "")
		require.True(t, client.IsForbidden(err), "%v", err)
		require.ErrorContains(t, err, `admission webhook "`+operator.WebhookName+`" denied the request: website default/shop is protected`)
		w := e.site("shop")
		require.Nil(t, w.DeletionTimestamp, "a refused delete does not mark the site")
		require.Equal(t, api.ConditionTrue, ready(w).Status)

		delete(w.Labels, operator.ProtectedLabel)
		_, err = e.sites.Update(e.ctx, w, "")
		require.NoError(t, err)
		_, err = e.sites.Delete(e.ctx, "default/shop", "")
		require.NoError(t, err)
		e.settle(time.Second)
		_, _, err = e.sites.Get(e.ctx, "default/shop")
		require.True(t, client.IsNotFound(err), "%v", err)
		require.Equal(t, map[string]string{"blog.example.com": "default/blog"}, e.directory())
	})
}
