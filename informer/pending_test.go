package informer

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func add(obj string, initial bool) notification[string] {
	return notification[string]{kind: kindAdd, flag: initial, obj: obj}
}

func upd(old, obj string) notification[string] {
	return notification[string]{kind: kindUpdate, old: old, obj: obj}
}

func del(obj string, unknown bool) notification[string] {
	return notification[string]{kind: kindDelete, flag: unknown, obj: obj}
}

func fmtNote(n notification[string]) string {
	switch n.kind {
	case kindAdd:
		return fmt.Sprintf("add(%s,%v)", n.obj, n.flag)
	case kindUpdate:
		return fmt.Sprintf("update(%s->%s)", n.old, n.obj)
	case kindDelete:
		return fmt.Sprintf("delete(%s,%v)", n.obj, n.flag)
	}
	return "?"
}

func fmtSlot(s slot[string]) string {
	var parts []string
	for i := range s.n {
		parts = append(parts, fmtNote(*s.at(i)))
	}
	return strings.Join(parts, " ")
}

func TestSlotCoalescing(t *testing.T) {
	tests := []struct {
		name string
		in   []notification[string]
		want string
	}{
		{"single add", []notification[string]{add("a", false)}, "add(a,false)"},
		{"add+update keeps add and initial flag", []notification[string]{add("a", true), upd("a", "b")}, "add(b,true)"},
		{"add+delete is delete of the last object", []notification[string]{add("a", true), upd("a", "b"), del("c", false)}, "delete(c,false)"},
		{"update+update spans first old to last new", []notification[string]{upd("a", "b"), upd("b", "c"), upd("c", "d")}, "update(a->d)"},
		{"update+delete is delete of newest", []notification[string]{upd("a", "b"), del("c", true)}, "delete(c,true)"},
		{"delete+add keeps both", []notification[string]{del("a", false), add("b", false)}, "delete(a,false) add(b,false)"},
		{"delete+add+update", []notification[string]{del("a", false), add("b", false), upd("b", "c")}, "delete(a,false) add(c,false)"},
		{"delete+add+delete keeps both deletes", []notification[string]{del("a", true), add("b", false), del("c", false)}, "delete(a,true) delete(c,false)"},
		{"delete+add+delete+add drops the older delete", []notification[string]{del("a", true), add("b", false), del("c", false), add("d", true)}, "delete(c,false) add(d,true)"},
		{"delete+add+delete+add+delete", []notification[string]{del("a", true), add("b", false), del("c", false), add("d", false), del("e", true)}, "delete(c,false) delete(e,true)"},
		{"delete+delete keeps both", []notification[string]{del("a", false), del("b", true)}, "delete(a,false) delete(b,true)"},
		{"resync after update is absorbed", []notification[string]{upd("a", "b"), upd("b", "b")}, "update(a->b)"},
		{"update after delete becomes add", []notification[string]{del("a", false), upd("a", "b")}, "delete(a,false) add(b,false)"},
		{"add+add keeps newest", []notification[string]{add("a", false), add("b", true)}, "add(b,true)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s slot[string]
			for _, n := range tt.in {
				s.push(n)
			}
			require.Equal(t, tt.want, fmtSlot(s))
		})
	}
}

func TestPendingBufferOrderAndInitialCount(t *testing.T) {
	b := newPendingBuffer[string]()
	b.push("x", add("x1", true))
	b.push("y", add("y1", true))
	b.push("x", upd("x1", "x2"))
	b.push("z", upd("z1", "z2"))
	require.Equal(t, 3, b.len())
	require.Equal(t, 2, b.initial)
	b.push("y", del("y1", false)) // replaces y's initial add
	require.Equal(t, 1, b.initial)
	require.Equal(t, 3, b.len())

	key, s, ok := b.pop()
	require.True(t, ok)
	require.Equal(t, "x", key)
	require.Equal(t, "add(x2,true)", fmtSlot(s))
	require.Equal(t, 0, b.initial)

	key, s, ok = b.pop()
	require.True(t, ok)
	require.Equal(t, "y", key)
	require.Equal(t, "delete(y1,false)", fmtSlot(s))

	// y queued again after its slot was popped: goes to the back.
	b.push("y", add("y2", false))
	key, _, _ = b.pop()
	require.Equal(t, "z", key)
	key, s, _ = b.pop()
	require.Equal(t, "y", key)
	require.Equal(t, "add(y2,false)", fmtSlot(s))
	_, _, ok = b.pop()
	require.False(t, ok)
}

func TestPendingBufferBoundedByKeys(t *testing.T) {
	b := newPendingBuffer[string]()
	maxLen, maxRing := 0, 0
	for i := range 20_000 {
		key := fmt.Sprintf("k%d", i%10)
		switch i % 4 {
		case 0:
			b.push(key, add(fmt.Sprint(i), false))
		case 1, 2:
			b.push(key, upd(fmt.Sprint(i-1), fmt.Sprint(i)))
		case 3:
			b.push(key, del(fmt.Sprint(i), false))
		}
		maxLen, maxRing = max(maxLen, b.len()), max(maxRing, len(b.queue))
	}
	require.Equal(t, 10, maxLen, "the backlog is bounded by the number of keys")
	require.Equal(t, 16, maxRing)
}

func TestPendingBufferShrinksAfterBacklog(t *testing.T) {
	b := newPendingBuffer[string]()
	for i := range 2 * shrinkAbove {
		b.push(fmt.Sprint(i), add("o", false))
	}
	require.GreaterOrEqual(t, len(b.queue), 2*shrinkAbove)
	for {
		if _, _, ok := b.pop(); !ok {
			break
		}
	}
	require.Nil(t, b.queue, "a drained large buffer releases its ring")
	b.push("again", add("o", false))
	key, _, ok := b.pop()
	require.True(t, ok)
	require.Equal(t, "again", key)
}

// TestPendingBufferReleasesWhenIdle: a buffer that drained after holding
// at most idleBelow keys holds nothing (a kubelet's registration between
// two events about its pods); one with a steady backlog keeps its memory.
func TestPendingBufferReleasesWhenIdle(t *testing.T) {
	b := newPendingBuffer[string]()
	require.Nil(t, b.slots, "a new buffer allocates nothing")
	for round := range 3 {
		for i := range idleBelow {
			b.push(fmt.Sprint(round, "/", i), add("o", false))
		}
		require.Equal(t, idleBelow, b.len())
		for i := range idleBelow {
			key, s, ok := b.pop()
			require.True(t, ok)
			require.Equal(t, fmt.Sprint(round, "/", i), key)
			require.Equal(t, "o", s.first.obj)
		}
		_, _, ok := b.pop()
		require.False(t, ok)
		require.Nil(t, b.slots, "round %d: the drained buffer released its map", round)
		require.Nil(t, b.queue)
		require.Nil(t, b.free)
		require.Nil(t, b.chunk)
		require.Zero(t, b.allocated)
	}

	for i := range idleBelow + 1 {
		b.push(fmt.Sprint(i), add("o", false))
	}
	for b.len() > 0 {
		b.pop()
	}
	require.NotNil(t, b.slots, "a buffer that held more than idleBelow keys keeps its map for the next burst")
	require.Len(t, b.free, idleBelow+1)
	b.push("again", add("o", false))
	require.Len(t, b.free, idleBelow, "and reuses its pslots")
}

// view is what a handler knows: key -> last object it was told about.
type view map[string]string

// deliver applies one notification to v, failing t if it is not
// well-formed for what the handler knows.
func (v view) deliver(t testing.TB, key string, n notification[string]) {
	t.Helper()
	cur, ok := v[key]
	switch n.kind {
	case kindAdd:
		require.False(t, ok, "add of %s, which the handler has (%s)", key, cur)
		v[key] = n.obj
	case kindUpdate:
		require.True(t, ok, "update of %s, which the handler does not have", key)
		require.Equal(t, cur, n.old, "update of %s: old is not what the handler last saw", key)
		v[key] = n.obj
	case kindDelete:
		// The handler may not have the key: an add whose object was
		// deleted before the handler got to it becomes the delete.
		delete(v, key)
	}
}

// FuzzPendingBuffer drives a buffer with a random, well-formed stream of
// per-key events and random drains; the handler's view must stay
// well-formed and end equal to the source's state, the newest delete of
// every key must reach the handler with the deleted object, and the
// buffer must never hold more keys than exist.
func FuzzPendingBuffer(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("add update delete add delete update resync"))
	f.Add([]byte{255, 0, 255, 0, 17, 34, 51, 68, 85, 102, 119, 136, 153})
	f.Fuzz(func(t *testing.T, ops []byte) {
		const keys = 4
		b := newPendingBuffer[string]()
		source := view{}
		handler := view{}
		unheard := map[string]string{} // key -> newest deleted object not yet delivered
		version := 0
		drain := func(n int) {
			for range n {
				key, s, ok := b.pop()
				if !ok {
					return
				}
				for i := range s.n {
					n := *s.at(i)
					handler.deliver(t, key, n)
					if n.kind == kindDelete && unheard[key] == n.obj {
						delete(unheard, key)
					}
				}
			}
		}
		for _, op := range ops {
			key := fmt.Sprint("k", op%keys)
			version++
			obj := fmt.Sprint(key, "@", version)
			switch (op / keys) % 4 {
			case 0, 1: // write: create or update
				if old, ok := source[key]; ok {
					b.push(key, upd(old, obj))
				} else {
					b.push(key, add(obj, false))
				}
				source[key] = obj
			case 2: // delete or resync
				if old, ok := source[key]; ok {
					if op&0x80 != 0 {
						b.push(key, upd(old, old))
					} else {
						b.push(key, del(old, op&0x40 != 0))
						delete(source, key)
						unheard[key] = old
					}
				}
			case 3:
				drain(int(op>>6) + 1)
			}
			require.LessOrEqual(t, b.len(), keys)
		}
		drain(keys + 1)
		require.Zero(t, b.len())
		require.Equal(t, source, handler)
		require.Empty(t, unheard, "deletes the handler never heard of")
	})
}

// TestPendingBufferGrowsWithUse: a buffer that holds a few keys holds a
// few pslots; blocks grow to pslotChunk and no further; popped pslots are
// reused before anything new is allocated.
func TestPendingBufferGrowsWithUse(t *testing.T) {
	b := newPendingBuffer[string]()
	b.push("a", add("o", false))
	require.Equal(t, pslotChunkMin, b.allocated, "the first block is small")
	require.Len(t, b.chunk, pslotChunkMin-1)

	// A registration that keeps a few keys pending at a time never
	// allocates again.
	for i := range 1000 {
		for j := range idleBelow + 1 {
			b.push(fmt.Sprint("k", (i+j)%(idleBelow+1)), add("o", false))
		}
		for b.len() > 1 {
			b.pop()
		}
	}
	require.Equal(t, pslotChunkMin, b.allocated, "popped pslots are reused")

	// A backlog grows blocks by doubling, never past pslotChunk.
	last := b.allocated
	for i := range 1000 {
		b.push(fmt.Sprint("big", i), add("o", false))
		if b.allocated != last {
			grown := b.allocated - last
			require.LessOrEqual(t, grown, pslotChunk)
			require.Equal(t, min(pslotChunk, last), grown, "each block is as large as the earlier ones together, up to pslotChunk")
			last = b.allocated
		}
	}
	require.Less(t, b.allocated, 1000+pslotChunk, "at most one block of slack")
}

// TestListenerBatchSizedToBacklog: refill takes up to batchSize keys per
// lock, and the batch it keeps is sized to what was queued (growing at
// least twofold), not batchSize from the start.
func TestListenerBatchSizedToBacklog(t *testing.T) {
	l := newListener[string](nil, "probe", HandlerFuncs[string]{}, quiet, HandlerMetrics{}, func() bool { return true })
	require.False(t, l.refill(), "nothing queued")
	require.Zero(t, cap(l.batch), "an idle registration holds no batch")

	push := func(n int) {
		for i := range n {
			l.push(fmt.Sprint("k", i), add("o", false))
		}
	}
	push(1)
	require.True(t, l.refill())
	require.Len(t, l.batch, 1)
	require.Equal(t, 1, cap(l.batch))

	push(1) // same size: the batch is reused
	before := &l.batch[0]
	require.True(t, l.refill())
	require.Same(t, before, &l.batch[0])

	push(3)
	require.True(t, l.refill())
	require.Len(t, l.batch, 3)
	require.Equal(t, 3, cap(l.batch))

	push(4) // grows at least twofold
	require.True(t, l.refill())
	require.Len(t, l.batch, 4)
	require.Equal(t, 6, cap(l.batch))

	push(3 * batchSize)
	for range 3 {
		require.True(t, l.refill())
		require.Len(t, l.batch, batchSize, "a backlog is taken batchSize keys per lock")
		require.Equal(t, batchSize, cap(l.batch))
	}
	require.False(t, l.refill())
	require.Equal(t, batchSize, cap(l.batch), "never larger than batchSize")
}
