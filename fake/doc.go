// Package fake provides Source, an in-memory, versioned, thread-safe
// source of objects: the default backend of single-process programs and
// the test double of everything that consumes a source.ListWatcher.
// It is a real implementation of the source contract, with the guarantees
// of etcd's watch, plus deterministic fault injection.
//
// # Usage
//
//	src, err := fake.NewSource(func(p *Pod) string { return p.Name }, fake.Options[*Pod]{})
//	rv, err := src.Create(ctx, &Pod{Name: "a"})
//	list, err := src.List(ctx, source.ListOptions{})
//	events, err := src.Watch(ctx, source.WatchOptions{ResourceVersion: list.ResourceVersion})
//
// # Versions
//
// Every write (Create, Update, Delete) takes the next revision of one
// global counter that starts at 0; resourceVersions are those revisions
// as decimal strings, and Source implements source.VersionComparer.
// Get returns an object with the revision of its last write; Update and
// Delete accept that revision as an optimistic-concurrency precondition
// (source.ErrConflict when stale). When T implements
// source.VersionSetter the source stamps each written object with its
// revision.
//
// # Writes, as kube-apiserver makes them
//
// Two rules make code ported from client-go behave as it does against a
// real cluster. Update's precondition is, unless given explicitly, the
// resourceVersion the object itself carries: read, change, write back,
// and a concurrent writer makes it fail with source.ErrConflict instead
// of being overwritten. And an Update that changes nothing (by
// Options.Equal, reflect.DeepEqual by default) is not written: no new
// revision, no event — a controller that writes its status on every sync
// would otherwise wake itself forever, and inside a testing/synctest
// bubble such a hot loop stops virtual time and hangs the test. Set
// Options.Equal to NeverEqual for etcd's behaviour, where every write is
// a revision.
//
// Source implements source.Writer; Recorder wraps any Writer and records
// every call, for tests to assert what a controller wrote.
//
// # Objects are shared
//
// By default the source stores the object a caller writes and hands that
// same object to every reader. The caller must not change an object after
// writing it, and readers must not change what they read. Options.Copy
// makes writes store a copy and Get return a copy, so read-modify-write
// through Get is safe; objects from List and Watch stay shared and
// read-only, as in an informer cache.
// Options.Share lets an update's object take the unchanged parts of the
// version it replaces, so that the versions the history keeps hold
// those parts once; Options.ShareCreated lets a created object take the
// parts it has in common with objects stored before it (a pod and its
// siblings of one template).
//
// # History and expiry
//
// The source remembers the last Options.HistorySize writes (Compact
// forgets them all at once). When Options.Size measures objects, the
// history is bounded by bytes too: the past versions only the history
// keeps alive (an object an Update replaced, the last state of a deleted
// one) sum to at most Options.HistoryBytes, and the oldest writes are
// forgotten to stay within; current objects are never counted nor
// forgotten. HistoryStats reports what the history holds. With
// Options.MaxObjectSize, a write of a larger object fails with
// ErrTooLarge. Within the window a List can be served at
// any revision, a continue token stays valid, and a Watch can resume from
// any revision; older versions fail with source.ErrExpired, versions
// newer than the last write with source.ErrFutureVersion. Watch returns
// these errors when it is called; a watch that later loses history it has
// yet to replay (Compact, or the window passing a slow replay) ends with
// an Error event wrapping source.ErrExpired. A watch that has replayed
// its history is never affected by compaction.
//
// # Watch guarantees
//
// A watch delivers every write after its starting revision exactly once,
// in revision order, with no gaps (except writes made silent by
// MissNextEvents, which no watcher ever sees), then the live writes.
// Deleted events carry the object's last state. Each watch has its own
// goroutine, which replays the shared history and then sends the live
// events that writers queue for it, at most Options.WatchBuffer (1,024 by
// default) not yet received. A write finding a watcher's buffer full
// waits for that reader as kube-apiserver's watch cache does (cacher.go,
// dispatchEvent): for the dispatch budget, at most Options.WatchBudget
// (100 ms by default), which refills by half of it per second of wall
// time and is shared by the writes of the source; a reader that takes an event within it gets every event, a
// burst of any size included, and the writes go on at its pace. A watcher
// still full when the budget has run out is ended with an Error event
// wrapping source.ErrExpired and a closed channel (the client relists),
// and counted by TerminatedWatchers — or, with Options.CatchUp, goes on
// from the history as etcd's unsynced watchers do: it replays the writes
// after the last one its reader took and rejoins the live stream once it
// has caught up, ending with source.ErrExpired only if the history has
// forgotten one it has yet to send (LaggedWatchers counts them). So
// memory stays bounded — at most WatchBuffer events per watcher, and
// the history — and no write waits
// longer than the budget left: at most WatchBudget at once, and half of
// it per second on average once it is spent. Get, List and Watch never wait
// for readers. Cancelling the watch's context closes the channel and
// ends its goroutine (and releases a writer waiting for it); a watch
// ended any other way has closed its channel too.
//
// # Fault injection
//
// FailLists, FailWatches, DelayLists, DelayWatches, CutWatches, Compact
// and MissNextEvents inject faults deterministically; ListCalls,
// WatchCalls, Watchers and TerminatedWatchers observe the clients.
//
// # Concurrency
//
// All methods are safe for concurrent use. The only user code called
// under the source's lock is the object's SetResourceVersion, during
// writes. The constructor starts no goroutine; the only goroutines are
// those of open watches, one each.
package fake
