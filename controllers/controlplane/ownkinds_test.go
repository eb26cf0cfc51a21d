package controlplane_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/api/apitest"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/source"
)

// The whole control plane with kinds added with api.Register (apitest's
// Widget): a Widget owns a Deployment whose pods become ready; deleting
// the Widget in the foreground removes the Deployment, its ReplicaSet
// and its pods, then the Widget; deleting a namespace with widgets
// finishes.
func TestOwnKindEndToEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2})
		require.NoError(t, err)
		defer func() { require.NoError(t, cp.Stop()) }()
		c := cp.Cluster
		widgets, err := client.For[*apitest.Widget](c)
		require.NoError(t, err)

		w := &apitest.Widget{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "w"}, Spec: apitest.WidgetSpec{Color: "green"}}
		_, err = widgets.Create(ctx, w)
		require.NoError(t, err)
		d := webDeployment(3)
		d.OwnerReferences = []api.OwnerReference{api.NewControllerRef(w)}
		require.NoError(t, cp.Apply(ctx, d))
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()

		pods := func(ns string) []*api.Pod {
			sel, err := c.Pods().Select(cluster.SelectOptions{Namespace: ns})
			require.NoError(t, err)
			l, err := sel.List(ctx, source.ListOptions{})
			require.NoError(t, err)
			return l.Items
		}
		require.Len(t, pods("default"), 3)
		for _, p := range pods("default") {
			require.True(t, api.IsPodReady(p), "%s is ready", p.Name)
		}
		rss, err := c.ReplicaSets().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, rss.Items, 1)

		// Foreground: the Widget waits, with foregroundDeletion, for its
		// Deployment, which waits for its ReplicaSet, which waits for the
		// pods' graceful deletion by the kubelets.
		_, err = widgets.DeleteWith(ctx, "default/w", client.DeleteOptions{PropagationPolicy: client.DeletePropagationForeground})
		require.NoError(t, err)
		got, _, err := widgets.Get(ctx, "default/w")
		require.NoError(t, err, "the widget stays while its dependents go")
		require.NotNil(t, got.DeletionTimestamp)
		require.Contains(t, got.Finalizers, client.FinalizerDeleteDependents)
		// A minute's quiet: the kubelets end the pods after their grace
		// period.
		require.NoError(t, cp.Settle(ctx, time.Minute))
		synctest.Wait()
		require.Empty(t, pods("default"))
		rss, err = c.ReplicaSets().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, rss.Items)
		ds, err := c.Deployments().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, ds.Items)
		_, _, err = widgets.Get(ctx, "default/w")
		require.ErrorIs(t, err, source.ErrNotFound)

		// A namespace with widgets, one of them owning a pod, is deleted
		// whole.
		require.NoError(t, cp.Apply(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}))
		for _, name := range []string{"a", "b"} {
			_, err := widgets.Create(ctx, &apitest.Widget{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: name}, Spec: apitest.WidgetSpec{Color: "red"}})
			require.NoError(t, err)
		}
		a, _, err := widgets.Get(ctx, "shop/a")
		require.NoError(t, err)
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "shop", Name: "p", OwnerReferences: []api.OwnerReference{api.NewControllerRef(a)}},
			Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "busybox"}}}}
		require.NoError(t, cp.Apply(ctx, p))
		require.NoError(t, cp.Settle(ctx, 0))
		synctest.Wait()
		require.Len(t, pods("shop"), 1)
		_, err = c.Namespaces().DeleteWith(ctx, "shop", cluster.DeleteOptions{})
		require.NoError(t, err)
		require.NoError(t, cp.Settle(ctx, time.Minute))
		synctest.Wait()
		_, _, err = c.Namespaces().Get(ctx, "shop")
		require.ErrorIs(t, err, source.ErrNotFound, "the namespace is gone")
		require.Empty(t, pods("shop"))
		sel, err := widgets.Select(client.SelectOptions{Namespace: "shop"})
		require.NoError(t, err)
		l, err := sel.List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Empty(t, l.Items)
	})
}
