package expectations

import (
	"iter"
	"slices"
	"time"
)

// UIDTracking is Expectations whose deletions are tracked by the UID (or
// any unique key) of each object to delete, as kube-controller-manager's
// UIDTrackingControllerExpectations does. It exists for graceful deletion:
// a controller treats an object that gains a deletion timestamp as
// deleted, and later sees it deleted for real; tracking the UID makes
// those two observations count once. An observation of a UID the record
// does not expect — another controller's delete, or a stale one from an
// owner deleted and recreated under the same key — counts nothing.
//
// Creations are counted, or tracked by name, as in Expectations. A record
// holds the counts, the expected names and the UID set; ExpectCreations,
// ExpectCreationsOf, ExpectDeletions and Delete replace or drop them all
// together. Satisfied is decided by the counts alone, exactly as
// for Expectations: the deletion count starts at the number of distinct
// UIDs and each expected UID lowers it once.
//
// Every method is safe for concurrent use.
type UIDTracking struct {
	c core
}

// NewUIDTracking returns an empty UIDTracking. The only errors are a
// negative TTL and an Options.Metrics holding a nil pointer.
func NewUIDTracking(opts Options) (*UIDTracking, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &UIDTracking{c: newCore(o)}, nil
}

// ExpectCreations replaces key's record, including any UIDs it still
// expected to see deleted, by one that waits for n creations. The TTL
// starts now.
func (u *UIDTracking) ExpectCreations(key string, n int) {
	u.c.expect(key, n, 0, time.Now())
}

// ExpectDeletions replaces key's record by one that waits for the
// deletion of each distinct UID in uids (and no creations). The TTL
// starts now. Call it before issuing the deletes. Replacing a record that
// still expected UIDs is logged as a warning.
func (u *UIDTracking) ExpectDeletions(key string, uids []string) {
	u.c.expectUIDs(key, uids, time.Now())
}

// ExpectCreationsOf replaces key's record, including any UIDs it still
// expected to see deleted, by one that waits for the creation of each
// distinct name in names, as Expectations.ExpectCreationsOf does. The
// TTL starts now.
func (u *UIDTracking) ExpectCreationsOf(key string, names []string) {
	u.c.expectNames(key, names, time.Now())
}

// CreationObservedOf records that the object named name exists or
// existed (call it on its add, on its delete, and for a failed create),
// as Expectations.CreationObservedOf does: an expected name counts once.
func (u *UIDTracking) CreationObservedOf(key, name string) {
	u.c.observeName(key, name)
}

// PendingCreations yields, in sorted order, the names whose creation
// key's record still expects, from a snapshot taken when it is called.
func (u *UIDTracking) PendingCreations(key string) iter.Seq[string] {
	return slices.Values(u.c.pendingNames(key))
}

// RaiseExpectations adds add creations and del deletions to key's
// record, without restarting its TTL. Deletions raised here have no UID:
// only LowerExpectations lowers them. It does nothing when key has no
// record. Counts saturate instead of wrapping around.
func (u *UIDTracking) RaiseExpectations(key string, add, del int) {
	u.c.adjust(key, add, del, +1)
}

// LowerExpectations subtracts add creations and del deletions from key's
// record, for example for creates that were planned but not issued. It
// does nothing when key has no record. Counts may go negative; they
// saturate instead of wrapping around.
func (u *UIDTracking) LowerExpectations(key string, add, del int) {
	u.c.adjust(key, add, del, -1)
}

// CreationObserved lowers key's outstanding creations by one. Call it
// when the cache shows a new object owned by key, and for each create
// that failed. It does nothing when key has no record.
func (u *UIDTracking) CreationObserved(key string) {
	u.c.adjust(key, 1, 0, -1)
}

// DeletionObserved records that the object with this uid is gone or going
// (deleted, or given a deletion timestamp), or that its delete failed.
// If key's record expects uid, the deletion count drops by one and uid
// is forgotten, so observing it again counts nothing. Any other uid is
// ignored.
func (u *UIDTracking) DeletionObserved(key, uid string) {
	u.c.observeUID(key, uid)
}

// Satisfied reports whether key's controller may act on its cache, as
// Expectations.Satisfied does.
func (u *UIDTracking) Satisfied(key string) bool {
	return u.c.satisfied(key, time.Now())
}

// Remaining reports whether key's controller must still wait and, if
// so, how long until the record expires, as Expectations.Remaining does.
func (u *UIDTracking) Remaining(key string) (d time.Duration, waiting bool) {
	return u.c.remaining(key, time.Now())
}

// Get returns key's outstanding creations and deletions, and whether key
// has a record.
func (u *UIDTracking) Get(key string) (add, del int, ok bool) {
	return u.c.get(key)
}

// PendingDeletions yields, in sorted order, the UIDs whose deletion key's
// record still expects, from a snapshot taken when it is called.
func (u *UIDTracking) PendingDeletions(key string) iter.Seq[string] {
	return slices.Values(u.c.pendingUIDs(key))
}

// Delete forgets key's record: its counts and its UIDs.
func (u *UIDTracking) Delete(key string) {
	u.c.remove(key)
}
