package deltafifo

import "strconv"

// DeltaType says what kind of change a Delta records.
type DeltaType uint8

// The delta types. The zero value is not a valid type.
const (
	// Added: the object was created (a watch Added event).
	Added DeltaType = iota + 1
	// Updated: the object changed (a watch Modified event).
	Updated
	// Deleted: the object is gone. Delta.FinalStateUnknown tells whether
	// the delete was observed (false) or inferred by Replace (true).
	Deleted
	// Replaced: the object was listed by Replace (a relist).
	Replaced
	// Sync: a periodic resync re-delivers a known object; nothing changed.
	Sync
)

// String returns the name of the delta type.
func (t DeltaType) String() string {
	switch t {
	case Added:
		return "Added"
	case Updated:
		return "Updated"
	case Deleted:
		return "Deleted"
	case Replaced:
		return "Replaced"
	case Sync:
		return "Sync"
	}
	return "DeltaType(" + strconv.Itoa(int(t)) + ")"
}

// Delta is one change to one object.
type Delta[T any] struct {
	// Type is what happened.
	Type DeltaType
	// Object is the new state (Added, Updated, Replaced, Sync) or the last
	// known state (Deleted). It is never a zero value invented by the
	// FIFO: inferred deletes carry the newest object the FIFO or
	// KnownObjects had for the key.
	Object T
	// ResourceVersion is the version the change was handed in with: the
	// event's version for Added, Updated and Deleted, the list's version
	// for Replaced and for deletes inferred by Replace, and "" for Sync
	// (a resync is not a change).
	ResourceVersion string
	// FinalStateUnknown is true for a Deleted delta inferred by Replace:
	// the object vanished while the watch was down, and Object is the
	// last state the FIFO knew, which may be older than the real final
	// state.
	FinalStateUnknown bool
}

// Deltas is the list of changes queued for one key, oldest first.
type Deltas[T any] []Delta[T]

// Oldest returns the oldest delta; ok is false when d is empty.
func (d Deltas[T]) Oldest() (delta Delta[T], ok bool) {
	if len(d) == 0 {
		return delta, false
	}
	return d[0], true
}

// Newest returns the newest delta; ok is false when d is empty.
func (d Deltas[T]) Newest() (delta Delta[T], ok bool) {
	if len(d) == 0 {
		return delta, false
	}
	return d[len(d)-1], true
}

// appendDelta appends nd to ds, collapsing two consecutive Deleted deltas
// into one: the older one is kept unless it was inferred, in which case
// the newer one replaces it (so an observed delete always wins over an
// inferred one). No other coalescing happens.
func appendDelta[T any](ds Deltas[T], nd Delta[T]) Deltas[T] {
	if n := len(ds); n > 0 && nd.Type == Deleted && ds[n-1].Type == Deleted {
		if ds[n-1].FinalStateUnknown {
			ds[n-1] = nd
		}
		return ds
	}
	return append(ds, nd)
}
