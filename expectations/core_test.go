package expectations

import (
	"io"
	"log/slog"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is the instant every pure test counts from.
var t0 = time.Date(2009, time.November, 10, 23, 0, 0, 0, time.UTC)

const testTTL = 30 * time.Second

// countingMetrics counts expiries per key.
type countingMetrics struct{ n atomic.Int64 }

func (m *countingMetrics) ExpectationsMetrics(string) Metrics { return Metrics{Expired: m} }
func (m *countingMetrics) Inc()                               { m.n.Add(1) }
func (m *countingMetrics) count() int                         { return int(m.n.Load()) }

func newTestCore(t *testing.T) (*core, *countingMetrics) {
	t.Helper()
	m := &countingMetrics{}
	o, err := Options{TTL: testTTL, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: m}.withDefaults()
	require.NoError(t, err)
	c := newCore(o)
	return &c, m
}

func TestDecide(t *testing.T) {
	rec := func(add, del int, at time.Time) *record { return &record{add: add, del: del, at: at} }
	tests := []struct {
		name string
		r    *record
		now  time.Time
		want verdict
	}{
		{"no record", nil, t0, fulfilled},
		{"creations outstanding", rec(2, 0, t0), t0, waiting},
		{"deletions outstanding", rec(0, 1, t0), t0, waiting},
		{"both outstanding", rec(1, 1, t0), t0, waiting},
		{"creations done, deletions outstanding", rec(0, 3, t0), t0, waiting},
		{"both zero", rec(0, 0, t0), t0, fulfilled},
		{"both negative", rec(-1, -1, t0), t0, fulfilled},
		{"negative creations, zero deletions", rec(-5, 0, t0), t0, fulfilled},
		{"negative creations do not cancel outstanding deletions", rec(-5, 1, t0), t0, waiting},
		{"just younger than the TTL", rec(1, 0, t0), t0.Add(testTTL - time.Nanosecond), waiting},
		{"exactly the TTL old still waits", rec(1, 0, t0), t0.Add(testTTL), waiting},
		{"one nanosecond past the TTL", rec(1, 0, t0), t0.Add(testTTL + time.Nanosecond), expired},
		{"long past the TTL", rec(0, 7, t0), t0.Add(time.Hour), expired},
		{"fulfilled and old is fulfilled, not expired", rec(0, 0, t0), t0.Add(time.Hour), fulfilled},
		{"a clock that went back still waits", rec(1, 0, t0), t0.Add(-time.Hour), waiting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, decide(tt.r, tt.now, testTTL))
		})
	}
}

// op is one call on a core at an explicit instant.
type op func(c *core)

const key = "default/foobar"

func expectAt(add, del int, d time.Duration) op {
	return func(c *core) { c.expect(key, add, del, t0.Add(d)) }
}
func expectUIDsAt(d time.Duration, uids ...string) op {
	return func(c *core) { c.expectUIDs(key, uids, t0.Add(d)) }
}
func adjust(add, del int) op   { return func(c *core) { c.adjust(key, add, del, +1) } }
func observeUID(uid string) op { return func(c *core) { c.observeUID(key, uid) } }
func expectNamesAt(d time.Duration, names ...string) op {
	return func(c *core) { c.expectNames(key, names, t0.Add(d)) }
}
func observeName(name string) op { return func(c *core) { c.observeName(key, name) } }
func remove() op                 { return func(c *core) { c.remove(key) } }
func checkAt(d time.Duration) op { return func(c *core) { c.satisfied(key, t0.Add(d)) } }
func repeat(n int, o op) op {
	return func(c *core) {
		for range n {
			o(c)
		}
	}
}

// TestCoreScripts runs kube-controller-manager's expectation scenarios
// (TestControllerExpectations, TestUIDExpectations, the ReplicaSet
// controller's TestDeletionTimestamp) and the rest of the contract as
// scripts over explicit instants, then checks the record and Satisfied.
func TestCoreScripts(t *testing.T) {
	created, deleted := adjust(-1, 0), adjust(0, -1)
	tests := []struct {
		name          string
		ops           []op
		at            time.Duration // when Satisfied is asked
		wantAdd       int
		wantDel       int
		wantOK        bool
		wantSatisfied bool
		wantExpired   int      // expiries reported, including the final Satisfied
		wantPending   []string // UIDs still expected
	}{
		{name: "no record", wantSatisfied: true},

		// kube TestControllerExpectations, step by step.
		{name: "creations surpassed, deletions outstanding",
			ops:    []op{expectAt(10, 0, 0), adjust(0, 30), repeat(11, created)},
			wantOK: true, wantAdd: -1, wantDel: 30},
		{name: "both surpassed",
			ops:    []op{expectAt(10, 0, 0), adjust(0, 30), repeat(11, created), repeat(31, deleted)},
			wantOK: true, wantAdd: -1, wantDel: -1, wantSatisfied: true},
		{name: "next round replaces the surpassed record",
			ops:    []op{expectAt(10, 0, 0), adjust(0, 30), repeat(11, created), repeat(31, deleted), expectAt(1, 0, 0), adjust(0, 2)},
			wantOK: true, wantAdd: 1, wantDel: 2},
		{name: "outstanding record expires after the TTL",
			ops: []op{expectAt(1, 0, 0), adjust(0, 2)},
			at:  testTTL + 1, wantOK: true, wantAdd: 1, wantDel: 2, wantSatisfied: true, wantExpired: 1},

		// Counts.
		{name: "expect creations", ops: []op{expectAt(3, 0, 0)}, wantOK: true, wantAdd: 3},
		{name: "expect deletions", ops: []op{expectAt(0, 3, 0)}, wantOK: true, wantDel: 3},
		{name: "exactly observed", ops: []op{expectAt(3, 0, 0), repeat(3, created)}, wantOK: true, wantSatisfied: true},
		{name: "one short", ops: []op{expectAt(3, 0, 0), repeat(2, created)}, wantOK: true, wantAdd: 1},
		{name: "expect zero is satisfied at once", ops: []op{expectAt(0, 0, 0)}, wantOK: true, wantSatisfied: true},
		{name: "expect a negative count is satisfied", ops: []op{expectAt(-2, 0, 0)}, wantOK: true, wantAdd: -2, wantSatisfied: true},
		{name: "a deletion does not pay for a creation",
			ops: []op{expectAt(1, 0, 0), deleted}, wantOK: true, wantAdd: 1, wantDel: -1},
		{name: "raise then lower",
			ops: []op{expectAt(1, 0, 0), adjust(2, 3), adjust(-3, -1)}, wantOK: true, wantDel: 2},
		{name: "lower planned but unissued creates",
			ops: []op{expectAt(5, 0, 0), adjust(-2, 0), repeat(3, created)}, wantOK: true, wantSatisfied: true},
		{name: "expect replaces, not adds",
			ops: []op{expectAt(5, 0, 0), expectAt(0, 2, 0)}, wantOK: true, wantDel: 2},
		{name: "a surplus is not inherited by the next record",
			ops: []op{expectAt(1, 0, 0), repeat(6, created), expectAt(3, 0, 0)}, wantOK: true, wantAdd: 3},

		// No record: adjustments and observations are ignored.
		{name: "raise without a record", ops: []op{adjust(4, 4)}, wantSatisfied: true},
		{name: "observation without a record", ops: []op{created, deleted, observeUID("a")}, wantSatisfied: true},

		// TTL.
		{name: "exactly the TTL old still waits", ops: []op{expectAt(1, 0, 0)}, at: testTTL, wantOK: true, wantAdd: 1},
		{name: "raise does not restart the TTL",
			ops: []op{expectAt(1, 0, 0), adjust(1, 0)}, at: testTTL + 1, wantOK: true, wantAdd: 2, wantSatisfied: true, wantExpired: 1},
		{name: "expect restarts the TTL",
			ops: []op{expectAt(1, 0, 0), expectAt(1, 0, testTTL)}, at: testTTL + 1, wantOK: true, wantAdd: 1},
		{name: "fulfilled record never counts as expired",
			ops: []op{expectAt(1, 0, 0), created}, at: time.Hour, wantOK: true, wantSatisfied: true},
		{name: "expiry is reported once per record",
			ops: []op{expectAt(1, 0, 0), checkAt(testTTL + 1), checkAt(testTTL + 2)}, at: time.Hour,
			wantOK: true, wantAdd: 1, wantSatisfied: true, wantExpired: 1},
		{name: "a replaced record is reported again",
			ops: []op{expectAt(1, 0, 0), checkAt(testTTL + 1), expectAt(1, 0, time.Hour)}, at: time.Hour + testTTL + 1,
			wantOK: true, wantAdd: 1, wantSatisfied: true, wantExpired: 2},
		{name: "observations after expiry still count",
			ops: []op{expectAt(2, 0, 0), checkAt(testTTL + 1), repeat(2, created)}, at: testTTL + 2,
			wantOK: true, wantSatisfied: true, wantExpired: 1},

		// Delete, and an owner recreated under the same key.
		{name: "delete forgets the record", ops: []op{expectAt(2, 1, 0), remove()}, wantSatisfied: true},
		{name: "recreated owner starts with no record",
			ops: []op{expectAt(3, 0, 0), created, remove(), created}, wantSatisfied: true},
		{name: "recreated owner's expectations start fresh",
			ops: []op{expectAt(3, 0, 0), created, remove(), created, expectAt(2, 0, time.Second)}, wantOK: true, wantAdd: 2},
		{name: "recreated owner after a surplus",
			ops: []op{expectAt(1, 0, 0), repeat(4, created), remove(), expectAt(2, 0, 0)}, wantOK: true, wantAdd: 2},

		// UID tracking (kube TestUIDExpectations, TestDeletionTimestamp).
		{name: "uids set the deletion count",
			ops: []op{expectUIDsAt(0, "p1", "p2", "p3")}, wantOK: true, wantDel: 3, wantPending: []string{"p1", "p2", "p3"}},
		{name: "duplicate uids count once",
			ops: []op{expectUIDsAt(0, "p1", "p2", "p1")}, wantOK: true, wantDel: 2, wantPending: []string{"p1", "p2"}},
		{name: "all uids observed",
			ops: []op{expectUIDsAt(0, "p1", "p2"), observeUID("p2"), observeUID("p1")}, wantOK: true, wantSatisfied: true},
		{name: "deletion timestamp then delete counts once",
			ops: []op{expectUIDsAt(0, "p1", "p2"), observeUID("p1"), observeUID("p1")}, wantOK: true, wantDel: 1, wantPending: []string{"p2"}},
		{name: "unexpected uid is ignored",
			ops: []op{expectUIDsAt(0, "p1"), observeUID("other")}, wantOK: true, wantDel: 1, wantPending: []string{"p1"}},
		{name: "no uids is satisfied at once", ops: []op{expectUIDsAt(0)}, wantOK: true, wantSatisfied: true},
		{name: "uids replace uids",
			ops: []op{expectUIDsAt(0, "p1", "p2"), expectUIDsAt(0, "p3"), observeUID("p1")}, wantOK: true, wantDel: 1, wantPending: []string{"p3"}},
		{name: "expect creations drops pending uids",
			ops: []op{expectUIDsAt(0, "p1"), expectAt(1, 0, 0), observeUID("p1")}, wantOK: true, wantAdd: 1},
		{name: "uid expectations expire",
			ops: []op{expectUIDsAt(0, "p1")}, at: testTTL + 1, wantOK: true, wantDel: 1, wantSatisfied: true, wantExpired: 1, wantPending: []string{"p1"}},
		{name: "creations and uid deletions combine",
			ops: []op{expectUIDsAt(0, "p1"), adjust(1, 0), observeUID("p1")}, wantOK: true, wantAdd: 1},
		{name: "count-only deletions are not lowered by a uid",
			ops: []op{expectAt(0, 1, 0), observeUID("p1")}, wantOK: true, wantDel: 1},
		{name: "delete drops counts and uids",
			ops: []op{expectUIDsAt(0, "p1"), remove(), observeUID("p1")}, wantSatisfied: true},
		{name: "stale uid of a deleted owner does not count for its successor",
			ops:    []op{expectUIDsAt(0, "old1", "old2"), remove(), expectUIDsAt(time.Second, "new1"), observeUID("old1")},
			wantOK: true, wantDel: 1, wantPending: []string{"new1"}},

		// Creations by name.
		{name: "names set the creation count",
			ops: []op{expectNamesAt(0, "a", "b", "a")}, wantOK: true, wantAdd: 2},
		{name: "a name observed twice counts once",
			ops: []op{expectNamesAt(0, "a", "b"), observeName("a"), observeName("a")}, wantOK: true, wantAdd: 1},
		{name: "all names observed",
			ops: []op{expectNamesAt(0, "a", "b"), observeName("b"), observeName("a")}, wantOK: true, wantSatisfied: true},
		{name: "unexpected name is ignored",
			ops: []op{expectNamesAt(0, "a"), observeName("z")}, wantOK: true, wantAdd: 1},
		{name: "a uid does not observe a name",
			ops: []op{expectNamesAt(0, "a"), observeUID("a")}, wantOK: true, wantAdd: 1},
		{name: "names combine with raised deletions",
			ops: []op{expectNamesAt(0, "a"), adjust(0, 1), observeName("a")}, wantOK: true, wantDel: 1},
		{name: "uids replace names",
			ops: []op{expectNamesAt(0, "a"), expectUIDsAt(0, "p1"), observeName("a")}, wantOK: true, wantDel: 1, wantPending: []string{"p1"}},
		{name: "name expectations expire",
			ops: []op{expectNamesAt(0, "a")}, at: testTTL + 1, wantOK: true, wantAdd: 1, wantSatisfied: true, wantExpired: 1},
		{name: "observing a name saturates",
			ops: []op{expectNamesAt(0, "a"), adjust(math.MinInt, 0), observeName("a")}, wantOK: true, wantAdd: math.MinInt, wantSatisfied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, m := newTestCore(t)
			for _, o := range tt.ops {
				o(c)
			}
			add, del, ok := c.get(key)
			assert.Equal(t, tt.wantOK, ok, "ok")
			assert.Equal(t, tt.wantAdd, add, "add")
			assert.Equal(t, tt.wantDel, del, "del")
			assert.Equal(t, tt.wantSatisfied, c.satisfied(key, t0.Add(tt.at)), "satisfied")
			assert.Equal(t, tt.wantExpired, m.count(), "expiries reported")
			assert.Equal(t, tt.wantPending, nilIfEmpty(c.pendingUIDs(key)), "pending uids")
			other, _, _ := c.get("default/other")
			assert.Zero(t, other, "another key is untouched")
			assert.True(t, c.satisfied("default/other", t0), "another key is satisfied")
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// TestExpectReusesRecord: replacing a record reuses its storage, so a
// controller's steady-state ExpectCreations/ExpectDeletions do not
// allocate.
func TestExpectReusesRecord(t *testing.T) {
	c, _ := newTestCore(t)
	c.expect(key, 1, 0, t0)
	c.expectUIDs(key, []string{"a", "b"}, t0)
	c.expectNames(key, []string{"a", "b"}, t0)
	allocs := testing.AllocsPerRun(100, func() {
		c.expect(key, 1, 0, t0)
		c.expectNames(key, []string{"a", "b"}, t0)
		c.observeName(key, "a")
		c.remaining(key, t0)
		c.expectUIDs(key, []string{"a", "b"}, t0)
		c.observeUID(key, "a")
		c.adjust(key, 1, 0, -1)
		c.satisfied(key, t0)
	})
	assert.Zero(t, allocs)
	assert.Equal(t, []string{"b"}, c.pendingUIDs(key))
}
