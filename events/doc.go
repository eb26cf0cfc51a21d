// Package events records what a controller did, for the people who watch
// it: "Created pod web-0", "FailedScheduling: 0/3 nodes are available".
// It plays the part of client-go's tools/record, typed and without a
// global broadcaster.
//
// A controller holds a Recorder and calls Event or Eventf with the object
// the event is about (a Ref), its Type (Normal or Warning), a reason in
// UpperCamelCase and a message. Three Recorders come with the package:
//
//   - Memory keeps every event, in order, for tests to assert (client-go's
//     FakeRecorder).
//   - NewLog writes each event as a log record and keeps nothing.
//   - Broadcaster correlates events and writes them to a Sink — the
//     cluster store writes them as Event objects — on its own goroutine.
//
// # What the Broadcaster does
//
// It follows client-go's EventCorrelator. An event identical to one
// already written (same regarding object, type, reason, message and
// component) is not written again: the earlier one's Count goes up and
// its Last time moves, through Sink.Update. Events about one object from
// one component are rate-limited by a token bucket (Options.Burst tokens,
// one more every Options.Refill: 25 and 5 minutes by default, as in
// client-go), so a burst cannot flood the store; events over the limit
// are dropped and counted. Events about many objects that share a text
// (a message, a field path) reach the Sink sharing one copy of it, so
// that the store keeps the bytes once. Recording never blocks: events
// wait in a bounded queue (Options.QueueSize) for Run's goroutine, and an event
// that finds the queue full is dropped and counted. Events carry the
// component's Host when it has one (Options.Host, or per instance through
// ForHost, so that the kubelets of many simulated nodes share one
// Broadcaster); events from different hosts are correlated apart. Left
// out: client-go's
// aggregation of similar events whose messages differ ("combined from
// similar events").
//
// Event, Eventf and the Memory and log recorders are safe for concurrent
// use. Broadcaster.Run owns the goroutine that calls the Sink and returns
// once it has stopped.
package events
