// Package deltafifo provides DeltaFIFO, the queue between a reflector and
// the cache of an informer: client-go's DeltaFIFO contract, generic over
// the object type, with typed deletes, without holding a lock while the
// consumer works, and quarantining an object it cannot take instead of
// failing the call (see "Bad objects and errors").
//
// # Usage
//
// A reflector writes into the FIFO through the reflector.Store interface
// (Add, Update, Delete, Replace, Resync) and reflector.BookmarkStore
// (Bookmark); every call carries the resourceVersion of the change. A
// consumer calls Pop in a loop and applies each key's deltas to its
// cache, which it hands to the FIFO as KnownObjects:
//
//	f, err := deltafifo.New(keyOf, deltafifo.Options[*Pod]{KnownObjects: cache})
//	...
//	for {
//		err := f.Pop(ctx, func(d deltafifo.Deltas[*Pod], isInInitialList bool) error {
//			return apply(cache, d)
//		})
//		if errors.Is(err, deltafifo.ErrClosed) || ctx.Err() != nil {
//			return
//		}
//	}
//
// # Contract
//
//  1. A key is queued once, in the order of its first insertion since it
//     was last popped; later changes append deltas to it without moving
//     it. Pop hands out a key's deltas oldest first.
//  2. Only two consecutive Deleted deltas collapse into one (the observed
//     delete is kept over an inferred one; of two observed deletes, the
//     older; of two inferred ones, the newer). No other coalescing
//     happens.
//  3. Delete of a key that is neither queued, nor being processed (see
//     below), nor known is ignored.
//  4. Replace queues a Replaced delta per listed item, then infers deletes
//     (Delta.FinalStateUnknown) for the keys the consumer has or will have
//     but the list lacks: queued keys whose newest delta is not a delete,
//     keys being processed, and known keys. A delta never carries an
//     object the FIFO did not get from its caller or from KnownObjects; a
//     key that vanished from KnownObjects meanwhile is skipped. Items it
//     cannot take are quarantined (see "Bad objects and errors").
//  5. Resync queues a Sync delta for every known key that is neither
//     queued nor being processed.
//  6. Options.Transform runs once per object handed in, before it is
//     queued; never for inferred deletes or Sync deltas.
//  7. HasSynced turns true once every key of the first Replace has been
//     processed (inferred deletes included), or at the first Add, Update
//     or Delete if one came before any Replace. Synced is its channel.
//  8. Close is idempotent; Pop drains what is queued and then returns
//     ErrClosed; every blocked Pop wakes.
//
// # Keys being processed
//
// Pop removes the key from the queue and releases the lock before it
// calls process, so a slow consumer never blocks the reflector (the
// long-standing complaint about client-go's DeltaFIFO, kubernetes#103789).
// Like a workqueue's dirty/processing sets, the FIFO keeps the set of keys
// whose process func is running: a key in it is never handed to a second
// Pop, so per-key order holds with any number of concurrent Pops; a key
// changed meanwhile waits in the queue until process returns. Between the
// pop and the return of process, the consumer's cache may not reflect the
// popped deltas yet, so Delete, Replace and Resync treat a key being
// processed according to its newest popped delta instead of consulting
// KnownObjects: a delete arriving for an object whose Added delta is being
// processed is queued, not ignored, and a relist that lacks it infers its
// delete.
//
// # Resource versions
//
// LastResourceVersion is the version of the newest call handed in.
// ProcessedResourceVersion is the newest version up to which every change
// has been popped and processed, with a channel that is closed when it
// moves, which is what an informer needs to wait for its cache to catch up
// with a write (read-your-writes). An ignored delete, a quarantined object
// and a Bookmark count as processed as soon as everything before them is.
// A change the source never handed in (a lost event) is not waited for:
// the version moves past it.
//
// # Bad objects and errors
//
// One object the FIFO cannot take never stops the others, so a reflector
// is never made to relist by a single bad object. An object whose key
// func returns "" or panics, or whose Transform fails or panics, is
// quarantined: it is left out, logged at error level with its key (if
// any), delta type and resourceVersion, and handed to Options.OnBadObject
// as a *BadObjectError; the call goes on with everything else and returns
// nil. Its resourceVersion still counts, so waiting for versions cannot
// hang on it. What the consumer keeps for it is its last good state:
//
//   - Add or Update: the change is dropped; the consumer keeps whatever
//     it had for the key (nothing, if it never had a good version).
//   - Replace: an item with a key counts as listed, so no delete is
//     inferred for it and the consumer keeps its last good state; an item
//     without a key cannot be matched to a cached one and counts as
//     absent (a known object it may have been is inferred deleted).
//   - Delete: with a key, the delete still applies, carrying the last
//     object the FIFO knows for the key; without one it is dropped (a
//     later relist infers it).
//
// client-go's DeltaFIFO returns the failure instead (a KeyError for the
// key func), and a failed Replace makes its reflector relist, which meets
// the same object again. Keeping
// the last good state rather than dropping the key is deliberate:
// dropping would tell the consumer that an object which still exists was
// deleted, and a controller would act on that (recreate it, release what
// it owns), whereas a state that is one version old is what a lagging
// cache shows anyway. A later good version of the object is taken as
// usual.
//
// Add, Update, Delete, Replace and Resync return an error only after
// Close (ErrClosed). A panic in Options.OnBadObject is recovered and
// logged. An error returned by process is returned by Pop and does not
// re-queue the deltas; Pop with a nil ctx or process returns an error
// (for ctx, wrapping ErrNilContext) and never panics.
//
// # Cost
//
// Add and Pop are O(1) amortized with one allocation per newly queued key
// (the Deltas storage that process then owns; the FIFO's own per-key
// records are allocated in chunks and recycled once process returns);
// with k concurrent Pops they also do O(k) work to skip keys being
// processed. Replace and Resync are O(listed + queued + known keys).
package deltafifo
