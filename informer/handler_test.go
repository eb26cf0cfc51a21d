package informer

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

func countOps(calls []string, op string) int {
	n := 0
	for _, c := range calls {
		if strings.HasPrefix(c, op+" ") {
			n++
		}
	}
	return n
}

func TestResyncPerHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		inf := newInformer(t, src, Options[*obj]{ResyncPeriod: 10 * time.Second})
		def := &recorder{t: t}  // inherits 10s
		none := &recorder{t: t} // disabled
		slow := &recorder{t: t} // 25s, rounded up to 30s
		own := &recorder{t: t}  // 20s, a multiple already
		for _, h := range []struct {
			r *recorder
			p time.Duration
		}{{def, 0}, {none, -1}, {slow, 25 * time.Second}, {own, 20 * time.Second}} {
			_, err := inf.AddEventHandler(h.r, HandlerOptions{ResyncPeriod: h.p})
			require.NoError(t, err)
		}
		start(t, inf)
		synctest.Wait()
		for _, r := range []*recorder{def, none, slow, own} {
			require.Equal(t, []string{"add a 1 true", "add b 2 true"}, r.take())
		}
		time.Sleep(61 * time.Second)
		synctest.Wait()
		require.Equal(t, 12, countOps(def.take(), "update"), "6 resyncs of 2 objects")
		require.Zero(t, none.count())
		require.Equal(t, 4, countOps(slow.take(), "update"), "2 resyncs of 2 objects")
		require.Equal(t, 6, countOps(own.take(), "update"), "3 resyncs of 2 objects")

		// A resync is OnUpdate(obj, obj) with the cached object.
		cached, _ := inf.Lister().Get("a")
		time.Sleep(10 * time.Second)
		synctest.Wait()
		def.mu.Lock()
		for _, c := range def.calls {
			if c.Key == "a" {
				require.Same(t, cached, c.Obj)
				require.Same(t, cached, c.Old)
			}
		}
		def.mu.Unlock()
	})
}

func TestResyncOfLateHandlerWithoutInformerPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		inf := newInformer(t, src, Options[*obj]{})
		start(t, inf)
		synctest.Wait()
		time.Sleep(time.Second)
		rec := &recorder{t: t}
		_, err := inf.AddEventHandler(rec, HandlerOptions{ResyncPeriod: 7 * time.Second})
		require.NoError(t, err)
		synctest.Wait()
		require.Equal(t, []string{"add a 1 true"}, rec.take())
		time.Sleep(6 * time.Second)
		synctest.Wait()
		require.Zero(t, rec.count())
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.Equal(t, []string{"update a 1->1"}, rec.take())
	})
}

func TestEffectiveResync(t *testing.T) {
	s := time.Second
	tests := []struct{ requested, check, want time.Duration }{
		{0, 0, 0},
		{0, 10 * s, 10 * s},
		{-1, 10 * s, 0},
		{7 * s, 0, 7 * s},
		{7 * s, 10 * s, 10 * s},
		{25 * s, 10 * s, 30 * s},
		{30 * s, 10 * s, 30 * s},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, effectiveResync(tt.requested, tt.check), "%v/%v", tt.requested, tt.check)
	}
}

// TestSlowHandlerCoalesces: a stuck handler's backlog stays bounded by
// the number of keys while a fast handler sees every event, and once
// unstuck the slow one converges to the same final state.
func TestSlowHandlerCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, Options[*obj]{})
		slow := &recorder{t: t, gate: make(chan struct{})}
		fast := &recorder{t: t}
		slowReg, err := inf.AddEventHandler(slow, HandlerOptions{})
		require.NoError(t, err)
		_, err = inf.AddEventHandler(fast, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()

		create(t, src, "k0", 0)
		synctest.Wait() // slow is now inside OnAdd(k0)
		const keys, rounds = 10, 50
		for i := 1; i < keys; i++ {
			create(t, src, fmt.Sprint("k", i), 0)
			synctest.Wait()
		}
		// Wait after every write, so that the fast handler is given (and
		// handles) each event on its own, never coalesced.
		for r := 1; r <= rounds; r++ {
			for i := range keys {
				update(t, src, fmt.Sprint("k", i), r)
				synctest.Wait()
			}
			remove(t, src, "k0")
			synctest.Wait()
			create(t, src, "k0", r)
			synctest.Wait()
			require.LessOrEqual(t, slowReg.Pending(), keys+1)
		}
		for _, write := range []func(){
			func() { remove(t, src, "k1") },
			func() { create(t, src, "new", 1) },
			func() { remove(t, src, "new") },
		} {
			write()
			synctest.Wait()
		}
		require.Equal(t, keys+rounds*(keys+2)+3, fast.count(), "the fast handler saw every event")

		close(slow.gate)
		synctest.Wait()
		// k1 and new: a delete of their last state (add ... delete). k2..k9:
		// one add of the newest state. k0, which the handler had seen: the
		// delete of its newest deleted incarnation (round 50's) and an
		// add of the newest.
		want := []string{fmt.Sprintf("delete k1 %d false", rounds)}
		for i := 2; i < keys; i++ {
			want = append(want, fmt.Sprintf("add k%d %d false", i, rounds))
		}
		want = append(want, "delete k0 50 false", "add k0 50 false", "delete new 1 false")
		require.Equal(t, append([]string{"add k0 0 false"}, want...), slow.take())
	})
}

func TestFilteringHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		inf := newInformer(t, src, Options[*obj]{})
		rec := &recorder{t: t}
		even := func(o *obj) bool { return o.Val%2 == 0 }
		_, err := inf.AddEventHandler(FilteringHandler[*obj]{Filter: even, Handler: rec}, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		require.Equal(t, []string{"add b 2 true"}, rec.take())
		for _, step := range []struct {
			write func()
			want  []string
		}{
			{func() { update(t, src, "a", 4) }, []string{"add a 4 false"}},    // enters
			{func() { update(t, src, "a", 6) }, []string{"update a 4->6"}},    // stays
			{func() { update(t, src, "b", 3) }, []string{"delete b 2 false"}}, // leaves
			{func() { update(t, src, "b", 5) }, nil},                          // stays out
			{func() { remove(t, src, "b") }, nil},
			{func() { remove(t, src, "a") }, []string{"delete a 6 false"}},
		} {
			step.write()
			synctest.Wait()
			require.Equal(t, step.want, nilIfEmpty(rec.take()))
		}
	})
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestHandlerFuncsIgnoresNilFuncs(t *testing.T) {
	var h Handler[*obj] = HandlerFuncs[*obj]{}
	h.OnAdd(&obj{}, true)
	h.OnUpdate(&obj{}, &obj{})
	h.OnDelete(&obj{}, false)
	var got []string
	h = HandlerFuncs[*obj]{
		AddFunc:    func(o *obj, initial bool) { got = append(got, fmt.Sprint("add ", o.Key, initial)) },
		UpdateFunc: func(old, new *obj) { got = append(got, "update "+old.Key+new.Key) },
		DeleteFunc: func(o *obj, unknown bool) { got = append(got, fmt.Sprint("delete ", o.Key, unknown)) },
	}
	h.OnAdd(&obj{Key: "a"}, true)
	h.OnUpdate(&obj{Key: "a"}, &obj{Key: "b"})
	h.OnDelete(&obj{Key: "c"}, true)
	require.Equal(t, []string{"add atrue", "update ab", "delete ctrue"}, got)
}

// TestLaggingHandlerHearsEveryDelete: objects created and deleted while a
// handler is stuck used to coalesce to nothing (add+delete), so a
// controller never heard of a pod it created that was deleted meanwhile
// and its expectation waited out its TTL. Now each one reaches the
// handler as a delete carrying its last state, while a fast handler sees
// both events of each.
func TestLaggingHandlerHearsEveryDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, Options[*obj]{})
		slow := &recorder{t: t, gate: make(chan struct{})}
		fast := &recorder{t: t}
		slowReg, err := inf.AddEventHandler(slow, HandlerOptions{})
		require.NoError(t, err)
		_, err = inf.AddEventHandler(fast, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		create(t, src, "blocker", 0)
		synctest.Wait() // slow is now inside OnAdd(blocker)

		const n = 100
		for i := range n {
			key := fmt.Sprint("short-", i)
			create(t, src, key, i)
			synctest.Wait()
			update(t, src, key, i+1000)
			synctest.Wait()
			remove(t, src, key)
			synctest.Wait()
		}
		require.LessOrEqual(t, slowReg.Pending(), n+1, "memory stays O(keys)")
		require.Equal(t, 1+3*n, fast.count())

		close(slow.gate)
		synctest.Wait()
		got := slow.take()
		require.Len(t, got, 1+n)
		require.Equal(t, "add blocker 0 false", got[0])
		for i := range n {
			require.Equal(t, fmt.Sprintf("delete short-%d %d false", i, i+1000), got[1+i])
		}
		require.Zero(t, slowReg.Pending())
	})
}

// TestPendingCountsBufferAndBatch: Registration.Pending is bounded by the
// keys with pending changes plus the batch in flight, not by the keys
// alone (as its doc used to claim): a key of the batch being delivered
// can be pending in the buffer again.
func TestPendingCountsBufferAndBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		inf := newInformer(t, src, Options[*obj]{})
		gate := make(chan struct{})
		reg, err := inf.AddEventHandler(&recorder{t: t, gate: gate}, HandlerOptions{})
		require.NoError(t, err)
		start(t, inf)
		synctest.Wait()
		create(t, src, "blocker", 0)
		synctest.Wait() // inside OnAdd(blocker)
		for i := range batchSize {
			create(t, src, fmt.Sprint("k", i), 0)
		}
		synctest.Wait()
		require.Equal(t, 1+batchSize, reg.Pending())
		gate <- struct{}{} // OnAdd(blocker) returns; the next batch is all k*
		synctest.Wait()    // inside OnAdd(k0)
		require.Equal(t, batchSize, reg.Pending())
		for i := range batchSize {
			update(t, src, fmt.Sprint("k", i), 1)
		}
		synctest.Wait()
		require.Equal(t, 2*batchSize, reg.Pending(), "buffer plus batch: more than the %d keys there are", batchSize+1)
		close(gate)
		synctest.Wait()
		require.Zero(t, reg.Pending())
	})
}
