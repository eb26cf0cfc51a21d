package deltafifo

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeltaTypeString(t *testing.T) {
	for typ, want := range map[DeltaType]string{
		Added: "Added", Updated: "Updated", Deleted: "Deleted", Replaced: "Replaced", Sync: "Sync",
		0: "DeltaType(0)", 9: "DeltaType(9)",
	} {
		assert.Equal(t, want, typ.String())
	}
}

func TestDeltasOldestNewest(t *testing.T) {
	var empty Deltas[*obj]
	_, ok := empty.Oldest()
	assert.False(t, ok)
	_, ok = empty.Newest()
	assert.False(t, ok)

	ds := Deltas[*obj]{{Type: Added, Object: o("a", 1)}, {Type: Updated, Object: o("a", 2)}}
	d, ok := ds.Oldest()
	require.True(t, ok)
	assert.Equal(t, Added, d.Type)
	d, ok = ds.Newest()
	require.True(t, ok)
	assert.Equal(t, 2, d.Object.Val)
}

func TestNewRejectsNilKeyFunc(t *testing.T) {
	_, err := New[*obj](nil, Options[*obj]{})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "deltafifo: "))
}

// Semantic 2: one entry per key, queued in the order of first insertion
// since it was last popped; later changes append without moving it.
func TestQueueOrderIsFirstInsertion(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Add(o("b", 1), "2"))
	require.NoError(t, f.Update(o("a", 2), "3"))
	require.NoError(t, f.Add(o("c", 1), "4"))
	assert.Equal(t, 3, f.Len())

	assert.Equal(t, "Added:a=1@1 Updated:a=2@3", popOne(t, f, nil))
	// a popped: its next change goes to the back.
	require.NoError(t, f.Update(o("a", 3), "5"))
	require.NoError(t, f.Update(o("b", 2), "6"))
	assert.Equal(t, []string{
		"Added:b=1@2 Updated:b=2@6",
		"Added:c=1@4",
		"Updated:a=3@5",
	}, popAll(t, f, nil))
}

// Semantic 3: no coalescing but of two consecutive deletes.
func TestNoCoalescingOfOtherDeltas(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Update(o("a", 2), "2"))
	require.NoError(t, f.Update(o("a", 2), "3"))
	require.NoError(t, f.Delete(o("a", 2), "4"))
	require.NoError(t, f.Add(o("a", 5), "5"))
	assert.Equal(t, []string{"Added:a=1@1 Updated:a=2@2 Updated:a=2@3 Deleted:a=2@4 Added:a=5@5"}, popAll(t, f, nil))
}

func TestAppendDeltaCollapsesTwoDeletes(t *testing.T) {
	real1 := Delta[*obj]{Type: Deleted, Object: o("a", 1), ResourceVersion: "1"}
	real2 := Delta[*obj]{Type: Deleted, Object: o("a", 2), ResourceVersion: "2"}
	inf1 := Delta[*obj]{Type: Deleted, Object: o("a", 1), ResourceVersion: "1", FinalStateUnknown: true}
	inf2 := Delta[*obj]{Type: Deleted, Object: o("a", 2), ResourceVersion: "2", FinalStateUnknown: true}
	upd := Delta[*obj]{Type: Updated, Object: o("a", 0), ResourceVersion: "0"}
	for _, tc := range []struct {
		name         string
		older, newer Delta[*obj]
		want         string
	}{
		{"observed then observed keeps the older", real1, real2, "Updated:a=0@0 Deleted:a=1@1"},
		{"inferred then observed keeps the observed", inf1, real2, "Updated:a=0@0 Deleted:a=2@2"},
		{"observed then inferred keeps the observed", real1, inf2, "Updated:a=0@0 Deleted:a=1@1"},
		{"inferred then inferred keeps the newer", inf1, inf2, "Updated:a=0@0 Deleted:a=2@2!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := appendDelta(appendDelta(Deltas[*obj]{upd}, tc.older), tc.newer)
			assert.Equal(t, tc.want, fmtDeltas(ds))
		})
	}
	// A delete after a non-delete is appended.
	ds := appendDelta(Deltas[*obj]{real1, upd}, real2)
	assert.Len(t, ds, 3)
}

func TestTwoConsecutiveDeletesThroughTheAPI(t *testing.T) {
	// Two observed deletes of a queued key collapse into the older.
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Delete(o("a", 1), "2"))
	require.NoError(t, f.Delete(o("a", 1), "3"))
	assert.Equal(t, []string{"Added:a=1@1 Deleted:a=1@2"}, popAll(t, f, nil))

	// An inferred delete followed by the watch's delete keeps the latter.
	known := newStore(o("b", 1))
	f = newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Replace(nil, "10"))
	require.NoError(t, f.Delete(o("b", 2), "11"))
	assert.Equal(t, []string{"*Deleted:b=2@11"}, popAll(t, f, known))
}

// Semantic 4: a delete of a key neither queued nor known is ignored.
func TestDeleteOfUnknownKeyIsIgnored(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Delete(o("a", 1), "1"))
	assert.Equal(t, 0, f.Len())
	assert.Equal(t, "1", f.LastResourceVersion())

	known := newStore(o("k", 1))
	f = newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Delete(o("x", 1), "1")) // unknown: ignored
	require.NoError(t, f.Delete(o("k", 1), "2")) // known: queued
	require.NoError(t, f.Add(o("q", 1), "3"))
	require.NoError(t, f.Delete(o("q", 1), "4")) // queued: appended
	assert.Equal(t, []string{"Deleted:k=1@2", "Added:q=1@3 Deleted:q=1@4"}, popAll(t, f, known))
	// Now neither queued nor known.
	require.NoError(t, f.Delete(o("k", 1), "5"))
	assert.Equal(t, 0, f.Len())
}

// Semantic 5, the full Replace: listed items, queued keys absent from the
// list (with and without a delete as newest delta), known keys absent and
// not queued, and a known key that vanishes between ListKeys and Get.
func TestReplace(t *testing.T) {
	known := newStore(o("k1", 1), o("k2", 1), o("q1", 1))
	known.ghosts = []string{"ghost"}
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Add(o("q2", 1), "1"))    // queued, newest Added
	require.NoError(t, f.Update(o("q1", 2), "2")) // queued and known, newest Updated
	require.NoError(t, f.Add(o("q3", 1), "3"))    // queued, newest Deleted
	require.NoError(t, f.Delete(o("q3", 1), "4")) //
	require.NoError(t, f.Add(o("l1", 1), "5"))    // queued and listed
	require.NoError(t, f.Replace([]*obj{o("l1", 2), o("k2", 2), o("n1", 1)}, "10"))

	assert.Equal(t, "10", f.LastResourceVersion())
	assert.Equal(t, []string{
		"Added:q2=1@1 Deleted:q2=1@10!",
		"Updated:q1=2@2 Deleted:q1=2@10!", // carries the newest queued object, not the known one
		"Added:q3=1@3 Deleted:q3=1@4",
		"Added:l1=1@5 Replaced:l1=2@10",
		"Replaced:k2=2@10",
		"Replaced:n1=1@10",
		"Deleted:k1=1@10!", // known, absent, not queued; "ghost" is skipped
	}, popAll(t, f, known))
}

// With no KnownObjects, Replace infers deletes only for queued keys.
func TestReplaceWithDeletesOnlyInTheQueue(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Add(o("b", 1), "2"))
	require.NoError(t, f.Replace([]*obj{o("a", 2)}, "3"))
	assert.Equal(t, []string{"Added:a=1@1 Replaced:a=2@3", "Added:b=1@2 Deleted:b=1@3!"}, popAll(t, f, nil))
}

// A key deleted by the watch and then missing from a relist gets no
// second, inferred delete: the queued delete stays the newest delta.
func TestDeleteThenReplace(t *testing.T) {
	known := newStore()
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Replace([]*obj{o("a", 1), o("b", 1)}, "1"))
	assert.Equal(t, []string{"*Replaced:a=1@1", "*Replaced:b=1@1"}, popAll(t, f, known))
	require.NoError(t, f.Delete(o("a", 1), "5"))
	require.NoError(t, f.Replace([]*obj{o("b", 1)}, "6"))
	assert.Equal(t, []string{"Deleted:a=1@5", "Replaced:b=1@6"}, popAll(t, f, known))
	assert.Empty(t, popAll(t, f, known))
	assert.Equal(t, map[string]*obj{"b": o("b", 1)}, known.m)
}

func TestReplaceWithDuplicateKeysKeepsEveryItem(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Replace([]*obj{o("a", 1), o("b", 1), o("a", 2)}, "7"))
	assert.Equal(t, []string{"*Replaced:a=1@7 Replaced:a=2@7", "*Replaced:b=1@7"}, popAll(t, f, nil))
	assert.True(t, f.HasSynced())
}

// Semantic 6: Resync queues Sync for known keys that are not queued.
func TestResyncSkipsQueuedKeys(t *testing.T) {
	known := newStore(o("a", 1), o("b", 1), o("c", 1))
	known.ghosts = []string{"ghost"}
	transforms := 0
	f := newFIFO(t, Options[*obj]{KnownObjects: known, Transform: func(x *obj) (*obj, error) {
		transforms++
		return x, nil
	}})
	require.NoError(t, f.Update(o("b", 2), "1"))
	require.NoError(t, f.Resync())
	assert.Equal(t, 1, transforms, "Sync deltas are not transformed")
	assert.Equal(t, []string{"Updated:b=2@1", "Sync:a=1@", "Sync:c=1@"}, popAll(t, f, known))
	assert.Equal(t, "1", f.LastResourceVersion(), "Resync carries no version")

	// Without KnownObjects Resync does nothing.
	f = newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Resync())
	assert.Equal(t, 0, f.Len())
}

// Semantic 7: Transform runs once per object handed in, not for inferred
// deletes or Sync deltas.
func TestTransformRunsOncePerObjectHandedIn(t *testing.T) {
	known := newStore(o("k", 1))
	calls := map[string]int{}
	f := newFIFO(t, Options[*obj]{KnownObjects: known, Transform: func(x *obj) (*obj, error) {
		calls[x.Key]++
		return &obj{Key: x.Key, Val: x.Val * 10}, nil
	}})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Update(o("a", 2), "2"))
	require.NoError(t, f.Add(o("b", 1), "3"))
	require.NoError(t, f.Delete(o("b", 2), "4"))
	require.NoError(t, f.Replace([]*obj{o("a", 3)}, "5")) // b and k: inferred deletes
	assert.Equal(t, map[string]int{"a": 3, "b": 2}, calls)
	assert.Equal(t, []string{
		"Added:a=10@1 Updated:a=20@2 Replaced:a=30@5",
		"Added:b=10@3 Deleted:b=20@4",
		"Deleted:k=1@5!",
	}, popAll(t, f, known))
}

// Bad objects: a Transform failure is quarantined — the call succeeds,
// the object is reported with its key, type and version, and everything
// else goes on; a listed bad item keeps its last good state.
func TestTransformFailureQuarantinesTheObject(t *testing.T) {
	boom := errors.New("boom")
	known := newStore(o("bad", 1), o("gone", 1), o("del", 1))
	var bad []*BadObjectError
	f := newFIFO(t, Options[*obj]{KnownObjects: known, OnBadObject: func(e *BadObjectError) { bad = append(bad, e) },
		Transform: func(x *obj) (*obj, error) {
			switch x.Val {
			case 13:
				return nil, boom
			case 66:
				panic("transform panic")
			}
			return x, nil
		}})
	require.NoError(t, f.Add(o("a", 13), "1"))
	require.NoError(t, f.Update(o("a", 66), "2"))
	assert.Equal(t, 0, f.Len())
	assert.Equal(t, "2", f.LastResourceVersion())
	rv, _ := f.ProcessedResourceVersion()
	assert.Equal(t, "2", rv, "a quarantined change counts as processed")
	require.Len(t, bad, 2)
	assert.Equal(t, BadObjectError{Key: "a", ResourceVersion: "1", Type: Added, Err: bad[0].Err}, *bad[0])
	require.ErrorIs(t, bad[0], boom)
	assert.Equal(t, `deltafifo: bad object a in Added at resourceVersion "1": transform: boom`, bad[0].Error())
	assert.Equal(t, "a", bad[1].Key)
	assert.Contains(t, bad[1].Error(), "transform panicked: transform panic")

	// A good version of the same object is taken normally.
	require.NoError(t, f.Add(o("a", 1), "3"))

	// Replace applies the good items; a failed item counts as present,
	// so no delete is inferred for it.
	bad = nil
	require.NoError(t, f.Replace([]*obj{o("bad", 13), o("ok", 1), o("del", 1)}, "4"))
	require.Len(t, bad, 1)
	assert.Equal(t, BadObjectError{Key: "bad", ResourceVersion: "4", Type: Replaced, Err: bad[0].Err}, *bad[0])

	// A delete whose Transform fails still applies, with the last known
	// object.
	require.NoError(t, f.Delete(o("del", 13), "5"))
	assert.Equal(t, []string{"Added:a=1@3 Deleted:a=1@4!", "Replaced:ok=1@4", "Replaced:del=1@4 Deleted:del=1@5", "Deleted:gone=1@4!"},
		popAll(t, f, known))
	require.Len(t, bad, 2)
	assert.Equal(t, Deleted, bad[1].Type)
}

func TestKeyFuncErrorsAreQuarantined(t *testing.T) {
	var bad []*BadObjectError
	f, err := New(func(x *obj) string {
		if x == nil {
			panic("nil object")
		}
		return x.Key
	}, Options[*obj]{Logger: quiet, OnBadObject: func(e *BadObjectError) { bad = append(bad, e) }})
	require.NoError(t, err)
	require.NoError(t, f.Add(o("", 1), "1"))
	require.NoError(t, f.Add(nil, "2"))
	require.NoError(t, f.Replace([]*obj{nil, o("a", 1)}, "3"))
	require.NoError(t, f.Delete(nil, "4"))
	assert.Equal(t, []string{"Replaced:a=1@3"}, popAll(t, f, nil))
	require.Len(t, bad, 4)
	assert.Equal(t, `deltafifo: bad object (no key) in Added at resourceVersion "1": key func returned an empty key`, bad[0].Error())
	assert.Contains(t, bad[1].Error(), "key func panicked: nil object")
	assert.Equal(t, Replaced, bad[2].Type)
	assert.Equal(t, Deleted, bad[3].Type)
	for _, b := range bad {
		assert.Empty(t, b.Key)
	}
	rv, _ := f.ProcessedResourceVersion()
	assert.Equal(t, "4", rv)
}

// Semantic 8: Pop's contract for a single caller.
func TestPop(t *testing.T) {
	ctx := context.Background()
	f := newFIFO(t, Options[*obj]{})
	require.ErrorContains(t, f.Pop(ctx, nil), "deltafifo: process func is nil")
	require.ErrorIs(t, f.Pop(nil, func(Deltas[*obj], bool) error { return nil }), ErrNilContext)

	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Add(o("b", 1), "2"))

	// The key is removed before process runs, and an error from process
	// is returned as is and does not re-queue the deltas.
	procErr := errors.New("process failed")
	err := f.Pop(ctx, func(ds Deltas[*obj], initial bool) error {
		assert.Equal(t, 1, f.Len())
		assert.False(t, initial)
		assert.Equal(t, "Added:a=1@1", fmtDeltas(ds))
		return procErr
	})
	assert.Same(t, procErr, err)
	assert.Equal(t, []string{"Added:b=1@2"}, popAll(t, f, nil))
	rv, _ := f.ProcessedResourceVersion()
	assert.Equal(t, "2", rv)

	// A done context returns at once, even when a key is ready.
	require.NoError(t, f.Add(o("c", 1), "3"))
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	err = f.Pop(cctx, func(Deltas[*obj], bool) error {
		t.Error("process called with a done context")
		return nil
	})
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, f.Len())
}

func TestPopProcessPanicRecordsTheKeyAsProcessed(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	require.NoError(t, f.Add(o("a", 1), "1"))
	assert.PanicsWithValue(t, "handler bug", func() {
		_ = f.Pop(context.Background(), func(Deltas[*obj], bool) error { panic("handler bug") })
	})
	rv, _ := f.ProcessedResourceVersion()
	assert.Equal(t, "1", rv)
	// The key is not stuck in flight: a new change to it can be popped.
	require.NoError(t, f.Update(o("a", 2), "2"))
	assert.Equal(t, []string{"Updated:a=2@2"}, popAll(t, f, nil))
}

// Semantic 9: HasSynced after the first Replace, inferred deletes
// included.
func TestHasSyncedCountsInferredDeletes(t *testing.T) {
	known := newStore(o("gone", 1))
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	assert.False(t, f.HasSynced())
	require.NoError(t, f.Replace([]*obj{o("a", 1), o("b", 1)}, "1"))
	require.NoError(t, f.Add(o("later", 1), "2"))
	require.NoError(t, f.Update(o("a", 2), "3")) // appended to an initial key

	assert.Equal(t, "*Replaced:a=1@1 Updated:a=2@3", popOne(t, f, known))
	assert.False(t, f.HasSynced())
	assert.Equal(t, "*Replaced:b=1@1", popOne(t, f, known))
	assert.False(t, f.HasSynced(), "the inferred delete is part of the initial list")
	select {
	case <-f.Synced():
		t.Fatal("Synced closed early")
	default:
	}
	assert.Equal(t, "*Deleted:gone=1@1!", popOne(t, f, known))
	assert.True(t, f.HasSynced())
	assert.True(t, isClosed(f.Synced()))
	assert.Equal(t, "Added:later=1@2", popOne(t, f, known))

	// Later Replaces do not define an initial list.
	require.NoError(t, f.Replace([]*obj{o("a", 3)}, "4"))
	assert.Equal(t, []string{"Replaced:a=3@4", "Deleted:b=1@4!", "Deleted:later=1@4!"}, popAll(t, f, known))
	assert.True(t, f.HasSynced())
}

func TestHasSyncedWhenAChangeComesBeforeReplace(t *testing.T) {
	for name, first := range map[string]func(f *DeltaFIFO[*obj]) error{
		"add":    func(f *DeltaFIFO[*obj]) error { return f.Add(o("a", 1), "1") },
		"update": func(f *DeltaFIFO[*obj]) error { return f.Update(o("a", 1), "1") },
		"delete": func(f *DeltaFIFO[*obj]) error { return f.Delete(o("a", 1), "1") }, // ignored, still counts
	} {
		t.Run(name, func(t *testing.T) {
			f := newFIFO(t, Options[*obj]{})
			require.NoError(t, first(f))
			assert.True(t, f.HasSynced())
			require.NoError(t, f.Replace([]*obj{o("b", 1)}, "2"))
			assert.NotContains(t, strings.Join(popAll(t, f, nil), " "), "*", "no initial list")
		})
	}
}

func TestHasSyncedEmptyReplaceAndNonPopulatingCalls(t *testing.T) {
	f := newFIFO(t, Options[*obj]{KnownObjects: newStore()})
	f.Bookmark("1")
	require.NoError(t, f.Resync())
	assert.False(t, f.HasSynced(), "Bookmark and Resync do not populate")
	require.NoError(t, f.Replace(nil, "2"))
	assert.True(t, f.HasSynced())
}

// Semantic 11: Close.
func TestCloseDrainsThenReturnsErrClosed(t *testing.T) {
	f := newFIFO(t, Options[*obj]{KnownObjects: newStore()})
	require.NoError(t, f.Add(o("a", 1), "1"))
	f.Close()
	f.Close()
	require.ErrorIs(t, f.Add(o("b", 1), "2"), ErrClosed)
	require.ErrorIs(t, f.Update(o("b", 1), "2"), ErrClosed)
	require.ErrorIs(t, f.Delete(o("b", 1), "2"), ErrClosed)
	require.ErrorIs(t, f.Replace(nil, "2"), ErrClosed)
	require.ErrorIs(t, f.Resync(), ErrClosed)
	f.Bookmark("2")
	assert.Equal(t, "1", f.LastResourceVersion())

	assert.Equal(t, "Added:a=1@1", popOne(t, f, nil))
	err := f.Pop(context.Background(), func(Deltas[*obj], bool) error { return nil })
	require.ErrorIs(t, err, ErrClosed)
}

// A panicking OnBadObject is recovered: the call still succeeds and the
// good items are queued.
func TestPanickingOnBadObjectIsRecovered(t *testing.T) {
	f := newFIFO(t, Options[*obj]{
		Transform:   func(x *obj) (*obj, error) { return x, errors.New("no") },
		OnBadObject: func(*BadObjectError) { panic("callback") },
	})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Replace([]*obj{o("b", 1)}, "2"))
	assert.Equal(t, 0, f.Len())
	assert.Equal(t, "2", f.LastResourceVersion())
}
