package workqueue

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// testCore is a core with a settable clock, for table tests at explicit
// instants.
type testCore struct {
	core[string]
	t int64
}

func newTestCore(aging time.Duration) *testCore {
	tc := &testCore{}
	tc.init(int64(aging), nil, func() int64 { return tc.t })
	return tc
}

func (tc *testCore) get(t *testing.T) (string, int) {
	t.Helper()
	require.Positive(t, tc.ready, "nothing ready")
	e := tc.pop(unknownTime)
	return e.item, e.prio
}

func (tc *testCore) drain(t *testing.T) []string {
	t.Helper()
	var out []string
	for tc.ready > 0 {
		item, _ := tc.get(t)
		out = append(out, item)
		require.True(t, tc.done(item, unknownTime))
	}
	return out
}

func TestCoreDistinctItemsAreFIFO(t *testing.T) {
	c := newTestCore(time.Second)
	for _, k := range []string{"c", "a", "b"} {
		c.add(k, 0, unknownTime)
	}
	require.Equal(t, []string{"c", "a", "b"}, c.drain(t))
	require.Zero(t, c.live(), "entries retired after Done")
}

func TestCoreAddOfQueuedItemIsNoop(t *testing.T) {
	c := newTestCore(time.Second)
	c.add("a", 0, unknownTime)
	c.add("b", 0, unknownTime)
	c.add("a", 0, unknownTime)
	require.Equal(t, 2, c.ready)
	require.Equal(t, []string{"a", "b"}, c.drain(t))
}

func TestCoreAddWhileProcessingRequeuesOnceAfterDone(t *testing.T) {
	c := newTestCore(time.Second)
	c.add("a", 0, unknownTime)
	item, _ := c.get(t)
	c.add("a", 0, unknownTime)
	c.add("a", 0, unknownTime)
	require.Zero(t, c.ready, "a processing item is not handed out again before Done")
	require.True(t, c.done(item, unknownTime))
	require.Equal(t, 1, c.ready)
	require.Equal(t, []string{"a"}, c.drain(t))
	require.Zero(t, c.ready)
}

func TestCoreDoneOfItemNotProcessing(t *testing.T) {
	c := newTestCore(time.Second)
	require.False(t, c.done("x", unknownTime))
	c.add("x", 0, unknownTime)
	require.False(t, c.done("x", unknownTime), "queued, not processing")
	require.Equal(t, 1, c.ready)
}

func TestCoreHigherPriorityFirstFIFOWithin(t *testing.T) {
	c := newTestCore(-1) // strict priorities
	c.add("low1", -1, unknownTime)
	c.add("mid1", 0, unknownTime)
	c.add("high", 5, unknownTime)
	c.add("low2", -1, unknownTime)
	c.add("mid2", 0, unknownTime)
	require.Equal(t, []string{"high", "mid1", "mid2", "low1", "low2"}, c.drain(t))
}

// TestCoreAgingRule checks the documented rule at explicit instants:
// served in order of enqueue time − priority × AgingInterval.
func TestCoreAgingRule(t *testing.T) {
	c := newTestCore(time.Second)
	c.t = 0
	c.add("warm", 9, unknownTime) // two priorities from the start
	c.add("low", -2, unknownTime) // key 0 + 2s = 2s
	c.t = int64(1500 * time.Millisecond)
	c.add("fresh", 0, unknownTime) // key 1.5s: ahead of low
	c.t = int64(2500 * time.Millisecond)
	c.add("late", 0, unknownTime) // key 2.5s: behind low
	require.Equal(t, []string{"warm", "fresh", "low", "late"}, c.drain(t))
}

func TestCoreEqualEffectivePriorityServesEarlierFirst(t *testing.T) {
	c := newTestCore(time.Second)
	c.t = 0
	c.add("warm", 9, unknownTime) // two priorities from the start
	c.add("low", -1, unknownTime) // key 1s
	c.t = int64(time.Second)
	c.add("high", 0, unknownTime) // key 1s, later seq
	require.Equal(t, []string{"warm", "low", "high"}, c.drain(t))
}

// TestCoreStrictPrioritiesDoNotReadTheClock: without aging and metrics
// the core never reads the clock.
func TestCoreStrictPrioritiesDoNotReadTheClock(t *testing.T) {
	c := newTestCore(-1)
	c.now = func() int64 { t.Fatal("clock read"); return 0 }
	c.add("a", 0, unknownTime)
	c.add("b", 1, unknownTime)
	c.add("a", 2, unknownTime)
	require.Equal(t, []string{"a", "b"}, c.drain(t))
}

// TestCoreClockStartsAtSecondPriority: a queue that has seen one priority
// does not read the clock; items queued when a second priority shows up
// count as enqueued at that moment.
func TestCoreClockStartsAtSecondPriority(t *testing.T) {
	c := newTestCore(time.Second)
	reads := 0
	c.now = func() int64 { reads++; return c.t }
	c.add("a", 0, unknownTime)
	c.add("b", 0, unknownTime)
	item, _ := c.get(t)
	c.done(item, unknownTime)
	c.add("a", 0, unknownTime)
	require.Zero(t, reads, "one priority: clock not read")
	c.t = int64(10 * time.Second)
	c.add("hi", 3, unknownTime) // b and a count as enqueued at 10s; hi's key 7s
	require.Positive(t, reads)
	c.t = int64(12 * time.Second)
	c.add("c", 1, unknownTime) // key 11s
	c.add("d", 0, unknownTime) // key 12s
	require.Equal(t, []string{"hi", "b", "a", "c", "d"}, c.drain(t))
}

func TestCoreItemKeepsHighestPriority(t *testing.T) {
	c := newTestCore(-1)
	c.add("a", 1, unknownTime)
	c.add("b", 2, unknownTime)
	c.add("a", 5, unknownTime) // raised: now first
	c.add("b", 0, unknownTime) // lower: ignored
	item, p := c.get(t)
	require.Equal(t, "a", item)
	require.Equal(t, 5, p)
	item, p = c.get(t)
	require.Equal(t, "b", item)
	require.Equal(t, 2, p)
}

// TestCoreRaiseNeverDelays: raising an item that has aged past the new
// priority keeps its place.
func TestCoreRaiseNeverDelays(t *testing.T) {
	c := newTestCore(time.Second)
	c.t = 0
	c.add("old", 0, unknownTime) // key 0
	c.add("x", 1, unknownTime)   // key -1s
	c.t = int64(10 * time.Second)
	c.add("y", 2, unknownTime)   // key 8s
	c.add("old", 1, unknownTime) // fresh key 9s > 0: stays
	require.Equal(t, []string{"x", "old", "y"}, c.drain(t))

	c.t = int64(20 * time.Second)
	c.add("p", 0, unknownTime) // key 20s
	c.add("q", 0, unknownTime) // key 20s
	c.add("q", 3, unknownTime) // fresh key 17s: moves ahead of p
	item, prio := c.get(t)
	require.Equal(t, "q", item)
	require.Equal(t, 3, prio)
}

func TestCoreDirtyKeepsHighestPriority(t *testing.T) {
	c := newTestCore(-1)
	c.add("a", 0, unknownTime)
	item, _ := c.get(t)
	c.add("a", 4, unknownTime)
	c.add("a", 1, unknownTime)
	c.add("b", 2, unknownTime)
	require.True(t, c.done(item, unknownTime))
	item, p := c.get(t)
	require.Equal(t, "a", item)
	require.Equal(t, 4, p)
}

func TestCoreAddAfterKeepsEarliestReadyTime(t *testing.T) {
	c := newTestCore(time.Second)
	c.addAfter("a", 0, 300, 0)
	c.addAfter("a", 0, 100, 0)
	c.addAfter("a", 0, 200, 0)
	at, ok := c.nextDeadline()
	require.True(t, ok)
	require.Equal(t, int64(100), at)
	c.advance(99)
	require.Zero(t, c.ready)
	c.advance(100)
	require.Equal(t, 1, c.ready)
	_, ok = c.nextDeadline()
	require.False(t, ok, "stale slots are not deadlines")
	require.Equal(t, []string{"a"}, c.drain(t))
	c.advance(1000)
	require.Zero(t, c.ready, "the later ready times were dropped")
}

func TestCoreAddAfterOfQueuedItemIsNoop(t *testing.T) {
	c := newTestCore(time.Second)
	c.add("a", 0, 0)
	c.addAfter("a", 0, 100, 0)
	_, ok := c.nextDeadline()
	require.False(t, ok)
	require.Equal(t, 1, c.ready)
}

func TestCoreAddOfWaitingItemMakesItReadyNow(t *testing.T) {
	c := newTestCore(time.Second)
	c.addAfter("a", 2, 100, 0)
	c.add("a", 0, 10)
	require.Equal(t, 1, c.ready)
	_, p := c.get(t)
	require.Equal(t, 2, p, "keeps the highest priority")
	c.advance(100)
	require.Zero(t, c.ready)
}

func TestCoreDelayWhileProcessingBecomesDirty(t *testing.T) {
	c := newTestCore(time.Second)
	c.add("a", 0, 0)
	item, _ := c.get(t)
	c.addAfter("a", 0, 100, 0)
	c.advance(100)
	require.Zero(t, c.ready, "not handed out twice")
	require.Equal(t, stProcessing|stDirty, c.items["a"].state)
	require.True(t, c.done(item, 150))
	require.Equal(t, 1, c.ready)
}

func TestCoreDoneKeepsWaitingItem(t *testing.T) {
	c := newTestCore(time.Second)
	c.add("a", 0, 0)
	item, _ := c.get(t)
	c.addAfter("a", 0, 100, 0)
	require.True(t, c.done(item, 50))
	require.Zero(t, c.ready)
	c.advance(100)
	require.Equal(t, []string{"a"}, c.drain(t))
	require.Zero(t, c.live())
}

func TestCoreDelayedItemsComeOutInReadyOrder(t *testing.T) {
	c := newTestCore(time.Second)
	c.addAfter("c", 0, 300, 0)
	c.addAfter("a", 0, 100, 0)
	c.addAfter("b", 0, 200, 0)
	c.addAfter("d", 0, 200, 0)
	c.advance(1000)
	require.Equal(t, []string{"a", "b", "d", "c"}, c.drain(t))
}

func TestCoreDropWaiting(t *testing.T) {
	c := newTestCore(time.Second)
	c.addAfter("a", 0, 100, 0)
	c.add("b", 0, 0)
	item, _ := c.get(t)
	c.addAfter("b", 0, 100, 0)
	c.dropWaiting()
	if e, ok := c.items["a"]; ok { // retired: idle or forgotten
		require.Zero(t, e.state, "a retired")
	}
	require.Equal(t, stProcessing, c.items["b"].state)
	require.True(t, c.done(item, 0))
	require.Zero(t, c.live())
	c.advance(1000)
	require.Zero(t, c.ready)
}

// TestCoreDelayHeapStaysBounded: moving an item in and out of the delay
// heap again and again leaves a bounded number of stale slots.
func TestCoreDelayHeapStaysBounded(t *testing.T) {
	c := newTestCore(time.Second)
	for i := range 10_000 {
		c.addAfter("a", 0, int64(1000+i), int64(i))
		c.add("a", 0, int64(i))
		item, _ := c.get(t)
		c.done(item, int64(i))
	}
	require.LessOrEqual(t, len(c.delay.s), 2*minCompact)
}

// TestCoreIdleEntriesAreBounded: a core that never delays keeps no idle
// entry; after delays, distinct items leave at most about max(minIdle,
// peak live while delaying) idle entries behind, and re-added items reuse
// theirs.
func TestCoreIdleEntriesAreBounded(t *testing.T) {
	c := newTestCore(time.Second)
	for i := range 10_000 {
		k := strconv.Itoa(i)
		c.add(k, 0, 0)
		c.add(k, 0, 0)
		c.done(c.pop(0).item, 0)
		require.Empty(t, c.items, "a core that never delays keeps nothing after done")
	}
	// After a burst of 5000 delayed items the limit follows the peak, so
	// re-adding them finds (nearly all of) their idle entries.
	for i := range 5000 {
		c.addAfter(strconv.Itoa(i), 0, 10, 0)
	}
	c.advance(10)
	for c.ready > 0 {
		c.done(c.pop(0).item, 0)
	}
	require.Zero(t, c.live())
	require.GreaterOrEqual(t, c.idleLimit, 5000)
	n := len(c.items)
	for i := range 5000 {
		c.add(strconv.Itoa(i), 0, 0)
	}
	require.LessOrEqual(t, len(c.items)-n, minIdle+1, "idle entries reused")
	require.Equal(t, 5000, c.live())
	require.LessOrEqual(t, len(c.items), 2*5000+1)
}

func TestCoreEntriesAreRecycled(t *testing.T) {
	c := newTestCore(time.Second)
	allocs := testing.AllocsPerRun(1000, func() {
		c.add("a", 0, unknownTime)
		e := c.pop(unknownTime)
		c.done(e.item, unknownTime)
	})
	require.Zero(t, allocs)
}

func TestAgedKeySaturates(t *testing.T) {
	a := int64(time.Second)
	require.Equal(t, int64(5e9-3e9), agedKey(5e9, 3, a))
	require.Equal(t, int64(5e9+3e9), agedKey(5e9, -3, a))
	require.Equal(t, int64(math.MaxInt64), agedKey(5e9, math.MinInt, a))
	require.Equal(t, int64(5e9-math.MaxInt64), agedKey(5e9, math.MaxInt, a))
	require.Equal(t, int64(-math.MaxInt64), clampInt64(math.MinInt))
	require.Equal(t, int64(math.MaxInt64), satAdd(10, math.MaxInt64))
	// Extreme priorities still order correctly.
	require.Less(t, agedKey(0, math.MaxInt, a), agedKey(0, 0, a))
	require.Less(t, agedKey(0, 0, a), agedKey(0, math.MinInt, a))
}

// TestCoreEntrySlabsGrowWithUse: a queue of a few items holds a few
// entries; slabs double up to slabMax and no further; retired entries are
// reused before anything new is allocated.
func TestCoreEntrySlabsGrowWithUse(t *testing.T) {
	c := newTestCore(time.Second)
	for range 1000 {
		c.add("a", 0, unknownTime)
		c.add("b", 0, unknownTime)
		require.Equal(t, []string{"a", "b"}, c.drain(t))
	}
	require.Equal(t, slabMin, c.slabbed, "two items at a time fit in the first slab, reused")

	last := c.slabbed
	for i := range 1000 {
		c.add(strconv.Itoa(i), 0, unknownTime)
		if c.slabbed != last {
			require.Equal(t, min(slabMax, last), c.slabbed-last, "each slab is as large as the earlier ones together, up to slabMax")
			last = c.slabbed
		}
	}
	require.Less(t, c.slabbed, 1000+slabMax, "at most one slab of slack")
	require.Len(t, c.drain(t), 1000)
}
