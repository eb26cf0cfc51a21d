package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// TestClusterMembersFailMidStream runs an informer on a prefix of a
// 3-member cluster through a client that knows all three endpoints, while
// writers keep writing through another. Every member is stopped in turn
// (each was the raft leader when stopped), so the member the informer's
// watch is connected to is stopped at some point too; writes go on
// through the others. Afterwards the cache and the handler's view equal
// etcd, the watches delivered exactly etcd's history (nothing lost,
// nothing repeated, no relist needed), and the handler's per-key history
// follows etcd's.
func TestClusterMembersFailMidStream(t *testing.T) {
	begin := time.Now()
	c := etcdtest.New(t, etcdtest.Options{Members: 3})
	t.Logf("cluster up after %v", time.Since(begin))
	const prefix = "/cluster/"
	watchSrc := objectSource(t, newClient(t, c), prefix)
	writeSrc := objectSource(t, newClient(t, c), prefix)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	const keys = 100
	var objs []*sourcetest.Object
	for i := range keys {
		objs = append(objs, &sourcetest.Object{Key: fmt.Sprintf("k%03d", i), Value: "0"})
	}
	seeded := seed(t, newClient(t, c), prefix, objs)
	initial := map[string]string{}
	for _, o := range objs {
		initial[o.Key] = o.Value
	}

	rec := &recorder{Source: watchSrc}
	inf, err := informer.New[*sourcetest.Object](rec, sourcetest.ObjectKey, informer.Options[*sourcetest.Object]{Logger: quiet})
	require.NoError(t, err)
	hist := newHistoryHandler()
	reg, err := inf.AddEventHandler(hist, informer.HandlerOptions{})
	require.NoError(t, err)
	runDone := make(chan error, 1)
	go func() { runDone <- inf.Run(ctx) }()
	require.True(t, informer.WaitForCacheSync(ctx, reg.HasSynced))

	// Writers: updates, deletes and re-creates on random keys, retried
	// through elections; an ambiguous failure may apply a write twice,
	// which etcd's history then shows too.
	var (
		writes  atomic.Int64
		maxRev  atomic.Int64
		stopW   = make(chan struct{})
		writers sync.WaitGroup
	)
	noteRev := func(rv string) {
		rev, _ := strconv.ParseInt(rv, 10, 64)
		for {
			cur := maxRev.Load()
			if rev <= cur || maxRev.CompareAndSwap(cur, rev) {
				return
			}
		}
	}
	for w := range 4 {
		writers.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			for n := 0; ; n++ {
				select {
				case <-stopW:
					return
				default:
				}
				key := fmt.Sprintf("k%03d", r.IntN(keys))
				obj := &sourcetest.Object{Key: key, Value: fmt.Sprintf("w%d-%d", w, n)}
				var rv string
				var err error
				wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
				switch r.IntN(10) {
				case 0:
					rv, err = writeSrc.Delete(wctx, key, "")
				case 1:
					rv, err = writeSrc.Create(wctx, obj)
				default:
					rv, err = writeSrc.Update(wctx, obj, "")
				}
				wcancel()
				switch {
				case err == nil:
					writes.Add(1)
					noteRev(rv)
				case errors.Is(err, source.ErrNotFound), errors.Is(err, source.ErrAlreadyExists):
				case ctx.Err() != nil:
					return
				default:
					// The cluster is electing or the member is gone: retry (a real
					// etcd, so real time, not testing/synctest).
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}

	waitWrites := func(what string, n int64) {
		t.Helper()
		start := writes.Load()
		deadline := time.Now().Add(15 * time.Second)
		for writes.Load() < start+n {
			if time.Now().After(deadline) {
				t.Fatalf("%s: only %d writes in 15s", what, writes.Load()-start)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitWrites("before the failures", 30)
	t.Logf("writing after %v", time.Since(begin))

	leader, ok := c.Leader()
	require.True(t, ok, "the cluster has no leader")
	order := []*etcdtest.Member{leader}
	for _, m := range c.Members() {
		if m != leader {
			order = append(order, m)
		}
	}
	for _, m := range order {
		wasLeader := m.IsLeader()
		t0 := time.Now()
		m.Stop()
		t1 := time.Now()
		waitWrites("with "+m.Name()+" stopped", 30)
		t2 := time.Now()
		require.NoError(t, m.Restart())
		t.Logf("stopped (%v), 30 writes (%v) and restarted (%v) %s (leader: %v); %d writes so far",
			t1.Sub(t0), t2.Sub(t1), time.Since(t2), m.Name(), wasLeader, writes.Load())
	}
	waitWrites("after the restarts", 20)
	close(stopW)
	writers.Wait()

	final := maxRev.Load()
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	require.NoError(t, inf.WaitForResourceVersion(wctx, strconv.FormatInt(final, 10)))
	l, err := writeSrc.List(ctx, source.ListOptions{ResourceVersion: strconv.FormatInt(final, 10)})
	require.NoError(t, err)
	want := map[string]string{}
	for _, o := range l.Items {
		want[o.Key] = o.Value
	}
	require.Equal(t, want, cacheState(inf), "the cache differs from etcd")
	hist.waitState(t, want, 30*time.Second)
	cancel()
	require.ErrorIs(t, <-runDone, context.Canceled)

	// Every change the informer's watches delivered is etcd's history,
	// with nothing lost or repeated; the handler's per-key history is in
	// etcd's order (a handler that falls behind gets intermediate states
	// coalesced, never reordered or repeated).
	history := etcdHistory(t, newClient(t, c), prefix, seeded, final)
	lists, watches := rec.check(t, history)
	hist.check(t, initial, history)
	t.Logf("%d writes up to revision %d; the informer listed %d time(s), opened %d watches; its handler got %d calls",
		writes.Load(), final, lists, watches, hist.calls())
	require.Equal(t, 1, lists, "the informer had to relist")
	t.Logf("checked after %v", time.Since(begin))
}
