// Package informer provides Informer, the shared index informer: a cache
// of the objects of one source, kept in step with it by a reflector's
// lists and watches, and any number of event handlers that are told about
// its changes (coalesced per key when a handler lags). The cache converges
// to the source after the faults the reflector repairs (see package
// reflector for which ones: a lost event is repaired only by a relist
// that serves newer data), except for objects it cannot take, which it
// keeps at their last good state (see "Bad objects").
//
// # Usage
//
//	inf, err := informer.New(source, keyOf, informer.Options[*Pod]{
//		Indexers: indexer.Indexers[*Pod]{"node": byNode},
//	})
//	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
//		AddFunc:    func(p *Pod, isInInitialList bool) { queue.Add(keyOf(p)) },
//		UpdateFunc: func(old, new *Pod) { queue.Add(keyOf(new)) },
//		DeleteFunc: func(p *Pod, finalStateUnknown bool) { queue.Add(keyOf(p)) },
//	}, informer.HandlerOptions{})
//	go inf.Run(ctx)
//	if !informer.WaitForCacheSync(ctx, reg.HasSynced) { return ctx.Err() }
//	pods, err := inf.Lister().ByIndex("node", "node-1")
//
// Several controllers share one informer per type through a Factory:
// informer.Shared[T](factory, name, lw, keyFunc, opts), factory.Start(ctx),
// factory.WaitForCacheSync(ctx), factory.Shutdown(). A later caller whose
// options the shared informer would not honour (another resync period, an
// index it lacks, a Transform where it has none, callbacks it would never
// call) gets an error wrapping ErrOptionsConflict instead of an informer
// that ignores them; see Shared for the precise rule.
//
// # How a change flows
//
// A reflector.Reflector lists and watches the source and writes into a
// deltafifo.DeltaFIFO, whose KnownObjects is the cache (an
// indexer.Indexer). Run pops one key's deltas at a time and, for each
// delta, first applies it to the cache and then queues the notification
// for every handler:
//
//   - Added, Updated, Replaced or Sync of a key that is not cached: the
//     object is added; OnAdd(obj, isInInitialList), where isInInitialList
//     is true for the informer's first list.
//   - Added, Updated or Replaced of a cached key: if both objects
//     implement source.Versioned and carry the same resourceVersion,
//     nothing changed (a relist found the object as cached) and nobody is
//     told; if the new object is older (when the source implements
//     source.VersionComparer) the delta is stale and dropped; otherwise
//     the cache is updated and every handler gets OnUpdate(cached, new).
//     Without Versioned objects every relisted object counts as changed.
//   - Sync of a cached key: nothing (resync is per handler, below).
//   - Deleted of a cached key: the object is removed;
//     OnDelete(obj, finalStateUnknown), with the delta's object (or the
//     cached one if the delta's is older) and finalStateUnknown true when
//     the delete was inferred from a relist. Deleted of a key that is not
//     cached: nothing, as nobody was told of the object.
//
// The indexer is written before the handlers hear of the change, so a
// handler that reads the Lister sees the state it was told about or a
// newer one.
//
// # Bad objects
//
// One object the informer cannot take never stops the others. An object
// whose key func returns "" or panics, or whose Options.Transform fails
// or panics, is quarantined by the FIFO (see deltafifo, "Bad objects and
// errors"): it is logged with its key (if any) and resourceVersion,
// counted (Metrics.Quarantined) and handed to Options.OnBadObject, and
// the list or watch goes on; it never makes the reflector relist. A delta
// the cache rejects because an index function fails is logged, counted
// (Metrics.CacheErrors) and reported the same way. In both cases the
// cache keeps the object's last good state (nothing, if no version of it
// was ever taken) and handlers are not told; a later good version is
// taken as usual. A delete still applies even when its object cannot be
// transformed. Keeping the last good state rather than dropping the key
// is deliberate: dropping would tell handlers that a live object was
// deleted, which a controller acts on, whereas a state one version old is
// what a lagging cache shows anyway.
//
// # Handlers
//
// Each registration (AddEventHandler) has its own goroutine and its own
// pending buffer, so one slow or panicking handler never delays or loses
// another's notifications. Per registration and per key:
//
//   - notifications arrive in the order of the cache's changes, and the
//     last one a handler gets for a key matches the cache's final state
//     for it (present with that object, or deleted);
//   - a handler is never called concurrently with itself;
//   - pending notifications coalesce, at most two per key, and a delete
//     is never swallowed: update+update becomes one update from the
//     first old to the last new object; add+update an add of the newest;
//     add+delete a delete carrying the last object (so a handler may be
//     told of the deletion of an object it never got OnAdd for: a
//     controller that created it still hears of it); update+delete a
//     delete of the last object; delete+add stays a delete followed by
//     an add (of the newest object); delete+add+delete stays two deletes,
//     each with its incarnation's last object; and when a further add
//     would make three, the older of the two deletes is dropped (the
//     handler then sees the newest delete and the add). A slow handler's
//     backlog is therefore bounded by the number of keys, never by the
//     number of events, and it skips intermediate states (updates, and a
//     deleted incarnation followed by two more);
//   - a panic in a handler is recovered, logged and counted
//     (Registration.Panics, HandlerMetrics.Panics); so is a handler call
//     that ends in runtime.Goexit (t.FailNow in a test), which the
//     registration survives on a new goroutine; either way the handler
//     keeps receiving, from the next notification on.
//
// A handler registered before Run gets the first list as OnAdd(obj, true);
// one registered later first gets OnAdd(obj, true) for every cached object,
// then the live notifications, with nothing lost or repeated in between.
// Registration.HasSynced is true once the informer has synced and that
// handler has returned from every call of its initial batch.
// RemoveEventHandler returns only when the handler will never be called
// again; called from inside that handler it returns an error instead of
// waiting for itself. Registration.Pending counts the keys waiting in the
// handler's buffer plus the unfinished ones of the batch (up to 64 keys)
// being delivered. AddEventHandler after Run has returned fails with
// ErrStopped.
//
// Resync is per handler: a handler whose HandlerOptions.ResyncPeriod
// (default Options.ResyncPeriod, rounded up to a multiple of it) has
// elapsed gets OnUpdate(obj, obj) for every cached object; handlers without
// a period get none. The informer drives resync itself from one timer; it
// does not go through the reflector or the FIFO. Informer.Resync (and
// Factory.Resync) resyncs every handler at once, on demand; so does
// Resyncs.Resync for every informer run under a context carrying it
// (WithResyncs), the hook of a test harness that does not hold the
// informers.
//
// # Objects are shared
//
// The cache, the Lister and every handler share the same objects: nobody
// may mutate an object obtained from an informer (copy it first).
// Options.MutationCheck detects violations in tests.
//
// # Read your writes
//
// WaitForResourceVersion(ctx, rv) returns once the informer has applied
// to the cache every change up to rv that its source delivered, using the
// source's VersionComparer; a controller that wrote an object at rv calls
// it before it reads the cache again, so it does not act on a state older
// than its own write. Two exceptions: a quarantined write counts as
// applied (the cache then holds the object's last good state), and a
// change the source never delivered (a lost event) is not waited for.
//
// # Concurrency and blocking
//
// Constructors start nothing. Run owns every goroutine (the reflector, the
// pop loop, one per handler, the resync timer and the mutation checker)
// and returns ctx.Err() only after all of them have exited; pending
// notifications are dropped when ctx ends. So user code that does not
// return holds shutdown hostage: a handler call blocked forever (Run
// waits for it, as does RemoveEventHandler), a ListWatcher's List or
// Watch that ignores its context, and a key func, Transform, index func,
// OnBadObject or OnMutation that never returns. AddEventHandler,
// RemoveEventHandler and the readers are safe from any goroutine;
// RemoveEventHandler blocks for the duration of a handler call in
// progress (from inside that very handler it returns an error instead).
// WaitForCacheSync and WaitForResourceVersion block on timers and
// channels only, so they work in testing/synctest bubbles.
//
// Bad input never panics. A nil context makes every call that returns an
// error return one wrapping ErrNilContext (Run, WaitForResourceVersion),
// makes WaitForCacheSync and Factory.WaitForCacheSync report false, and
// makes Factory.Start log an error and start nothing. A panic in
// Options.OnBadObject or MutationCheck.OnMutation is recovered, logged
// and counted (Metrics.CallbackPanics).
package informer
