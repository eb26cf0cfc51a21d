// Package leader runs work only while this replica leads: the leader
// election that controllers need when they run as several replicas, of
// which one at a time should act.
//
// # Usage
//
//	err := leader.Run(ctx, elector, func(ctx context.Context) error {
//		return controller.Run(ctx) // returns when ctx ends
//	})
//
// An Elector is the backend: Memory in this package (one process, for
// tests and single-process programs), or an elector over a distributed
// store such as the one in github.com/ctrlkit/ctrlkit/etcd.
//
// # What Run does
//
// Run campaigns (Elector.Campaign blocks until this replica leads), then
// calls fn with a context that is cancelled as soon as the Term ends
// (Term.Done), waits for fn to return, resigns, and campaigns again. So fn
// never runs twice at once in one Run, and a Run that loses leadership
// stops its work before it competes again. If fn returns by itself, Run
// resigns and returns fn's error (nil included). When ctx ends, Run
// cancels fn, waits for it, resigns, and returns ctx.Err(). A Campaign
// error other than ctx's end is returned (electors retry transient
// failures themselves).
//
// Run always resigns a term it was given, even one already lost, so that
// the elector can release what it holds; the Resign context is not
// cancelled by ctx (it would prevent a graceful hand-over) but ends when
// the term does, so a resign against an unreachable backend is bounded
// by the term's own lifetime.
//
// # What leadership guarantees
//
// Within one process, Memory is a perfect lock: a new term starts only
// after the previous holder has resigned. A distributed elector cannot
// promise that: a replica learns that it lost its lease only after the
// fact, or by a local clock, and its work may still be running (or its
// writes in flight) when another replica starts. Electors built on leases
// end the term early enough to make the overlap unlikely, not impossible.
// Writes that must never come from two leaders need a precondition that
// the store checks (a fencing token, such as the election key's revision
// in etcd, or an object's resourceVersion).
//
// # Bad input
//
// One rule for every call of this package that takes a context: a nil
// ctx is an error, returned before anything happens (Run, Memory's
// Campaign and its terms' Resign), never a panic. Run also returns an
// error for a nil fn and for a nil Elector, including one holding a nil
// pointer, and ends with an error if Campaign returns a nil Term.
//
// # What can hold Run hostage
//
// Run returns only after fn has returned and the term was resigned: an fn
// that ignores its cancelled context keeps Run from returning, and so
// does an Elector whose Campaign ignores ctx. Resign gets a context that
// ends with the term, not with ctx; a Resign that ignores it holds Run
// too.
//
// # Concurrency
//
// Run calls fn on the caller's goroutine and blocks until it returns;
// while fn runs, and while it resigns, one helper goroutine watches
// Term.Done, and both helpers have exited when Run returns. Memory is safe
// for concurrent use, hands the seat over in campaign order, and its
// constructor starts nothing.
package leader
