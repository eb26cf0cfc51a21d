package etcd_test

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

// handlerLog records what an informer handler was told, per key.
type handlerLog struct {
	mu sync.Mutex
	// state is the handler's view: the last object it was given per key.
	state map[string]string
	// inferred are the keys whose delete was inferred from a relist,
	// with the last state the handler was given.
	inferred map[string]string
	// observed counts deletes the informer saw itself.
	observed int
	calls    int
}

func newHandlerLog() *handlerLog {
	return &handlerLog{state: map[string]string{}, inferred: map[string]string{}}
}

func (h *handlerLog) handler() informer.Handler[*sourcetest.Object] {
	return informer.HandlerFuncs[*sourcetest.Object]{
		AddFunc: func(o *sourcetest.Object, _ bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.calls++
			h.state[o.Key] = o.Value
		},
		UpdateFunc: func(_, o *sourcetest.Object) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.calls++
			h.state[o.Key] = o.Value
		},
		DeleteFunc: func(o *sourcetest.Object, finalStateUnknown bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.calls++
			if finalStateUnknown {
				h.inferred[o.Key] = o.Value
			} else {
				h.observed++
			}
			delete(h.state, o.Key)
		},
	}
}

// waitState waits until the handler's view equals want.
func (h *handlerLog) waitState(t *testing.T, want map[string]string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h.mu.Lock()
		ok := maps.Equal(h.state, want)
		n := len(h.state)
		h.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the handler's view (%d keys) differs from etcd's (%d keys) after %v", n, len(want), within)
		}
		time.Sleep(20 * time.Millisecond) // a real etcd: a bounded poll (the deadline above)
	}
}

// etcdState lists the source and returns key → value, and the revision.
func etcdState(t *testing.T, src *etcd.Source[*sourcetest.Object]) (map[string]string, string) {
	t.Helper()
	l, err := src.List(t.Context(), source.ListOptions{})
	require.NoError(t, err)
	m := make(map[string]string, len(l.Items))
	for _, o := range l.Items {
		m[o.Key] = o.Value
	}
	return m, l.ResourceVersion
}

// cacheState returns the informer cache as key → value.
func cacheState(inf *informer.Informer[*sourcetest.Object]) map[string]string {
	m := map[string]string{}
	for k, o := range inf.Lister().All() {
		m[k] = o.Value
	}
	return m
}

// TestInformerRelistsAfterCompaction runs an informer over 10,000 objects
// in etcd: it lists them (in pages), follows updates and deletes, then
// loses its connection while objects change and etcd compacts the
// history it would need to resume. When the connection is back, its watch
// fails with ErrExpired, it relists, and its cache and its handler's view
// equal etcd again; the keys deleted while it was away are delivered as
// deletes with finalStateUnknown, carrying the last state it knew.
func TestInformerRelistsAfterCompaction(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	proxy, err := etcdtest.NewProxy(c.Members()[0].ClientURL())
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	direct := newClient(t, c)
	const prefix = "/informer/"
	writer := objectSource(t, direct, prefix)
	watched := objectSource(t, newClient(t, c, proxy.URL()), prefix)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()

	const n = 10000
	key := func(i int) string { return fmt.Sprintf("obj-%05d", i) }
	objs := make([]*sourcetest.Object, n)
	for i := range objs {
		objs[i] = &sourcetest.Object{Key: key(i), Value: "v0"}
	}
	begin := time.Now()
	seed(t, direct, prefix, objs)
	t.Logf("seeded %d objects in %v", n, time.Since(begin))

	inf, err := informer.New[*sourcetest.Object](watched, sourcetest.ObjectKey, informer.Options[*sourcetest.Object]{
		PageSize: 1000,
		Logger:   quiet,
	})
	require.NoError(t, err)
	log := newHandlerLog()
	reg, err := inf.AddEventHandler(log.handler(), informer.HandlerOptions{})
	require.NoError(t, err)
	runDone := make(chan error, 1)
	go func() { runDone <- inf.Run(ctx) }()
	begin = time.Now()
	require.True(t, informer.WaitForCacheSync(ctx, reg.HasSynced))
	require.Equal(t, n, inf.Lister().Len())
	t.Logf("synced %d objects in %v", n, time.Since(begin))

	// Connected: updates and deletes arrive as watch events.
	var lastRev atomic.Int64
	noteRV := func(rv string, err error) error {
		rev, _ := strconv.ParseInt(rv, 10, 64)
		for cur := lastRev.Load(); rev > cur && !lastRev.CompareAndSwap(cur, rev); cur = lastRev.Load() {
		}
		return err
	}
	inParallel(t, 0, 200, func(i int) error {
		if i%4 == 0 {
			return noteRV(writer.Delete(ctx, key(i), ""))
		}
		return noteRV(writer.Update(ctx, &sourcetest.Object{Key: key(i), Value: "v1"}, ""))
	})
	require.NoError(t, inf.WaitForResourceVersion(ctx, strconv.FormatInt(lastRev.Load(), 10)))
	want := map[string]string{}
	for i := range n {
		switch {
		case i >= 200:
			want[key(i)] = "v0"
		case i%4 != 0:
			want[key(i)] = "v1"
		}
	}
	require.Equal(t, want, cacheState(inf))
	log.waitState(t, want, 30*time.Second)
	log.mu.Lock()
	require.Equal(t, 50, log.observed)
	require.Empty(t, log.inferred)
	log.mu.Unlock()

	// Disconnected: changes, deletes (some of keys just updated), new
	// keys; then etcd compacts the history the informer would need.
	proxy.Cut()
	deletedAway := map[string]string{}
	for i := 200; i < 400; i++ {
		switch i % 4 {
		case 0:
			deletedAway[key(i)] = "v0"
		case 1:
			deletedAway[key(i-200)] = "v1"
		}
	}
	inParallel(t, 200, 400, func(i int) error {
		var err error
		switch i % 4 {
		case 0:
			_, err = writer.Delete(ctx, key(i), "")
		case 1:
			_, err = writer.Delete(ctx, key(i-200), "")
		default:
			_, err = writer.Update(ctx, &sourcetest.Object{Key: key(i), Value: "v2"}, "")
		}
		return err
	})
	inParallel(t, n, n+20, func(i int) error {
		_, err := writer.Create(ctx, &sourcetest.Object{Key: key(i), Value: "new"})
		return err
	})
	compactedAt, err := compact(ctx, direct)
	require.NoError(t, err)
	begin = time.Now()
	proxy.Restore()

	want, wantRV := etcdState(t, writer)
	require.Len(t, want, n-200/4-len(deletedAway)+20)
	require.NoError(t, inf.WaitForResourceVersion(ctx, wantRV))
	t.Logf("caught up after the compaction at %d in %v", compactedAt, time.Since(begin))
	require.Equal(t, want, cacheState(inf), "the cache differs from etcd after the relist")
	log.waitState(t, want, 30*time.Second)
	log.mu.Lock()
	defer log.mu.Unlock()
	require.Equal(t, deletedAway, log.inferred,
		"every key deleted while the informer was away is an inferred delete carrying its last known state")
	require.Equal(t, 50, log.observed)

	cancel()
	require.ErrorIs(t, <-runDone, context.Canceled)
}

// inParallel calls fn(i) for i in [from, to) on 8 goroutines and fails
// the test if any call fails.
func inParallel(t *testing.T, from, to int, fn func(i int) error) {
	t.Helper()
	var (
		wg   sync.WaitGroup
		next atomic.Int64
		errs = make(chan error, to-from)
	)
	next.Store(int64(from))
	for range 8 {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < to; i = int(next.Add(1) - 1) {
				if err := fn(i); err != nil {
					errs <- fmt.Errorf("%d: %w", i, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// handled is one handler call for one key.
type handled struct {
	kind    string // "add", "update" or "delete"
	rv      string // the object's resourceVersion
	value   string
	initial bool // OnAdd of the initial list
}

// historyHandler records every call per key.
type historyHandler struct {
	mu      sync.Mutex
	perKey  map[string][]handled
	state   map[string]string
	ncalls  int
	nonsync bool
}

func newHistoryHandler() *historyHandler {
	return &historyHandler{perKey: map[string][]handled{}, state: map[string]string{}}
}

func (h *historyHandler) record(key string, c handled) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ncalls++
	h.perKey[key] = append(h.perKey[key], c)
	if c.kind == "delete" {
		delete(h.state, key)
	} else {
		h.state[key] = c.value
	}
}

func (h *historyHandler) OnAdd(o *sourcetest.Object, initial bool) {
	h.record(o.Key, handled{"add", o.ResourceVersion, o.Value, initial})
}

func (h *historyHandler) OnUpdate(_, o *sourcetest.Object) {
	h.record(o.Key, handled{"update", o.ResourceVersion, o.Value, false})
}

func (h *historyHandler) OnDelete(o *sourcetest.Object, finalStateUnknown bool) {
	if finalStateUnknown {
		h.mu.Lock()
		h.nonsync = true
		h.mu.Unlock()
	}
	h.record(o.Key, handled{"delete", o.ResourceVersion, o.Value, false})
}

func (h *historyHandler) calls() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ncalls
}

func (h *historyHandler) waitState(t *testing.T, want map[string]string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h.mu.Lock()
		ok := maps.Equal(h.state, want)
		h.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the handler's view differs from etcd's after %v", within)
		}
		time.Sleep(20 * time.Millisecond) // a real etcd: a bounded poll (the deadline above)
	}
}

// check verifies each key's calls against etcd: the initial list, then
// changes found in etcd's history of the key in strictly increasing
// positions — in order, none twice, none invented. Coalescing may skip
// intermediate states.
func (h *historyHandler) check(t *testing.T, initial map[string]string, history []keyedChange) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.nonsync {
		t.Error("the handler got an inferred delete: the informer relisted")
	}
	etcdKey := map[string][]change{}
	for _, c := range history {
		etcdKey[c.key] = append(etcdKey[c.key], c.change)
	}
	for key, calls := range h.perKey {
		hist := etcdKey[key]
		pos := -1
		for i, c := range calls {
			if i == 0 && c.initial {
				if v, ok := initial[key]; !ok || v != c.value {
					t.Errorf("key %s: initial add of %q, the list had %q", key, c.value, v)
				}
				continue
			}
			j := pos + 1
			for ; j < len(hist); j++ {
				e := hist[j]
				if c.kind == "delete" && e.deleted && e.value == c.value {
					break
				}
				if c.kind != "delete" && !e.deleted && e.value == c.value && strconv.FormatInt(e.rev, 10) == c.rv {
					break
				}
			}
			if j == len(hist) {
				t.Errorf("key %s: call %d (%+v) is not in etcd's history after position %d: %v", key, i, c, pos, hist)
				break
			}
			pos = j
		}
	}
}
