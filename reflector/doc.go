// Package reflector implements Reflector, the loop that keeps a Store in
// step with a source.ListWatcher: it lists, watches from the list's
// resourceVersion, resumes, relists on expiry and backs off on errors. The
// source contract it consumes (ListWatcher, Event, the options, the
// sentinel errors) lives in package source; this package adds the Store a
// reflector writes into.
//
// # Usage
//
//	r, err := reflector.New(lw, store, reflector.Options{ResyncPeriod: time.Minute})
//	if err != nil { ... }          // nil lw or store, invalid options
//	go r.Run(ctx)                  // returns ctx.Err() when ctx ends
//	rv := r.LastSyncResourceVersion()
//
// The informer package wires a Reflector to a DeltaFIFO; use a Reflector
// directly only to build something of that kind.
//
// # What Run does
//
//  1. Sync. It lists at the last synced resourceVersion ("" the first
//     time, meaning the latest) with source.NotOlderThan, so the source
//     serves its latest state: a relist repairs whatever a watch lost,
//     and a version the store refused is never served again once a
//     newer one exists. It lists in pages of Options.PageSize when that
//     is set, following Continue tokens to the end (later pages are
//     asked with the token, the Limit and ResourceVersion "", as
//     client-go's pager does; every page must carry the first page's
//     resourceVersion), and calls Store.Replace(items, listRV) once with
//     every page. If the source still answers ErrExpired (or
//     ErrFutureVersion after it was reset) it lists the latest at once.
//     If a continue token expires mid-way, it lists again in one
//     unpaginated call. With a VersionComparer, a list older than asked
//     for is refused.
//  2. Watch. It watches from the last synced resourceVersion with
//     bookmarks allowed, and hands each event to the store with its
//     resourceVersion: Added → Add, Modified → Update, Deleted → Delete,
//     Bookmark → BookmarkStore.Bookmark if the store implements it. Every
//     applied event (bookmarks included) becomes the last synced version.
//  3. Resume. When the stream closes, or its lifetime runs out, it
//     watches again from the last synced version, without a relist. Each
//     watch lives for a random duration in [Options.MinWatchTimeout,
//     Options.MaxWatchTimeout] ([5m, 10m] by default); then the reflector
//     cancels the watch's context. A watch that closes by itself less
//     than a second after it started, without a single event, is an
//     error (ErrShortWatch).
//  4. Expiry. ErrExpired from Watch or in an Error event ends the watch
//     and the reflector relists (step 1) at once — unless nothing was
//     applied since the last sync began, in which case it backs off
//     first, so a source that expires versions faster than they can be
//     listed cannot cause a hot loop.
//  5. Errors. A watch that fails with an error wrapping
//     source.ErrTransient (too many requests, a refused connection) is
//     watched again from the last synced version after a backoff,
//     without a relist: the version is still good, and a relist per
//     transient error is the load spike that takes API servers down. It
//     never turns into a relist by repetition; if the version expires
//     meanwhile, the source says ErrExpired and step 4 applies. Any other
//     error — from List or Watch, an Error event, a breach of the source
//     contract (ErrBadSource, a panicking List or Watch included), a
//     store error (ErrStore), a short watch — is logged, counted
//     (Options.Metrics), passed to Options.WatchErrorHandler, and
//     followed by a backoff (Options.Backoff: 800ms, ×2, capped at 30s,
//     up to 50% jitter taken off, reset after 2 minutes without
//     failures) and a relist.
//  6. Watch-list. With Options.UseWatchList, the sync is one Watch with
//     SendInitialEvents: the initial Added events are buffered until the
//     Bookmark with InitialEventsEnd, then handed to the store in one
//     Replace at the bookmark's version, and the same stream goes on as
//     the watch. If the source returns ErrUnsupported, or the end of the
//     initial events does not come within Options.WatchListTimeout (1m),
//     the reflector falls back to List+Watch for the rest of Run.
//  7. Resync. While watching, Store.Resync is called every
//     Options.ResyncPeriod (counted from the last Replace); a resync that
//     comes due during a list or a backoff runs when the next watch
//     starts.
//
// # Bad input and store errors
//
// A source that breaks the contract — an Error event with a nil Err, an
// event of unknown type or without a resourceVersion, an event older than
// the last synced version (only detectable when the ListWatcher implements
// VersionComparer; equal versions are accepted), a nil channel without an
// error, a list without a resourceVersion, with a repeated continue
// token or with pages at different resourceVersions, a Modified or
// Deleted event among the initial events of a watch-list, a List or Watch
// that panics — is logged, counted in Metrics.BadSource and handled like
// any other error: backoff, then relist. The reflector stops reading a
// stream after its first Error event. It never panics on a source's
// input, and New refuses a nil (or typed-nil) ListWatcher or Store; Run
// refuses a nil context.
//
// A store that returns an error (a closed DeltaFIFO, say) is treated the
// same way: the error, wrapped in ErrStore, is logged and counted, and the
// reflector relists after a backoff, so that a store that recovers is
// brought back in step with a complete list. The last synced version only
// advances when the store accepted the change.
//
// # Concurrency and blocking
//
// New starts nothing. Run runs the whole loop on the calling goroutine and
// starts no other; it returns ctx.Err() once ctx ends, and returns only
// after the List or Watch call in progress has returned: a source whose
// List ignores its context holds shutdown hostage until it returns. The store is called from Run's goroutine only,
// one call at a time, so a slow store slows the reflector and nothing
// else. The context passed to Watch is cancelled when the reflector
// stops reading the stream; the reflector does not wait for the source
// to close the channel. LastSyncResourceVersion may be called from any
// goroutine. Run may be called once.
package reflector
