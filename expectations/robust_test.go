package expectations_test

import (
	"iter"
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/expectations"
)

// TestCountsSaturate: counts stop at math.MaxInt and math.MinInt instead
// of wrapping around, so a huge expectation never reads as satisfied, and
// a huge surplus never reads as outstanding.
func TestCountsSaturate(t *testing.T) {
	type step func(e *expectations.Expectations)
	raise := func(add, del int) step {
		return func(e *expectations.Expectations) { e.RaiseExpectations(rcKey, add, del) }
	}
	lower := func(add, del int) step {
		return func(e *expectations.Expectations) { e.LowerExpectations(rcKey, add, del) }
	}
	expect := func(add, del int) step {
		return func(e *expectations.Expectations) {
			e.ExpectCreations(rcKey, add)
			e.RaiseExpectations(rcKey, 0, del)
		}
	}
	created := func(e *expectations.Expectations) { e.CreationObserved(rcKey) }
	deleted := func(e *expectations.Expectations) { e.DeletionObserved(rcKey) }
	tests := []struct {
		name             string
		steps            []step
		wantAdd, wantDel int
		wantSatisfied    bool
	}{
		{"raise past MaxInt", []step{expect(math.MaxInt, 0), raise(1, 0)}, math.MaxInt, 0, false},
		{"raise MaxInt twice", []step{expect(0, 0), raise(math.MaxInt, math.MaxInt), raise(math.MaxInt, math.MaxInt)}, math.MaxInt, math.MaxInt, false},
		{"raise deletions past MaxInt", []step{expect(0, math.MaxInt), raise(0, 1)}, 0, math.MaxInt, false},
		{"MaxInt minus one observation", []step{expect(math.MaxInt, 0), raise(5, 0), created}, math.MaxInt - 1, 0, false},
		{"MaxInt exactly", []step{expect(math.MaxInt-1, 0), raise(1, 0)}, math.MaxInt, 0, false},
		{"observe below MinInt", []step{expect(math.MinInt, 0), created}, math.MinInt, 0, true},
		{"delete below MinInt", []step{expect(0, 0), raise(0, math.MinInt), deleted, deleted}, 0, math.MinInt, true},
		{"lower past MinInt", []step{expect(0, 0), lower(math.MaxInt, math.MaxInt), lower(math.MaxInt, math.MaxInt)}, math.MinInt, math.MinInt, true},
		{"lower by MinInt raises to MaxInt", []step{expect(0, 0), lower(math.MinInt, 0)}, math.MaxInt, 0, false},
		{"lower by MinInt from one", []step{expect(1, 0), lower(math.MinInt, 0)}, math.MaxInt, 0, false},
		{"raise by MinInt", []step{expect(-1, 0), raise(math.MinInt, 0)}, math.MinInt, 0, true},
		{"near the top, no saturation", []step{expect(math.MaxInt-2, 0), raise(1, 0), created}, math.MaxInt - 2, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newExpectations(t, expectations.Options{})
			for _, s := range tt.steps {
				s(e)
			}
			add, del, ok := e.Get(rcKey)
			require.True(t, ok)
			assert.Equal(t, tt.wantAdd, add, "add")
			assert.Equal(t, tt.wantDel, del, "del")
			assert.Equal(t, tt.wantSatisfied, e.Satisfied(rcKey), "satisfied")
		})
	}

	u := newUIDTracking(t, expectations.Options{})
	u.ExpectDeletions(rcKey, []string{"a"})
	u.RaiseExpectations(rcKey, math.MaxInt, math.MaxInt)
	u.RaiseExpectations(rcKey, 1, 1)
	u.DeletionObserved(rcKey, "a")
	add, del, _ := u.Get(rcKey)
	assert.Equal(t, math.MaxInt, add)
	assert.Equal(t, math.MaxInt-1, del)
	assert.False(t, u.Satisfied(rcKey))
}

// TestRejectsTypedNilMetrics: a nil pointer in Options.Metrics is an
// error, not a panic at the first expiry.
func TestRejectsTypedNilMetrics(t *testing.T) {
	var m *metrics
	_, err := expectations.New(expectations.Options{Metrics: m})
	require.ErrorContains(t, err, "expectations: Options.Metrics holds a nil pointer")
	_, err = expectations.NewUIDTracking(expectations.Options{Metrics: m})
	require.ErrorContains(t, err, "expectations: Options.Metrics holds a nil pointer")
}

// TestCreationsByName: an expected name counts once, whether it is
// observed by its add, its delete (a lagging handler whose add and delete
// coalesced), both, or a failed create; other names count nothing.
func TestCreationsByName(t *testing.T) {
	for _, mk := range []struct {
		name string
		new  func(t *testing.T) namedExpectations
	}{
		{"Expectations", func(t *testing.T) namedExpectations { return newExpectations(t, expectations.Options{}) }},
		{"UIDTracking", func(t *testing.T) namedExpectations { return newUIDTracking(t, expectations.Options{}) }},
	} {
		t.Run(mk.name, func(t *testing.T) {
			e := mk.new(t)
			e.ExpectCreationsOf(rcKey, []string{"web-0", "web-1", "web-2", "web-1"})
			add, _, _ := e.Get(rcKey)
			require.Equal(t, 3, add, "distinct names")
			e.CreationObservedOf(rcKey, "web-0") // OnAdd
			e.CreationObservedOf(rcKey, "web-0") // OnDelete of the same: counted already
			e.CreationObservedOf(rcKey, "other") // not ours
			e.CreationObservedOf("default/else", "web-1")
			add, _, _ = e.Get(rcKey)
			require.Equal(t, 2, add)
			require.Equal(t, []string{"web-1", "web-2"}, slices.Collect(e.PendingCreations(rcKey)))
			require.False(t, e.Satisfied(rcKey))

			e.CreationObservedOf(rcKey, "web-1") // only its delete was delivered
			e.CreationObservedOf(rcKey, "web-2") // its create failed
			add, _, _ = e.Get(rcKey)
			require.Zero(t, add)
			require.True(t, e.Satisfied(rcKey))
			require.Empty(t, slices.Collect(e.PendingCreations(rcKey)))
			e.CreationObservedOf(rcKey, "web-2")
			add, _, _ = e.Get(rcKey)
			require.Zero(t, add, "observing again counts nothing")

			// A replaced record forgets the names; Delete forgets them too.
			e.ExpectCreationsOf(rcKey, []string{"a"})
			e.ExpectCreations(rcKey, 1)
			e.CreationObservedOf(rcKey, "a")
			add, _, _ = e.Get(rcKey)
			require.Equal(t, 1, add, "names of a replaced record do not count")
			e.ExpectCreationsOf(rcKey, []string{"b"})
			e.Delete(rcKey)
			e.CreationObservedOf(rcKey, "b")
			_, _, ok := e.Get(rcKey)
			require.False(t, ok)
			e.ExpectCreationsOf(rcKey, nil)
			require.True(t, e.Satisfied(rcKey), "no names: satisfied at once")
		})
	}
}

type namedExpectations interface {
	ExpectCreations(key string, n int)
	ExpectCreationsOf(key string, names []string)
	CreationObservedOf(key, name string)
	PendingCreations(key string) iter.Seq[string]
	Get(key string) (add, del int, ok bool)
	Satisfied(key string) bool
	Remaining(key string) (time.Duration, bool)
	Delete(key string)
}

// TestRemaining: Remaining is !Satisfied with the time until the record
// expires, so that a reconcile that waits can requeue itself for then.
func TestRemaining(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &metrics{}
		e := newExpectations(t, expectations.Options{TTL: time.Minute, Metrics: m})
		d, waiting := e.Remaining(rcKey)
		require.False(t, waiting, "no record")
		require.Zero(t, d)

		e.ExpectCreations(rcKey, 2)
		d, waiting = e.Remaining(rcKey)
		require.True(t, waiting)
		require.Equal(t, time.Minute+time.Nanosecond, d, "the first instant the record is expired")

		time.Sleep(40 * time.Second)
		e.CreationObserved(rcKey) // observations do not restart the TTL
		d, waiting = e.Remaining(rcKey)
		require.True(t, waiting)
		require.Equal(t, 20*time.Second+time.Nanosecond, d)

		time.Sleep(d - time.Nanosecond) // exactly the TTL old: still waits
		d, waiting = e.Remaining(rcKey)
		require.True(t, waiting)
		require.Equal(t, time.Nanosecond, d)
		require.False(t, e.Satisfied(rcKey))

		time.Sleep(d)
		d, waiting = e.Remaining(rcKey)
		require.False(t, waiting, "expired")
		require.Zero(t, d)
		require.Equal(t, 1, m.count(), "the expiry is reported by Remaining as by Satisfied")
		require.True(t, e.Satisfied(rcKey))
		require.Equal(t, 1, m.count(), "once")

		e.ExpectCreations(rcKey, 1)
		e.CreationObserved(rcKey)
		_, waiting = e.Remaining(rcKey)
		require.False(t, waiting, "fulfilled")

		u := newUIDTracking(t, expectations.Options{TTL: time.Minute})
		u.ExpectDeletions(rcKey, []string{"a"})
		d, waiting = u.Remaining(rcKey)
		require.True(t, waiting)
		require.Equal(t, time.Minute+time.Nanosecond, d)
	})
}
