package endpointslice_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpointslice"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

func startPod(ctx context.Context, t *testing.T, c *cluster.Cluster, name, ip string, ready bool) *api.Pod {
	t.Helper()
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{NodeName: "node-1", Containers: []api.Container{{Name: "web", Image: "nginx",
			Ports: []api.ContainerPort{{Name: "http", ContainerPort: 8080}}}}}}
	_, err := c.Pods().Create(ctx, p)
	require.NoError(t, err)
	st := api.ConditionFalse
	if ready {
		st = api.ConditionTrue
	}
	p.Status = api.PodStatus{Phase: api.PodRunning, PodIP: ip, PodIPs: []api.PodIP{{IP: ip}},
		Conditions: []api.PodCondition{{Type: api.PodReady, Status: st}}}
	_, err = c.Pods().UpdateStatus(ctx, p)
	require.NoError(t, err)
	return p
}

// The controller over a cluster: a service's slice follows its pods —
// created, readiness, termination, removal — and a slice deleted by
// someone else comes back; a service without a selector gets none.
func TestControllerFollowsPods(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		logger := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		res, err := client.For[*api.EndpointSlice](c)
		require.NoError(t, err)
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		ctl, err := endpointslice.New(c, f, endpointslice.Options{Logger: logger})
		require.NoError(t, err)
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- ctl.Run(ctx) }()
		defer func() { cancel(); <-done }()
		time.Sleep(time.Second)
		synctest.Wait()

		_, err = c.Nodes().Create(ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: "node-1", Labels: map[string]string{api.LabelTopologyZone: "zone-a"}}})
		require.NoError(t, err)
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: api.ServiceSpec{ClusterIP: "10.96.0.20", Selector: map[string]string{"app": "web"},
				Ports: []api.ServicePort{{Name: "http", Port: 80, TargetPort: api.FromString("http")}}}}
		_, err = c.Services().Create(ctx, svc)
		require.NoError(t, err)
		_, err = c.Services().Create(ctx, &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "manual"},
			Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}})
		require.NoError(t, err)

		list := func() []*api.EndpointSlice {
			t.Helper()
			time.Sleep(time.Second)
			synctest.Wait()
			l, err := res.List(ctx, source.ListOptions{})
			require.NoError(t, err)
			return l.Items
		}
		all := list()
		require.Len(t, all, 1, "a placeholder for web, nothing for manual")
		require.Equal(t, "web", all[0].Labels[api.LabelServiceName])
		require.Empty(t, all[0].Endpoints)
		placeholder := all[0].Name

		startPod(ctx, t, c, "web-0", "10.244.0.10", true)
		startPod(ctx, t, c, "web-1", "10.244.0.11", false)
		all = list()
		require.Len(t, all, 1)
		s := all[0]
		require.Equal(t, placeholder, s.Name, "the placeholder is recycled")
		require.Equal(t, endpointslice.ControllerName, s.Labels[endpointslice.LabelManagedBy])
		require.Len(t, s.Ports, 1)
		require.Equal(t, int32(8080), *s.Ports[0].Port)
		require.Len(t, s.Endpoints, 2)
		byPod := map[string]api.Endpoint{}
		for _, e := range s.Endpoints {
			byPod[e.TargetRef.Name] = e
		}
		require.True(t, *byPod["web-0"].Conditions.Ready)
		require.False(t, *byPod["web-1"].Conditions.Ready)
		require.Equal(t, "zone-a", *byPod["web-0"].Zone)

		// A deletion with grace: the endpoint stays, terminating.
		_, err = c.Pods().DeleteWith(ctx, "default/web-0", client.DeleteOptions{GracePeriodSeconds: new(int64(30))})
		require.NoError(t, err)
		all = list()
		for _, e := range all[0].Endpoints {
			if e.TargetRef.Name == "web-0" {
				require.True(t, *e.Conditions.Terminating)
				require.True(t, *e.Conditions.Serving)
				require.False(t, *e.Conditions.Ready)
			}
		}
		_, err = c.Pods().DeleteWith(ctx, "default/web-0", client.DeleteOptions{GracePeriodSeconds: new(int64(0))})
		require.NoError(t, err)
		all = list()
		require.Len(t, all[0].Endpoints, 1)
		require.Equal(t, "web-1", all[0].Endpoints[0].TargetRef.Name)

		// Deleted by someone else: rebuilt.
		_, err = res.Delete(ctx, api.Key(all[0]), "")
		require.NoError(t, err)
		all = list()
		require.Len(t, all, 1)
		require.Len(t, all[0].Endpoints, 1)
	})
}

func TestNewChecksItsArguments(t *testing.T) {
	f := informer.NewFactory(informer.FactoryOptions{})
	_, err := endpointslice.New(nil, f, endpointslice.Options{})
	require.Error(t, err)
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	_, err = endpointslice.New(c, f, endpointslice.Options{Workers: -1})
	require.ErrorContains(t, err, "negative")
	_, err = endpointslice.New(c, f, endpointslice.Options{MaxEndpointsPerSlice: 1001})
	require.ErrorContains(t, err, "1..1000")
}
