package endpointslicemirroring_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/endpointslicemirroring"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The controller over a cluster: custom Endpoints of a service without a
// selector are mirrored, follow their changes, lose their slices when
// labelled skip-mirror, when the service gains a selector or goes, and
// when the Endpoints are deleted; Endpoints without a service are not
// mirrored; too many addresses are capped with an event.
func TestControllerMirrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		logger := slog.New(slog.DiscardHandler)
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		res, err := client.For[*api.EndpointSlice](c)
		require.NoError(t, err)
		eps, err := client.For[*api.Endpoints](c)
		require.NoError(t, err)
		rec := events.NewMemory()
		f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
		ctl, err := endpointslicemirroring.New(c, f, endpointslicemirroring.Options{Logger: logger, Recorder: rec, MaxEndpointsPerSubset: 3})
		require.NoError(t, err)
		f.Start(ctx)
		done := make(chan error, 1)
		go func() { done <- ctl.Run(ctx) }()
		defer func() { cancel(); <-done }()

		list := func() []*api.EndpointSlice {
			t.Helper()
			time.Sleep(time.Second)
			synctest.Wait()
			l, err := res.List(ctx, source.ListOptions{})
			require.NoError(t, err)
			return l.Items
		}
		svc := &api.Service{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "ext"}, Spec: api.ServiceSpec{Ports: []api.ServicePort{{Port: 80}}}}
		_, err = c.Services().Create(ctx, svc)
		require.NoError(t, err)
		ep := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "ext", Labels: map[string]string{"team": "a"}},
			Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.0.2.1"}, {IP: "192.0.2.2"}},
				NotReadyAddresses: []api.EndpointAddress{{IP: "192.0.2.3"}}, Ports: []api.EndpointPort{{Name: "http", Port: 8080, Protocol: api.ProtocolTCP}}}}}
		_, err = eps.Create(ctx, ep)
		require.NoError(t, err)
		orphan := &api.Endpoints{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "noservice"},
			Subsets: []api.EndpointSubset{{Addresses: []api.EndpointAddress{{IP: "192.0.2.9"}}}}}
		_, err = eps.Create(ctx, orphan)
		require.NoError(t, err)

		all := list()
		require.Len(t, all, 1)
		s := all[0]
		require.Equal(t, "ext", s.Labels[api.LabelServiceName])
		require.Equal(t, endpointslicemirroring.ControllerName, s.Labels[endpointslicemirroring.LabelManagedBy])
		require.Equal(t, "a", s.Labels["team"])
		require.Equal(t, api.AddressTypeIPv4, s.AddressType)
		require.Len(t, s.OwnerReferences, 1)
		require.Equal(t, "Endpoints", s.OwnerReferences[0].Kind)
		require.Equal(t, ep.UID, s.OwnerReferences[0].UID)
		require.Equal(t, "http", *s.Ports[0].Name)
		require.Equal(t, int32(8080), *s.Ports[0].Port)
		var got []string
		for _, e := range s.Endpoints {
			r := "ready"
			if !*e.Conditions.Ready {
				r = "not ready"
			}
			got = append(got, e.Addresses[0]+" "+r)
		}
		slices.Sort(got)
		require.Equal(t, []string{"192.0.2.1 ready", "192.0.2.2 ready", "192.0.2.3 not ready"}, got)

		// Too many addresses: capped at 3, an event; the slice is updated in place.
		cur, _, err := eps.Get(ctx, "default/ext")
		require.NoError(t, err)
		cur.Subsets[0].Addresses = append(cur.Subsets[0].Addresses, api.EndpointAddress{IP: "192.0.2.4"}, api.EndpointAddress{IP: "not-an-ip"})
		_, err = eps.Update(ctx, cur, "")
		require.NoError(t, err)
		all = list()
		require.Len(t, all, 1)
		require.Equal(t, s.Name, all[0].Name)
		require.Len(t, all[0].Endpoints, 3)
		// The cap is reached before the invalid address is looked at, as
		// in kcm: it counts as skipped, not invalid.
		require.Contains(t, rec.Strings(), "Warning TooManyAddressesToMirror A max of 3 addresses can be mirrored to EndpointSlices per Endpoints subset. 2 addresses were skipped")
		require.NotContains(t, rec.Strings(), "Warning InvalidIPAddress Skipped 1 invalid IP addresses when mirroring to EndpointSlices")

		// A mirrored slice deleted by someone else comes back.
		_, err = res.Delete(ctx, api.Key(all[0]), "")
		require.NoError(t, err)
		require.Len(t, list(), 1)

		// skip-mirror: the slices go; removing the label brings them back.
		cur, _, err = eps.Get(ctx, "default/ext")
		require.NoError(t, err)
		cur.Labels[endpointslicemirroring.LabelSkipMirror] = "true"
		_, err = eps.Update(ctx, cur, "")
		require.NoError(t, err)
		require.Empty(t, list())
		delete(cur.Labels, endpointslicemirroring.LabelSkipMirror)
		cur.Subsets[0].Addresses = cur.Subsets[0].Addresses[:1]
		_, err = eps.Update(ctx, cur, "")
		require.NoError(t, err)
		require.Len(t, list(), 1)

		// The service gains a selector: the slices go.
		sv, _, err := c.Services().Get(ctx, "default/ext")
		require.NoError(t, err)
		sv.Spec.Selector = map[string]string{"app": "x"}
		_, err = c.Services().Update(ctx, sv, "")
		require.NoError(t, err)
		require.Empty(t, list())
		sv, _, err = c.Services().Get(ctx, "default/ext")
		require.NoError(t, err)
		sv.Spec.Selector = nil
		_, err = c.Services().Update(ctx, sv, "")
		require.NoError(t, err)
		require.Len(t, list(), 1)

		// The Endpoints go: so do the slices.
		_, err = eps.Delete(ctx, "default/ext", "")
		require.NoError(t, err)
		require.Empty(t, list())
	})
}
