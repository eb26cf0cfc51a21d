// Package etcd is a ctrlkit source backed by etcd v3: Source[T] stores
// objects of type T under a key prefix, implements source.ListWatcher
// and source.VersionComparer for informers and reflectors, and offers
// the same writes as fake.Source (Get, Create, Update, Delete with
// optimistic concurrency). Elector is leader election over an etcd lease,
// for leader.Run.
//
// It is its own module (github.com/ctrlkit/ctrlkit/etcd) so that etcd's
// dependencies reach only the programs that import it.
//
// # Usage
//
//	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"10.0.0.1:2379", "10.0.0.2:2379"}})
//	src, err := etcd.New(cli, etcd.Options[*Pod]{
//		Prefix:  "/registry/pods/",             // the keys this source owns
//		KeyFunc: func(p *Pod) string { return p.Namespace + "/" + p.Name },
//		Codec:   etcd.JSONCodec[*Pod]{},        // the default; any Codec[T]
//	})
//	rv, err := src.Create(ctx, pod)             // stored at /registry/pods/ns/name
//	// src is a source.ListWatcher[*Pod]: hand it to an informer.
//
// # Versions
//
// A resourceVersion is an etcd revision as a decimal string. Get, List
// items and watch events carry each object's mod revision (the revision of
// its last write), which is stamped into objects that implement
// source.VersionSetter. Update and Delete take that revision as a
// precondition (source.ErrConflict when stale, source.ErrNotFound
// when the key is missing — told apart inside the same transaction).
// Revisions are global to the etcd cluster, so the versions of one prefix
// have gaps, and a List of an untouched prefix still advances.
//
// # Lists
//
// List reads the prefix at one revision: the latest for "", exactly the
// given one otherwise. Pages (opts.Limit) carry a continue token that pins
// the revision and the last key, so every page belongs to one snapshot;
// without a limit, List reads pages of Options.PageSize itself, at one
// revision. A revision that etcd has compacted away, or a token pinned to
// one, fails with source.ErrExpired; a revision ahead of the cluster
// with source.ErrFutureVersion.
//
// # Watches
//
// Watch is an etcd watch on the prefix from the given revision + 1, with
// the previous values, so that Deleted events carry the object's last
// state (stamped with the revision of that state; the event carries the
// delete's). etcd's watch guarantees carry over: events are ordered by
// revision, none is delivered twice, none is skipped, and clientv3 resumes
// the stream on another member when the one it was connected to fails. A
// starting revision that is already compacted is returned as an error
// wrapping source.ErrExpired; history compacted under a running watch
// ends it with an Error event wrapping source.ErrExpired (the contract
// allows either; see Watch). Other breaks close the channel without an
// Error event, so that the caller resumes from its last version. With
// AllowBookmarks an idle watch turns etcd progress notifications into
// Bookmark events; with SendInitialEvents it streams a paginated read at
// one revision as Added events, the Bookmark with InitialEventsEnd, and
// then the watch from the next revision.
//
// # Bad data
//
// A stored value that the Codec cannot decode is never skipped and never
// panics: Get and List return a *DecodeError naming the etcd key, and a
// watch sends it as an Error event and ends. The source trusts that a
// value is stored under the key KeyFunc gives it.
//
// # Leader election
//
// NewElector returns a leader.Elector over an etcd lease (TTL, kept alive
// by a go.etcd.io/etcd/client/v3/concurrency Session) and the election
// algorithm of concurrency.Election (the oldest candidate key leads), with
// every request bounded by the context or the lease. A term ends when this
// replica could not renew its lease for ElectorOptions.RenewDeadline,
// which is shorter than the TTL, so that leader.Run cancels the work
// before etcd can expire the lease and let another replica win: the work
// has TTL - RenewDeadline to stop. That is a timing argument, not mutual
// exclusion (a process paused past the margin, or work that ignores
// its context defeats it): writes that must come from the leader only
// should carry the term's precondition (Term.IsLeader, a comparison on the
// election key) or a resourceVersion. A deleted election key or a revoked
// lease ends the term as soon as the term's watch sees it.
//
// # Concurrency
//
// Source and Elector are safe for concurrent use; their constructors start
// no goroutine and make no request. Each open watch has one goroutine,
// which exits (after the etcd watch is torn down) and closes the channel
// when the watch's context ends. A term has one goroutine, which exits
// when the term ends. The client is the caller's: close it after the
// source and the elector are done.
package etcd
