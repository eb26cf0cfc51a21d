package informer

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/source"
)

// The proof of convergence (DESIGN.md guarantees 1, 2, 3, 5 and 6): writers
// change a few hundred keys at random while every fault the fake source
// offers is injected, with a fast, a slow, a panicking, a late and a
// removed handler. Once the faults stop and the source is quiet:
//
//   - the cache equals the source: same keys, objects and resourceVersions;
//   - every index equals the index recomputed from the source;
//   - every handler's last notification per key matches the source;
//   - every key a handler saw and that then vanished got exactly one
//     delete (each handler's per-key add/delete sequence is well-formed,
//     adds and deletes balance with the final state; a delete of a key
//     the handler never saw, whose add coalesced into it, is allowed);
//   - per key, no handler ever saw an older state after a newer one, and
//     every OnUpdate's old object is the one the handler last saw;
//   - no handler was ever called concurrently with itself, and the
//     removed one never after RemoveEventHandler returned;
//   - nothing leaks (the synctest bubble).
//
// CI runs chaosCISeeds; CTRLKIT_SOAK=1 runs CTRLKIT_SOAK_SEEDS seeds
// (default 500) starting at CTRLKIT_SOAK_FIRST (default 1000).
func TestChaos(t *testing.T) {
	seeds := chaosCISeeds
	ops := 800
	if os.Getenv("CTRLKIT_SOAK") != "" {
		n := envInt(t, "CTRLKIT_SOAK_SEEDS", 500)
		first := envInt(t, "CTRLKIT_SOAK_FIRST", 1000)
		seeds = nil
		for i := range n {
			seeds = append(seeds, uint64(first+i))
		}
		ops = envInt(t, "CTRLKIT_SOAK_OPS", 1500)
	}
	for _, seed := range seeds {
		t.Run("seed="+strconv.FormatUint(seed, 10), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runChaos(t, seed, ops) })
		})
	}
}

var chaosCISeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8}

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, name)
	return n
}

const (
	chaosKeys    = 300
	chaosWriters = 3
	chaosNodes   = 7
)

func chaosKey(i int) string { return fmt.Sprintf("ns%d/k%03d", i%4, i) }

func parseRV(t testing.TB, rv string) int64 {
	n, err := strconv.ParseInt(rv, 10, 64)
	require.NoError(t, err)
	return n
}

// auditor is a handler that checks every call against what it knew.
type auditor struct {
	t       testing.TB
	name    string
	rng     *rand.Rand    // used only from the handler's goroutine
	sleep   time.Duration // up to this long per call
	panicky bool

	mu      sync.Mutex
	running bool
	removed bool
	last    map[string]*obj // the object last seen per key; nil: absent
	rv      map[string]int64
	adds    map[string]int
	deletes map[string]int
	calls   int
}

func newAuditor(t testing.TB, name string, seed uint64) *auditor {
	return &auditor{
		t: t, name: name, rng: rand.New(rand.NewPCG(seed, 77)),
		last: map[string]*obj{}, rv: map[string]int64{}, adds: map[string]int{}, deletes: map[string]int{},
	}
}

func (a *auditor) begin(op, key string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		a.t.Errorf("%s: %s %s while another call runs", a.name, op, key)
	}
	if a.removed {
		a.t.Errorf("%s: %s %s after RemoveEventHandler returned", a.name, op, key)
	}
	a.running = true
	a.calls++
}

func (a *auditor) end(key string) {
	a.mu.Lock()
	a.running = false
	a.mu.Unlock()
	if a.sleep > 0 {
		time.Sleep(time.Duration(a.rng.Int64N(int64(a.sleep))))
	}
	if a.panicky && a.rng.IntN(5) == 0 {
		panic("auditor " + a.name + " panics on " + key)
	}
}

// seeLocked checks the monotonic resourceVersion of a new state.
func (a *auditor) seeLocked(op string, o *obj) {
	rv := parseRV(a.t, o.RV)
	if rv < a.rv[o.Key] {
		a.t.Errorf("%s: %s %s at %d after having seen %d", a.name, op, o.Key, rv, a.rv[o.Key])
	}
	a.rv[o.Key] = rv
}

func (a *auditor) OnAdd(o *obj, _ bool) {
	a.begin("add", o.Key)
	a.mu.Lock()
	if a.last[o.Key] != nil {
		a.t.Errorf("%s: add of %s, which it has", a.name, o.Key)
	}
	a.seeLocked("add", o)
	a.last[o.Key] = o
	a.adds[o.Key]++
	a.mu.Unlock()
	a.end(o.Key)
}

func (a *auditor) OnUpdate(old, o *obj) {
	a.begin("update", o.Key)
	a.mu.Lock()
	switch cur := a.last[o.Key]; {
	case cur == nil:
		a.t.Errorf("%s: update of %s, which it does not have", a.name, o.Key)
	case cur != old:
		a.t.Errorf("%s: update of %s from %s, but it last saw %s", a.name, o.Key, old.RV, cur.RV)
	}
	a.seeLocked("update", o)
	a.last[o.Key] = o
	a.mu.Unlock()
	a.end(o.Key)
}

func (a *auditor) OnDelete(o *obj, _ bool) {
	a.begin("delete", o.Key)
	a.mu.Lock()
	// A delete of a key it does not have is allowed: the object was
	// created and deleted before this handler got to it, and its add
	// coalesced into the delete.
	if a.last[o.Key] != nil {
		a.deletes[o.Key]++
	}
	a.seeLocked("delete", o)
	a.last[o.Key] = nil
	a.mu.Unlock()
	a.end(o.Key)
}

// verify checks the auditor's final view against the source's items.
func (a *auditor) verify(t *testing.T, want map[string]*obj) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for key := range a.last {
		if _, ok := want[key]; !ok && a.last[key] != nil {
			t.Errorf("%s: %s was deleted at the source but the handler still has it at %s", a.name, key, a.last[key].RV)
		}
	}
	for key, o := range want {
		got := a.last[key]
		if got == nil {
			t.Errorf("%s: %s exists at %s but the handler does not have it", a.name, key, o.RV)
			continue
		}
		if got.RV != o.RV || got.Val != o.Val || got.Node != o.Node {
			t.Errorf("%s: %s last seen %+v, source has %+v", a.name, key, *got, *o)
		}
	}
	for key := range a.adds {
		present := 0
		if a.last[key] != nil {
			present = 1
		}
		if a.adds[key]-a.deletes[key] != present {
			t.Errorf("%s: %s: %d adds, %d deletes, present=%d", a.name, key, a.adds[key], a.deletes[key], present)
		}
	}
}

type chaosStats struct {
	writes, faults, silent, poisoned, quarantined atomic.Int64
}

// poisonVal marks a version the informer cannot take (its Transform
// fails): a writer writes one and fixes it at once, as a bad release
// followed by a rollback would.
const poisonVal = -1

var errChaosPoison = errors.New("chaos: poisoned version")

func runChaos(t *testing.T, seed uint64, ops int) {
	var stats chaosStats
	rng := rand.New(rand.NewPCG(seed, 1))
	src, err := fake.NewSource(keyOf, fake.Options[*obj]{
		Copy:             copyObj,
		Logger:           quiet,
		HistorySize:      50 + rng.IntN(400),
		WatchBuffer:      4 + rng.IntN(60),
		BookmarkInterval: time.Duration(rng.IntN(3)) * time.Second,
	})
	require.NoError(t, err)
	for i := range chaosKeys / 2 {
		_, err := src.Create(context.Background(), &obj{Key: chaosKey(i), Node: "n0"})
		require.NoError(t, err)
	}
	opts := Options[*obj]{
		Logger: quiet,
		Indexers: indexer.Indexers[*obj]{
			"node":      byNode,
			"namespace": func(o *obj) ([]string, error) { return []string{o.Key[:3]}, nil },
		},
		ResyncPeriod: time.Duration(1+rng.IntN(5)) * time.Second,
		UseWatchList: seed%3 == 1,
		Transform: func(o *obj) (*obj, error) {
			if o.Val == poisonVal {
				return nil, errChaosPoison
			}
			return o, nil
		},
		OnBadObject: func(err error) {
			if !errors.Is(err, errChaosPoison) {
				t.Errorf("unexpected bad object: %v", err)
			}
			stats.quarantined.Add(1)
		},
		MutationCheck: &MutationCheck[*obj]{Period: 5 * time.Second, OnMutation: func(key string) {
			t.Errorf("the cached object of %s was mutated", key)
		}},
	}
	if seed%2 == 0 {
		opts.PageSize = int64(7 + rng.IntN(100))
	}
	inf, err := New(src, keyOf, opts)
	require.NoError(t, err)

	fast := newAuditor(t, "fast", seed)
	slow := newAuditor(t, "slow", seed+1)
	slow.sleep = 20 * time.Millisecond
	panicky := newAuditor(t, "panicky", seed+2)
	panicky.panicky = true
	doomed := newAuditor(t, "removed", seed+3)
	late := newAuditor(t, "late", seed+4)
	var regs []*Registration
	for _, a := range []*auditor{fast, slow, panicky, doomed} {
		reg, err := inf.AddEventHandler(a, HandlerOptions{Name: a.name, ResyncPeriod: time.Duration(rng.IntN(3)-1) * time.Second})
		require.NoError(t, err)
		regs = append(regs, reg)
	}

	ctx, cancel := context.WithCancel(context.Background())
	runDone := make(chan error, 1)
	go func() { runDone <- inf.Run(ctx) }()
	defer func() {
		cancel()
		<-runDone
	}()

	var wg sync.WaitGroup
	for w := range chaosWriters {
		wrng := rand.New(rand.NewPCG(seed, uint64(100+w)))
		wg.Go(func() { chaosWriter(t, src, wrng, ops, &stats) })
	}
	faultsDone := make(chan struct{})
	stopFaults := make(chan struct{})
	frng := rand.New(rand.NewPCG(seed, 2))
	go func() {
		defer close(faultsDone)
		chaosFaults(src, frng, stopFaults, &stats)
	}()
	// Midway: add a late handler and remove one, both while events flow.
	time.Sleep(time.Duration(ops/4) * 10 * time.Millisecond)
	lateReg, err := inf.AddEventHandler(late, HandlerOptions{Name: late.name})
	require.NoError(t, err)
	require.NoError(t, inf.RemoveEventHandler(regs[3]))
	doomed.mu.Lock()
	doomed.removed = true
	doomed.mu.Unlock()
	regs = append(regs[:3], lateReg)

	wg.Wait()
	close(stopFaults)
	<-faultsDone

	// Heal: no more injected failures or delays; then a visible write and
	// a relist at or after it, which is the only thing that can repair
	// events the source never sent (MissNextEvents).
	src.FailLists(0, nil)
	src.FailWatches(0, nil)
	src.DelayLists(0)
	src.DelayWatches(0)
	src.MissNextEvents(0)
	fence, err := src.Create(context.Background(), &obj{Key: "zz/fence"})
	require.NoError(t, err)
	// Bounded in virtual time, so a cache that never converges fails the
	// test instead of hanging it.
	healCtx, healCancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer healCancel()
	require.NoError(t, inf.WaitForResourceVersion(healCtx, fence), "the cache never reached the fence")
	// A plain watch failure, no compaction: the relist it causes serves
	// the latest state, which repairs every event the source never sent.
	src.CutWatches(errors.New("chaos heal: stream broke"))
	time.Sleep(45 * time.Second) // past the longest backoff (30s)
	synctest.Wait()
	require.NoError(t, inf.WaitForResourceVersion(healCtx, src.ResourceVersion()), "the cache never caught up")
	synctest.Wait()

	// The cache equals the source.
	want := map[string]*obj{}
	for key, o := range src.Items() {
		want[key] = o
	}
	got := map[string]*obj{}
	for key, o := range inf.Lister().All() {
		got[key] = o
	}
	require.Equal(t, len(want), len(got), "cache size")
	for key, o := range want {
		c, ok := got[key]
		if !ok {
			t.Errorf("cache lacks %s", key)
			continue
		}
		require.Equal(t, *o, *c, "cache object of %s", key)
	}
	// Every index equals the index recomputed from the source.
	for name, f := range opts.Indexers {
		recomputed := map[string][]string{}
		for key, o := range want {
			vals, err := f(o)
			require.NoError(t, err)
			for _, v := range vals {
				recomputed[v] = append(recomputed[v], key)
			}
		}
		values, err := inf.Lister().IndexValues(name)
		require.NoError(t, err)
		require.ElementsMatch(t, slices.Collect(mapKeys(recomputed)), values, "values of index %s", name)
		for v, keys := range recomputed {
			slices.Sort(keys)
			gotKeys, err := inf.Lister().IndexKeys(name, v)
			require.NoError(t, err)
			require.Equal(t, keys, gotKeys, "index %s=%s", name, v)
		}
	}
	// Every handler converged; the removed one stopped.
	for _, a := range []*auditor{fast, slow, panicky, late} {
		a.verify(t, want)
	}
	for _, reg := range regs {
		require.True(t, reg.HasSynced(), reg.Name())
		// A slow handler with a resync period may never be idle: resyncs
		// keep coming. Its backlog is still bounded by the keys.
		require.LessOrEqual(t, reg.Pending(), chaosKeys+1+batchSize, reg.Name())
	}
	require.Positive(t, regs[2].Panics())

	t.Logf("seed %d: %d writes (%d silent, %d poisoned, %d quarantined), %d faults, %d lists, %d watches; calls fast=%d slow=%d panicky=%d (panics %d) late=%d removed=%d",
		seed, stats.writes.Load(), stats.silent.Load(), stats.poisoned.Load(), stats.quarantined.Load(), stats.faults.Load(), src.ListCalls(), src.WatchCalls(),
		fast.calls, slow.calls, panicky.calls, regs[2].Panics(), late.calls, doomed.calls)
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// chaosWriter does ops random writes: creates, updates (half of them
// conditional on the version it read) and deletes, sometimes in bursts.
func chaosWriter(t *testing.T, src *fake.Source[*obj], rng *rand.Rand, ops int, stats *chaosStats) {
	ctx := context.Background()
	for range ops {
		if rng.IntN(4) != 0 {
			time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond)
		}
		key := chaosKey(rng.IntN(chaosKeys))
		cur, rv, err := src.Get(ctx, key)
		switch {
		case errors.Is(err, source.ErrNotFound):
			_, err = src.Create(ctx, &obj{Key: key, Val: rng.IntN(1000), Node: fmt.Sprint("n", rng.IntN(chaosNodes))})
		case err != nil:
		case rng.IntN(4) == 0:
			_, err = src.Delete(ctx, key, "")
		default:
			next := copyObj(cur)
			next.Val = rng.IntN(1000)
			if rng.IntN(3) == 0 {
				next.Node = fmt.Sprint("n", rng.IntN(chaosNodes))
			}
			ifVersion := ""
			if rng.IntN(2) == 0 {
				ifVersion = rv
			}
			if rng.IntN(25) == 0 {
				// A poisoned version, fixed by the very next write.
				poison := copyObj(next)
				poison.Val = poisonVal
				if _, err = src.Update(ctx, poison, ifVersion); err == nil {
					stats.poisoned.Add(1)
					next.RV = "" // the fix is unconditional
					ifVersion = ""
				}
			}
			if err == nil {
				_, err = src.Update(ctx, next, ifVersion)
			}
		}
		switch {
		case err == nil:
			stats.writes.Add(1)
		case errors.Is(err, source.ErrNotFound), errors.Is(err, source.ErrAlreadyExists),
			errors.Is(err, source.ErrConflict):
			// Another writer got there first.
		default:
			t.Errorf("write %s: %v", key, err)
		}
	}
}

// chaosFaults injects a random fault every now and then until stop.
func chaosFaults(src *fake.Source[*obj], rng *rand.Rand, stop <-chan struct{}, stats *chaosStats) {
	expired := fmt.Errorf("chaos: %w", source.ErrExpired)
	for {
		select {
		case <-stop:
			return
		case <-time.After(time.Duration(20+rng.IntN(300)) * time.Millisecond):
		}
		stats.faults.Add(1)
		switch rng.IntN(11) {
		case 0:
			src.FailLists(1+rng.IntN(3), nil)
		case 1:
			src.FailWatches(1+rng.IntN(3), nil)
		case 2:
			src.CutWatches(nil)
		case 3:
			src.CutWatches(expired)
		case 4:
			src.Compact()
		case 5:
			n := 1 + rng.IntN(5)
			stats.silent.Add(int64(n))
			src.MissNextEvents(n)
		case 6:
			src.DelayLists(time.Duration(rng.IntN(3)) * 100 * time.Millisecond)
		case 7:
			src.DelayWatches(time.Duration(rng.IntN(3)) * 100 * time.Millisecond)
		case 8:
			src.FailLists(1, fmt.Errorf("chaos list: %w", source.ErrExpired))
			src.CutWatches(expired)
		case 9:
			// Lost events, then a plain watch failure without compaction:
			// the relist (not older than the last version) repairs them.
			n := 1 + rng.IntN(5)
			stats.silent.Add(int64(n))
			src.MissNextEvents(n)
			time.Sleep(time.Duration(rng.IntN(100)) * time.Millisecond)
			src.CutWatches(errors.New("chaos: stream broke"))
		case 10:
			src.FailWatches(1+rng.IntN(3), fmt.Errorf("chaos: 429: %w", source.ErrTransient))
		}
	}
}
