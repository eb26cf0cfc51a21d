// Package fakeclient is the recording fake of the client contract, for
// the unit tests of controllers: a client.Client over another one that
// records what a controller did and injects faults, as client-go's fake
// clientset does with its testing.Fake.
//
// Unlike client-go's and controller-runtime's fakes, it keeps no objects
// of its own: it wraps a real implementation of the contract — normally
// the in-process cluster, cluster.New, which has kube-apiserver's
// semantics (validation, defaults, resourceVersions and conflicts,
// generations, status and scale subresources, finalizers and graceful
// deletion, selectors, watches) — so a controller under test meets the
// behaviour it meets in production, and the test asserts what the
// controller asked for. The kinds added with api.Register are served as
// the inner client serves them (client.For and client.ForKind), their
// calls recorded under the kind's resource name ("widgets") and open to
// reactors like a built-in kind's.
//
// # Usage
//
//	c, _ := cluster.New(ctx, cluster.Options{})
//	fc := fakeclient.New(c)                    // a client.Client and client.Binder
//	ctrl := mycontroller.New(fc, …)            // the controller gets the fake
//	fc.FailNth("create", "pods", 2, client.ErrServerTimeout)
//	… run the controller …
//	for _, a := range fc.Writes() { … a.Verb, a.Resource, a.Namespace, a.Name, a.Object, a.Err … }
//
// # The contract
//
// Every call of every resource that client.For gives out of a Client —
// Get, List, Watch (the call that opens the stream, not its events),
// Create, Update, UpdateStatus, Delete, DeleteWith, Patch, GetScale,
// UpdateScale, the List and Watch of a Select — and Bind is recorded as
// an Action, in the order the calls started: its verb, resource and
// subresource (as kube-apiserver's RBAC names them: "update" of
// "pods/status", "create" of "pods/binding"), namespace and name, a deep
// copy of the object, patch or scale sent, the delete, select, list or
// watch options, and the error the call returned. Actions returns them
// all, Writes the ones that are not get, list or watch (failed ones
// included); Reset forgets them.
//
// Before a call reaches the inner client, the reactors whose verb and
// resource match it run in chain order (PrependReactor puts one first,
// AddReactor last; "*" matches anything, "pods" matches the pods and
// their subresources, "pods/status" one subresource). The first that
// handles the call decides it: with an error the call fails and the
// inner client never sees it; with nil it succeeds with zero results.
// FailNth fails the nth matching call; LoseReplyNth lets the nth
// matching call happen and then fails it (by default with
// client.ErrServerTimeout), the fault a controller must survive by
// reading its write back from its cache. A failed write leaves the
// caller's object unchanged.
//
// A Client is safe for concurrent use; reactors run on the caller's
// goroutine without a lock held, so they may call the Client. It is built
// on client.Intercept, which a test can also use directly for a fault
// this package does not offer.
package fakeclient
