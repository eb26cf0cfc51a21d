package kube_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/sample-apiserver/pkg/apis/wardle/v1alpha1"
	clientset "k8s.io/sample-apiserver/pkg/generated/clientset/versioned"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/kube"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// counted counts the Lists and Watches an informer makes through a
// source, to tell a resumed watch from a relist.
type counted struct {
	kube.Ordered[*v1alpha1.Flunder]
	lists, watches atomic.Int64
}

func (c *counted) List(ctx context.Context, opts source.ListOptions) (source.List[*v1alpha1.Flunder], error) {
	c.lists.Add(1)
	return c.Ordered.List(ctx, opts)
}

func (c *counted) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*v1alpha1.Flunder], error) {
	c.watches.Add(1)
	return c.Ordered.Watch(ctx, opts)
}

// handled records what an informer's handler was told, by key.
type handled struct {
	mu      sync.Mutex
	added   map[string]bool
	deleted map[string]bool // key → finalStateUnknown
}

func (h *handled) funcs() informer.HandlerFuncs[*v1alpha1.Flunder] {
	h.added, h.deleted = map[string]bool{}, map[string]bool{}
	return informer.HandlerFuncs[*v1alpha1.Flunder]{
		AddFunc: func(f *v1alpha1.Flunder, _ bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.added[kube.Key(f)] = true
		},
		DeleteFunc: func(f *v1alpha1.Flunder, unknown bool) {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.deleted[kube.Key(f)] = unknown
		},
	}
}

func (h *handled) deletedAs(key string) (unknown, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	unknown, ok = h.deleted[key]
	return unknown, ok
}

// TestInformerThroughFaults runs an informer against the real server
// through a proxy and breaks the connection twice: a watch cut, after
// which the informer resumes from its last version without a relist;
// and an outage during which an object is deleted and etcd is
// compacted, after which the resumed watch gets 410 Gone and the
// informer relists, inferring the delete (finalStateUnknown).
func TestInformerThroughFaults(t *testing.T) {
	ns := newNamespace("informer")
	proxy, err := server.NewProxy()
	require.NoError(t, err)
	t.Cleanup(proxy.Close)

	cs, err := clientset.NewForConfig(proxy.Config(server))
	require.NoError(t, err)
	src, err := kube.New[*v1alpha1.Flunder, *v1alpha1.FlunderList](cs.WardleV1alpha1().RESTClient(), "flunders", kube.Options{Namespace: ns})
	require.NoError(t, err)
	lw := &counted{Ordered: kube.Ordered[*v1alpha1.Flunder]{Source: src}}
	direct := flunders(t, ns) // writes bypass the proxy

	ctx := t.Context()
	_, err = direct.Create(ctx, newFlunder(ns, "a", ""))
	require.NoError(t, err)

	inf, err := informer.New[*v1alpha1.Flunder](lw, kube.Key, informer.Options[*v1alpha1.Flunder]{
		// Fast retries: the outage below makes the watch fail until it ends.
		Backoff: reflector.Backoff{Initial: 50 * time.Millisecond, Cap: 200 * time.Millisecond},
	})
	require.NoError(t, err)
	var h handled
	reg, err := inf.AddEventHandler(h.funcs(), informer.HandlerOptions{})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	require.True(t, informer.WaitForCacheSync(ctx, reg.HasSynced))

	has := func(key string) func() bool {
		return func() bool { _, ok := inf.Lister().Get(key); return ok }
	}
	gone := func(key string) func() bool {
		return func() bool { _, ok := inf.Lister().Get(key); return !ok }
	}
	// Waits on a real server are polls, bounded by 10s.
	const wait, tick = 10 * time.Second, 10 * time.Millisecond

	// An event on the watch, so that it is established (not a short watch).
	_, err = direct.Create(ctx, newFlunder(ns, "b", ""))
	require.NoError(t, err)
	require.Eventually(t, has(ns+"/b"), wait, tick, "b never reached the cache")
	require.EqualValues(t, 1, lw.lists.Load())

	// A watch cut: the informer watches again from its last version.
	watches := lw.watches.Load()
	proxy.Cut()
	_, err = direct.Create(ctx, newFlunder(ns, "c", ""))
	require.NoError(t, err)
	require.Eventually(t, has(ns+"/c"), wait, tick, "c never reached the cache after the cut")
	require.EqualValues(t, 1, lw.lists.Load(), "the informer relisted after a watch cut")
	require.Greater(t, lw.watches.Load(), watches, "the informer did not watch again")

	// An outage with a delete and a compaction: the informer's version
	// expires, the watch fails with 410 and it relists.
	proxy.Block()
	_, err = direct.Delete(ctx, ns+"/a", "")
	require.NoError(t, err)
	_, err = direct.Create(ctx, newFlunder(ns, "d", ""))
	require.NoError(t, err)
	_, err = server.Compact(ctx)
	require.NoError(t, err)
	proxy.Unblock()
	require.Eventually(t, gone(ns+"/a"), wait, tick, "the delete of a was never inferred")
	require.Eventually(t, has(ns+"/d"), wait, tick, "d never reached the cache after the relist")
	require.EqualValues(t, 2, lw.lists.Load(), "the informer should have relisted once")
	require.Eventually(t, func() bool { _, ok := h.deletedAs(ns + "/a"); return ok }, wait, tick, "the handler was not told of a's delete")
	unknown, _ := h.deletedAs(ns + "/a")
	require.True(t, unknown, "a delete inferred by a relist must be finalStateUnknown")
}

// TestInformerWatchList syncs an informer by watch-list: one Watch with
// sendInitialEvents, ended by the initial-events-end bookmark, and no
// List at all.
func TestInformerWatchList(t *testing.T) {
	ctx := t.Context()
	ns := newNamespace("watchlist")
	direct := flunders(t, ns)
	for _, name := range []string{"a", "b", "c"} {
		_, err := direct.Create(ctx, newFlunder(ns, name, ""))
		require.NoError(t, err)
	}
	lw := &counted{Ordered: kube.Ordered[*v1alpha1.Flunder]{Source: direct}}
	inf, err := informer.New[*v1alpha1.Flunder](lw, kube.Key, informer.Options[*v1alpha1.Flunder]{UseWatchList: true})
	require.NoError(t, err)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done })
	require.True(t, informer.WaitForCacheSync(ctx, inf.HasSynced))
	require.Equal(t, 3, inf.Lister().Len())
	require.EqualValues(t, 0, lw.lists.Load(), "watch-list fell back to a List")

	_, err = direct.Create(ctx, newFlunder(ns, "d", ""))
	require.NoError(t, err)
	// A poll on a real server, bounded by 10s.
	require.Eventually(t, func() bool { _, ok := inf.Lister().Get(ns + "/d"); return ok }, 10*time.Second, 10*time.Millisecond)
	require.EqualValues(t, 1, lw.watches.Load(), "the watch-list stream should go on as the watch")
}
