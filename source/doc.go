// Package source is the contract between ctrlkit and whatever holds the
// objects: a ListWatcher lists objects at one consistent resourceVersion
// and watches the changes after it. The in-memory fake.Source, etcd.Source
// and the cluster store implement it; reflector.Reflector consumes it.
//
// The package holds only vocabulary — ListWatcher, Event, List and their
// options, the optional Versioned, VersionSetter and VersionComparer, the
// sentinel errors callers branch on (ErrExpired, ErrConflict, …) and a few
// helpers for source authors — so that a source, or code that writes to
// one, never needs to import the reflector. It plays the part that
// apimachinery's watch package plays beside client-go's tools/cache.
//
// # Resource versions
//
// ResourceVersions are opaque strings to everything but the source that
// made them. A source whose versions are ordered implements
// VersionComparer, so that readers can refuse time travel and wait for a
// version. Sources built on one int64 revision per write (etcd's model,
// used by fake.Source) can use FormatRevision, ParseRevision and
// CompareRevisions.
//
// # Errors
//
// Sources wrap the sentinels with %w; callers test them with errors.Is:
//
//	ErrExpired        the version or continue token is too old: relist
//	ErrFutureVersion  the version is newer than the source's current one
//	ErrNotFound       the object does not exist
//	ErrAlreadyExists  a create found the key taken
//	ErrConflict       a write's resourceVersion precondition is stale
//	ErrUnsupported    the source does not support a requested option
//	ErrTransient      retry the same request after a backoff (429, a
//	                  refused connection): the version is still good
//
// # List versions
//
// A list at a resourceVersion is read as ListOptions.ResourceVersionMatch
// says, as in Kubernetes: NotOlderThan (the default) is any state at
// least that new — the source serves its latest, so a relist repairs
// whatever a watch lost — and Exact is that very snapshot, or ErrExpired.
//
// Package sourcetest holds the conformance suite every source passes.
package source
