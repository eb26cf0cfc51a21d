package nodelifecycle

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
)

var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func drain(q *taintQueue, now time.Time) []string {
	var got []string
	q.try(now, func(node, _ string) (bool, time.Duration) { got = append(got, node); return true, 0 })
	return got
}

// A zone's queue taints one node at once (burst 1), then one every
// 1/rate: 10 s at kcm's default 0.1 nodes/s.
func TestTaintQueueRate(t *testing.T) {
	q := newTaintQueue(DefaultEvictionRate)
	for _, n := range []string{"a", "b", "c"} {
		require.True(t, q.add(n, "", t0))
	}
	require.False(t, q.add("a", "", t0), "queued once")
	defer func() {
		require.False(t, q.add("a", "", t0.Add(time.Hour)), "done: not queued again until removed")
		require.True(t, q.remove("a"))
		require.True(t, q.add("a", "", t0.Add(time.Hour)))
	}()
	steps := []struct {
		at   time.Duration
		want []string
	}{
		{0, []string{"a"}},
		{100 * time.Millisecond, nil},
		{9900 * time.Millisecond, nil},
		{10 * time.Second, []string{"b"}},
		{15 * time.Second, nil},
		{20 * time.Second, []string{"c"}},
		{time.Hour, nil},
	}
	for _, s := range steps {
		require.Equal(t, s.want, drain(q, t0.Add(s.at)), "at %v", s.at)
	}
}

func TestTaintQueueRemoveAndRetry(t *testing.T) {
	q := newTaintQueue(10) // a token every 100 ms
	q.add("a", "", t0)
	q.add("b", "", t0)
	require.True(t, q.remove("a"))
	require.False(t, q.remove("a"))
	calls := 0
	q.try(t0, func(string, string) (bool, time.Duration) { calls++; return false, 50 * time.Millisecond })
	require.Equal(t, 1, calls, "a failure puts the node back, due later")
	require.Nil(t, drain(q, t0.Add(40*time.Millisecond)), "not due yet (and the attempt took the token)")
	require.Equal(t, []string{"b"}, drain(q, t0.Add(time.Second)))
}

// kcm's SwapLimiter: rate 0 stops the queue; a new rate starts without a
// token when the old limiter had none.
func TestTaintQueueSetRate(t *testing.T) {
	q := newTaintQueue(DefaultEvictionRate)
	q.add("a", "", t0)
	q.add("b", "", t0)
	q.setRate(0, t0)
	require.Nil(t, drain(q, t0.Add(time.Hour)))
	q.setRate(DefaultEvictionRate, t0.Add(time.Hour))
	require.Nil(t, drain(q, t0.Add(time.Hour)), "the stopped limiter had no token")
	require.Equal(t, []string{"a"}, drain(q, t0.Add(time.Hour+10*time.Second)))
	q.setRate(DefaultSecondaryEvictionRate, t0.Add(time.Hour+10*time.Second))
	require.Nil(t, drain(q, t0.Add(time.Hour+50*time.Second)))
	require.Equal(t, []string{"b"}, drain(q, t0.Add(time.Hour+110*time.Second)), "one per 100 s")
}

func TestApplyTaints(t *testing.T) {
	ts := api.NewTime(t0)
	old := api.NewTime(t0.Add(-time.Hour))
	foreign := api.Taint{Key: "dedicated", Effect: api.TaintEffectNoSchedule}
	tainted := UnreachableTaint
	tainted.TimeAdded = &old
	got, changed := applyTaints([]api.Taint{foreign, tainted}, []api.Taint{NotReadyTaint}, []api.Taint{UnreachableTaint}, ts)
	require.True(t, changed)
	want := NotReadyTaint
	want.TimeAdded = &ts
	require.Equal(t, []api.Taint{foreign, want}, got, "swapped in one list")

	got, changed = applyTaints([]api.Taint{foreign, tainted}, []api.Taint{UnreachableTaint}, nil, ts)
	require.False(t, changed)
	require.Equal(t, []api.Taint{foreign, tainted}, got, "an existing taint keeps its timeAdded")

	got, changed = applyTaints(nil, []api.Taint{{Key: api.TaintNodeUnreachable, Effect: api.TaintEffectNoSchedule}}, nil, ts)
	require.True(t, changed)
	require.Nil(t, got[0].TimeAdded, "timeAdded is for NoExecute taints")

	_, changed = applyTaints([]api.Taint{foreign}, nil, []api.Taint{UnreachableTaint, NotReadyTaint}, ts)
	require.False(t, changed)
}
