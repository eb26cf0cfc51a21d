package reflector_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/reflector"
)

// failingLists scripts n failing lists followed by a good one.
func failingLists(n int) []listResp {
	out := make([]listResp, 0, n+1)
	for range n {
		out = append(out, listResp{err: errBoom})
	}
	return append(out, listOK(10))
}

// gaps returns the time between consecutive List calls.
func listGaps(lw *scriptLW) []time.Duration {
	var at []time.Time
	for _, c := range lw.rawCalls() {
		if c.list != nil {
			at = append(at, c.at)
		}
	}
	var out []time.Duration
	for i := 1; i < len(at); i++ {
		out = append(out, at[i].Sub(at[i-1]))
	}
	return out
}

// Semantic 5: the delay doubles from 800ms and stops at the 30s cap.
func TestBackoffGrowsAndCaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(failingLists(9), nil)
		h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
		time.Sleep(5 * time.Minute)
		ms := time.Millisecond
		assert.Equal(t, []time.Duration{800 * ms, 1600 * ms, 3200 * ms, 6400 * ms, 12800 * ms, 25600 * ms,
			30 * time.Second, 30 * time.Second, 30 * time.Second}, listGaps(lw))
		assert.Equal(t, 9, h.metrics.Backoffs.get())
		assert.Len(t, h.errs.all(), 9)
		h.stop(t)
	})
}

func TestBackoffHonoursOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(failingLists(4), nil)
		h := start(t, lw, newStore(), reflector.Options{Backoff: reflector.Backoff{
			Initial: time.Second, Factor: 3, Cap: 10 * time.Second, Jitter: -1}})
		time.Sleep(5 * time.Minute)
		assert.Equal(t, []time.Duration{time.Second, 3 * time.Second, 9 * time.Second, 10 * time.Second}, listGaps(lw))
		h.stop(t)
	})
}

// The default jitter takes up to half of each delay off, never adds.
func TestBackoffJitterStaysWithinBounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW(failingLists(10), nil)
		h := start(t, lw, newStore(), reflector.Options{})
		time.Sleep(10 * time.Minute)
		gaps := listGaps(lw)
		require.Len(t, gaps, 10)
		d, exact := 800*time.Millisecond, 0
		for i, g := range gaps {
			assert.LessOrEqual(t, g, d, "gap %d", i)
			assert.GreaterOrEqual(t, g, d/2, "gap %d", i)
			if g == d {
				exact++
			}
			d = min(2*d, 30*time.Second)
		}
		assert.Less(t, exact, len(gaps), "delays are jittered")
		h.stop(t)
	})
}

// After ResetAfter (2m) of health the delay starts again from Initial;
// before it, the delay keeps growing.
func TestBackoffResetsAfterHealthyPeriod(t *testing.T) {
	ms := time.Millisecond
	for name, c := range map[string]struct {
		healthy time.Duration
		want    time.Duration
	}{
		"healthy 3m resets": {3 * time.Minute, 800 * ms},
		"healthy 1m grows":  {time.Minute, 6400 * ms},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lists := failingLists(3) // 800ms, 1.6s, 3.2s
				lw := newLW(append(lists, listOK(20)),
					[]watchResp{{events: []ev{errEvent(errBoom)}, gap: c.healthy}})
				h := start(t, lw, newStore(), reflector.Options{Backoff: noJitter})
				time.Sleep(10 * time.Minute)
				gaps := listGaps(lw)
				require.Len(t, gaps, 4)
				assert.Equal(t, []time.Duration{800 * ms, 1600 * ms, 3200 * ms}, gaps[:3])
				assert.Equal(t, c.healthy+c.want, gaps[3])
				h.stop(t)
			})
		})
	}
}

// Semantic 7: Store.Resync every ResyncPeriod while watching.
func TestResyncEveryPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{ResyncPeriod: time.Minute})
		time.Sleep(59 * time.Second)
		assert.Zero(t, store.count("resync"))
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, 1, store.count("resync"))
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		assert.Equal(t, 3, store.count("resync"))
		assert.Equal(t, 3, h.metrics.Resyncs.get())
		// Resync survives watch restarts (lifetime 5–10m): one per minute.
		time.Sleep(27 * time.Minute)
		synctest.Wait()
		assert.Equal(t, 30, store.count("resync"))
		assert.Equal(t, 1, store.count("replace"), "resync never relists")
		h.stop(t)
	})
}

func TestNoResyncByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10)}, nil)
		store := newStore()
		h := start(t, lw, store, reflector.Options{})
		time.Sleep(time.Hour)
		assert.Zero(t, store.count("resync"))
		h.stop(t)
	})
}

// A resync that comes due during a backoff runs when the watch resumes;
// the period restarts at each Replace.
func TestResyncRestartsAtReplace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newLW([]listResp{listOK(10), listOK(20)},
			[]watchResp{{events: []ev{added("a", 11), errEvent(errExpired)}, gap: 25 * time.Second}})
		store := newStore()
		h := start(t, lw, store, reflector.Options{ResyncPeriod: time.Minute})
		// Expired at 50s → relist at once → Replace at 50s → next resync at 110s.
		time.Sleep(109 * time.Second)
		assert.Zero(t, store.count("resync"))
		time.Sleep(time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"replace [] @10", "add a @11", "replace [] @20", "resync"}, store.Ops())
		h.stop(t)
	})
}
