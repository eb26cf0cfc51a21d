package eventsink_test

import (
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/eventsink"
	"github.com/ctrlkit/ctrlkit/events"
)

// Object is the Event object a recorded event becomes.
func ExampleObject() {
	t := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ev := events.Event{
		Name: "web.18d0", Namespace: "default",
		Regarding: events.Ref{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web"},
		Type:      events.Normal, Reason: "SuccessfulCreate", Message: "Created pod: web-x7k2p",
		Component: "replicaset-controller", Count: 2, First: t, Last: t.Add(time.Minute),
	}
	o := eventsink.Object(ev)
	fmt.Println(o.Namespace+"/"+o.Name, o.Type, o.Reason, o.Count, o.InvolvedObject.Kind, o.Source.Component)
	// Output: default/web.18d0 Normal SuccessfulCreate 2 ReplicaSet replicaset-controller
}
