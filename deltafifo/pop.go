package deltafifo

import (
	"context"
	"fmt"
	"slices"
)

// Pop waits until a key is ready, removes it from the queue and calls
// process with its deltas (oldest first) and whether the key belongs to
// the initial list (the first Replace, see HasSynced). It returns what
// process returned.
//
// Pop blocks until a key is ready, the FIFO is closed and drained
// (ErrClosed), or ctx ends (ctx.Err(); a ctx that is already done makes
// Pop return at once without popping). A nil ctx or process is an error
// (for ctx, wrapping ErrNilContext).
//
// The FIFO's lock is not held while process runs: writers and other Pops
// proceed meanwhile. Per-key order is still kept: a key that is being
// processed is not handed to another Pop until process returns; changes
// that arrive for it meanwhile are queued (at the position of their first
// insertion) and popped after that. process owns the Deltas slice: the
// FIFO never touches it again.
//
// An error from process does not re-queue the deltas: they count as
// processed (for HasSynced and ProcessedResourceVersion) and the error is
// returned to the caller, unwrapped. A panic in process propagates to the
// caller of Pop after the FIFO has recorded the key as processed.
func (f *DeltaFIFO[T]) Pop(ctx context.Context, process func(Deltas[T], bool) error) error {
	if process == nil {
		return f.PopKey(ctx, nil)
	}
	return f.PopKey(ctx, func(_ string, ds Deltas[T], initial bool) error { return process(ds, initial) })
}

// PopKey is Pop that also hands process the key the deltas are filed
// under: the key func's result for the objects handed in (computed once,
// when they were handed in), or the KnownObjects key of an inferred
// delete or a Sync. A consumer that files the objects under the same key
// func (an informer's cache) can use it instead of computing the key
// again. Everything else is as for Pop.
func (f *DeltaFIFO[T]) PopKey(ctx context.Context, process func(key string, ds Deltas[T], initial bool) error) error {
	if ctx == nil {
		return fmt.Errorf("deltafifo: Pop: %w", ErrNilContext)
	}
	if process == nil {
		return errNilProcess
	}
	f.mu.Lock()
	e, err := f.waitLocked(ctx)
	f.mu.Unlock()
	if e == nil {
		return err
	}
	defer f.finish(e)
	return process(e.key, e.deltas, e.initial)
}

// waitLocked returns the next poppable entry, already moved in flight,
// or the error Pop returns instead.
func (f *DeltaFIFO[T]) waitLocked(ctx context.Context) (*entry[T], error) {
	var stop func() bool
	defer func() {
		if stop != nil {
			stop()
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			// A Signal meant for some Pop may have woken this one, and
			// the Broadcast of ctx's AfterFunc may never run (ctx.Err
			// turns non-nil before AfterFuncs start, so stop can still
			// win): pass the Signal on.
			if f.waiters > 0 && f.poppableLocked() >= 0 {
				f.cond.Signal()
			}
			return nil, err
		}
		if e := f.takeLocked(); e != nil {
			return e, nil
		}
		if f.closed && f.queue.len() == 0 {
			return nil, ErrClosed
		}
		if stop == nil && ctx.Done() != nil {
			stop = context.AfterFunc(ctx, func() {
				f.mu.Lock()
				f.cond.Broadcast()
				f.mu.Unlock()
			})
		}
		f.waiters++
		f.cond.Wait()
		f.waiters--
	}
}

// poppableLocked returns the queue index of the first entry whose key is
// not being processed, or -1. It looks at no more than len(inflight)+1
// entries before finding one, as every skipped entry has a distinct key
// in flight.
func (f *DeltaFIFO[T]) poppableLocked() int {
	n := f.queue.len()
	if len(f.inflight) == 0 {
		if n > 0 {
			return 0
		}
		return -1
	}
	for i := 0; i < n; i++ {
		if f.flightIndexLocked(f.queue.at(i).key) < 0 {
			return i
		}
	}
	return -1
}

// shrinkMinKeys is the peak number of queued keys from which takeLocked
// replaces the emptied items map (see DeltaFIFO.itemsPeak). Below it the
// map's room is small and reused; above it (a relist of thousands of
// objects) it would stay allocated for the life of the informer.
const shrinkMinKeys = 1024

// takeLocked removes the first poppable entry from the queue and records
// it in flight; nil if there is none.
func (f *DeltaFIFO[T]) takeLocked() *entry[T] {
	i := f.poppableLocked()
	if i < 0 {
		return nil
	}
	e := f.queue.removeAt(i)
	delete(f.items, e.key)
	if len(f.items) == 0 && f.itemsPeak >= shrinkMinKeys {
		f.items, f.itemsPeak = make(map[string]*entry[T]), 0
	}
	f.inflight = append(f.inflight, flight[T]{key: e.key, first: e.first, newest: e.deltas[len(e.deltas)-1]})
	return e
}

// finish records that process returned for e.
func (f *DeltaFIFO[T]) finish(e *entry[T]) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if i := f.flightIndexLocked(e.key); i >= 0 {
		// Keep the pop order: Replace infers deletes in this order.
		f.inflight = slices.Delete(f.inflight, i, i+1)
	}
	if e.initial {
		f.initialRemaining--
		f.checkSyncedLocked()
	}
	f.advanceLocked()
	// A change for this key queued meanwhile has become poppable.
	if f.waiters > 0 {
		if _, queued := f.items[e.key]; queued {
			f.cond.Signal()
		}
	}
	// Nothing refers to e any more (process owns e.deltas): recycle it.
	*e = entry[T]{}
	if f.idleLocked() {
		f.releaseLocked()
		return
	}
	if len(f.free) < freeMax {
		f.free = append(f.free, e)
	}
}

// idleKeys is the peak number of queued keys up to which a FIFO that has
// gone idle — nothing queued, nothing in flight — lets go of its map,
// ring and entries (see releaseLocked).
const idleKeys = 2

// idleLocked reports whether the FIFO is idle after holding at most
// idleKeys keys: a kubelet's, which sees an event about one of its few
// pods now and then. Thousands of them each keeping a map, a ring and a
// block of entries between two events would cost more than the few
// allocations the next event makes; a FIFO with a steadier backlog keeps
// them for its next burst.
func (f *DeltaFIFO[T]) idleLocked() bool {
	return len(f.items) == 0 && f.queue.len() == 0 && len(f.inflight) == 0 && f.itemsPeak <= idleKeys
}

// releaseLocked lets go of the memory of an idle FIFO; appendLocked makes
// the map again.
func (f *DeltaFIFO[T]) releaseLocked() {
	f.items, f.itemsPeak = nil, 0
	f.queue = ring[*entry[T]]{}
	f.inflight = nil
	f.free, f.slab, f.slabbed = nil, nil, 0
}

// advanceLocked moves ProcessedResourceVersion forward to the rvBefore
// of the oldest call still queued or in flight, or to LastResourceVersion
// when nothing is (see stamp).
func (f *DeltaFIFO[T]) advanceLocked() {
	rv := f.lastRV
	oldest := f.nextSeq
	if f.queue.len() > 0 {
		st := (*f.queue.front()).first
		oldest, rv = st.seq, st.rvBefore
	}
	for i := range f.inflight {
		if st := f.inflight[i].first; st.seq < oldest {
			oldest, rv = st.seq, st.rvBefore
		}
	}
	if rv != f.processedRV {
		f.processedRV = rv
		if f.processedCh != nil {
			close(f.processedCh)
			f.processedCh = nil
		}
	}
}

func (f *DeltaFIFO[T]) checkSyncedLocked() {
	if !f.isSynced && f.populated && f.initialRemaining == 0 {
		f.isSynced = true
		close(f.synced)
	}
}

// HasSynced reports whether the initial list has been processed: true
// once process has returned for every key the first Replace touched
// (inferred deletes included), or once an Add, Update or Delete has been
// handed in if one came before any Replace. It never turns false again.
func (f *DeltaFIFO[T]) HasSynced() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.isSynced
}

// Synced returns a channel that is closed when HasSynced becomes true.
func (f *DeltaFIFO[T]) Synced() <-chan struct{} { return f.synced }

// LastResourceVersion returns the resourceVersion of the newest call
// handed in with a non-empty one (Add, Update, Delete, Replace or
// Bookmark), whether or not it has been processed; "" if none.
func (f *DeltaFIFO[T]) LastResourceVersion() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastRV
}

// ProcessedResourceVersion returns the newest resourceVersion rv such
// that every change handed in up to and including the call that carried
// rv has been popped and its process func has returned ("" if none yet).
// A Replace or Bookmark counts once everything handed in before it (and,
// for Replace, every key it touched) has been processed; a change that
// was ignored or dropped counts at once. changed is closed the next time
// the value changes, so a caller can wait for a version without polling:
//
//	for {
//		rv, changed := f.ProcessedResourceVersion()
//		if reached(rv) {
//			return nil
//		}
//		select {
//		case <-changed:
//		case <-ctx.Done():
//			return ctx.Err()
//		}
//	}
func (f *DeltaFIFO[T]) ProcessedResourceVersion() (rv string, changed <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.processedCh == nil {
		f.processedCh = make(chan struct{})
	}
	return f.processedRV, f.processedCh
}
