package eventsink_test

import (
	"context"
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/eventsink"
	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/source"
)

// Issue 14.4: events land in the cluster as Event objects, a repeat
// bumps the count of the one already written.
func TestEventsBecomeEventObjects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		b, err := events.NewBroadcaster(eventsink.New(c.Events()), events.Options{
			Component: "replicaset-controller", Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- b.Run(ctx) }()

		rs := events.Ref{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web", UID: "u1"}
		t0 := time.Now()
		for range 3 {
			b.Event(rs, events.Warning, "FailedCreate", "pods \"web-\" is forbidden: exceeded quota")
			time.Sleep(time.Second)
		}
		b.Eventf(rs, events.Normal, "SuccessfulCreate", "Created pod: %s", "web-abcde")
		synctest.Wait()

		l, err := c.Events().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, l.Items, 2)
		byReason := map[string]*api.Event{}
		for _, e := range l.Items {
			byReason[e.Reason] = e
		}
		failed := byReason["FailedCreate"]
		require.EqualValues(t, 3, failed.Count)
		require.Equal(t, "Warning", failed.Type)
		require.Equal(t, "ReplicaSet", failed.InvolvedObject.Kind)
		require.Equal(t, api.UID("u1"), failed.InvolvedObject.UID)
		require.Equal(t, "replicaset-controller", failed.Source.Component)
		require.True(t, failed.FirstTimestamp.Equal(t0.Truncate(time.Second)) || failed.FirstTimestamp.Equal(t0))
		require.True(t, failed.LastTimestamp.After(failed.FirstTimestamp.Time))
		require.EqualValues(t, 1, byReason["SuccessfulCreate"].Count)

		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
}

// Issue 31: an event's host is the Event object's source.host and
// reportingInstance, as the kubelet's events carry their node, and its
// field path the involvedObject's (the container).
func TestObjectCarriesHost(t *testing.T) {
	o := eventsink.Object(events.Event{
		Name: "web-0.1", Namespace: "default",
		Regarding: events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-0", FieldPath: "spec.containers{web}"},
		Type:      events.Normal, Reason: "Started", Message: "Container started",
		Component: "kubelet", Host: "node-1", Count: 1,
	})
	require.Equal(t, api.EventSource{Component: "kubelet", Host: "node-1"}, o.Source)
	require.Equal(t, "kubelet", o.ReportingController)
	require.Equal(t, "node-1", o.ReportingInstance)
	require.Equal(t, "spec.containers{web}", o.InvolvedObject.FieldPath)
}
