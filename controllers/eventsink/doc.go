// Package eventsink writes the events of an events.Broadcaster into a
// cluster as Event objects (core/v1), as client-go's event sink writes
// them into kube-apiserver: the first occurrence is created, named
// "<object>.<hex nanoseconds>" in the regarding object's namespace; a
// repeat updates the same object's count and lastTimestamp. Its
// source.component and reportingComponent are the broadcaster's
// Component, its source.host and reportingInstance the broadcaster's Host
// (the kubelet's node).
//
//	sink := eventsink.New(c.Events())          // c is a *cluster.Cluster
//	b, _ := events.NewBroadcaster(sink, events.Options{Component: "replicaset-controller"})
//	go b.Run(ctx)
//
// The sink writes through any source.Writer[*api.Event]; an Update of an
// event that is gone (deleted by someone meanwhile) creates it again. A
// Create whose name another broadcaster took fails with the writer's
// source.ErrAlreadyExists, and the broadcaster retries under the next
// name, so several components may share one cluster's sink.
package eventsink
