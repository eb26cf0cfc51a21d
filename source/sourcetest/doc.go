// Package sourcetest is the conformance suite of source.ListWatcher
// implementations that can also be written to: fake.Source, the etcd
// source, and any backend a user plugs in.
//
// A source's test calls Run with a constructor of fresh, empty sources
// holding *Object values, and a Capabilities value that declares what the
// source supports:
//
//	func TestConformance(t *testing.T) {
//		sourcetest.Run(t, func(t *testing.T) sourcetest.Source {
//			return newMySource(t) // keyed by sourcetest.ObjectKey
//		}, sourcetest.Capabilities{WatchList: true, Bookmarks: true})
//	}
//
// Run checks etcd's watch guarantees and the reflector contract:
//
//   - writes: Create on a taken key fails with source.ErrAlreadyExists;
//     Update and Delete of a missing key with source.ErrNotFound; a
//     stale resourceVersion precondition with source.ErrConflict;
//     returned resourceVersions strictly increase, are stamped into the
//     stored objects, and are the ones watchers see;
//   - watches are ordered (strictly increasing versions), unique (no
//     event twice) and reliable (a watch from version x delivers every
//     write after x, with concurrent writers too); they resume from any
//     version still in the history; "" means from now; Deleted events
//     carry the last state; no Bookmark arrives unless requested;
//   - List at a version is consistent (it equals the state at the version
//     it reports, which is at least the one asked for; "" is the latest),
//     in key order; pagination sees one snapshot even when writes happen
//     between pages (the suite asks for later pages with the same Limit,
//     the Continue token and ResourceVersion "", as client-go's pager does);
//   - after Source.Compact, a List or continue token at an older version
//     and a Watch from an older version fail with source.ErrExpired
//     (a Watch may return the error or send it as the only Error event);
//     versions newer than the latest fail with source.ErrFutureVersion;
//     malformed versions fail;
//   - SendInitialEvents streams the state as Added events and a Bookmark
//     with InitialEventsEnd, then the live writes (or fails with
//     source.ErrUnsupported when Capabilities.WatchList is false);
//     with Capabilities.Bookmarks an idle watch that allows bookmarks
//     receives one;
//   - cancelling a watch's context closes its channel, and the number of
//     goroutines returns to where it was.
//
// Run uses real time, bounded by Capabilities.Timeout per wait; with the
// fake source it finishes in well under a second.
package sourcetest
