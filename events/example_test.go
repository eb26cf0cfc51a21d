package events_test

import (
	"fmt"

	"github.com/ctrlkit/ctrlkit/events"
)

// A controller records events through a Recorder; a test hands it a
// Memory and asserts what it recorded.
func ExampleMemory() {
	var rec events.Recorder = events.NewMemory()
	set := events.Ref{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web"}
	rec.Eventf(set, events.Normal, "SuccessfulCreate", "Created pod: %s", "web-x7k2p")

	for _, s := range rec.(*events.Memory).Strings() {
		fmt.Println(s)
	}
	// Output: Normal SuccessfulCreate Created pod: web-x7k2p
}
