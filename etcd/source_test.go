package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/etcd/etcdtest"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
)

func TestNewValidatesOptions(t *testing.T) {
	cli := new(clientv3.Client)
	key := sourcetest.ObjectKey
	_, err := etcd.New(nil, etcd.Options[*sourcetest.Object]{Prefix: "/p/", KeyFunc: key})
	require.ErrorContains(t, err, "etcd: New: nil client")
	for _, tc := range []struct {
		opts etcd.Options[*sourcetest.Object]
		want string
	}{
		{etcd.Options[*sourcetest.Object]{KeyFunc: key}, "Prefix is empty"},
		{etcd.Options[*sourcetest.Object]{Prefix: "/pods", KeyFunc: key}, `Prefix "/pods" does not end with "/"`},
		{etcd.Options[*sourcetest.Object]{Prefix: "/p/"}, "KeyFunc is nil"},
		{etcd.Options[*sourcetest.Object]{Prefix: "/p/", KeyFunc: key, PageSize: -1}, "PageSize is negative"},
		{etcd.Options[*sourcetest.Object]{Prefix: "/p/", KeyFunc: key, BookmarkInterval: -1}, "BookmarkInterval is negative"},
	} {
		_, err := etcd.New(cli, tc.opts)
		require.ErrorContains(t, err, tc.want)
	}
	src, err := etcd.New(cli, etcd.Options[*sourcetest.Object]{Prefix: "/p/", KeyFunc: key})
	require.NoError(t, err)
	require.Equal(t, "/p/", src.Prefix())
	c, err := src.CompareResourceVersions("9", "10")
	require.NoError(t, err)
	require.Equal(t, -1, c)
	_, err = src.CompareResourceVersions("9", "x")
	require.ErrorContains(t, err, `malformed resource version "x"`)
}

// TestUndecodableValuesAreQuarantined stores garbage under the prefix:
// Get fails with a *DecodeError naming the key; List and Watch leave the
// bad values out, report each to OnDecodeError, and go on with every
// other key — one bad value never keeps a reader from syncing (issue
// 12.2: 0 of 50 good objects were cached before).
func TestUndecodableValuesAreQuarantined(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := newClient(t, c)
	var mu sync.Mutex
	var reported []string
	src := objectSource(t, cli, "/bad/", func(o *etcd.Options[*sourcetest.Object]) {
		o.OnDecodeError = func(err *etcd.DecodeError) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, err.Key)
		}
	})
	takeReported := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := reported
		reported = nil
		return out
	}
	ctx := t.Context()
	start, err := src.Create(ctx, &sourcetest.Object{Key: "a", Value: "fine"})
	require.NoError(t, err)
	_, err = cli.Put(ctx, "/bad/b", "{not json")
	require.NoError(t, err)
	_, err = cli.Put(ctx, "/bad/c", "null")
	require.NoError(t, err)
	_, err = src.Create(ctx, &sourcetest.Object{Key: "d", Value: "fine"})
	require.NoError(t, err)

	requireDecodeError := func(err error, key string) {
		t.Helper()
		var de *etcd.DecodeError
		require.ErrorAs(t, err, &de)
		require.Equal(t, key, de.Key)
		require.Positive(t, de.Revision)
		require.ErrorContains(t, err, fmt.Sprintf("etcd: decode the value of %q", key))
	}
	_, _, err = src.Get(ctx, "b")
	requireDecodeError(err, "/bad/b")
	_, _, err = src.Get(ctx, "c")
	requireDecodeError(err, "/bad/c")
	require.ErrorContains(t, err, "the stored value is null")

	keys := func(items []*sourcetest.Object) []string {
		var out []string
		for _, o := range items {
			out = append(out, o.Key)
		}
		return out
	}
	l, err := src.List(ctx, source.ListOptions{})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "d"}, keys(l.Items))
	require.Equal(t, []string{"/bad/b", "/bad/c"}, takeReported())

	// In pages too, and in a watch's initial events.
	l, err = src.List(ctx, source.ListOptions{Limit: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, keys(l.Items))
	takeReported()
	ch, err := src.Watch(ctx, source.WatchOptions{SendInitialEvents: true})
	require.NoError(t, err)
	var initial []string
	for ev := range ch {
		if ev.InitialEventsEnd {
			break
		}
		require.Equal(t, source.Added, ev.Type)
		initial = append(initial, ev.Object.Key)
	}
	require.Equal(t, []string{"a", "d"}, initial)
	require.Equal(t, []string{"/bad/b", "/bad/c"}, takeReported())

	// A watch skips the bad events and delivers the good ones after them.
	ch, err = src.Watch(ctx, source.WatchOptions{ResourceVersion: start})
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, source.Added, ev.Type)
	require.Equal(t, "d", ev.Object.Key)
	require.Equal(t, []string{"/bad/b", "/bad/c"}, takeReported())

	// A good value written over a bad one is taken normally.
	_, err = src.Update(ctx, &sourcetest.Object{Key: "b", Value: "repaired"}, "")
	require.NoError(t, err)
	ev = <-ch
	require.Equal(t, source.Modified, ev.Type)
	require.Equal(t, "repaired", ev.Object.Value)

	// The delete of a bad value has no good last state: it is left out
	// too (a relist infers it).
	_, err = cli.Delete(ctx, "/bad/c")
	require.NoError(t, err)
	_, err = src.Delete(ctx, "a", "")
	require.NoError(t, err)
	ev = <-ch
	require.Equal(t, source.Deleted, ev.Type)
	require.Equal(t, "a", ev.Object.Key)
	require.Equal(t, []string{"/bad/c"}, takeReported())
}

// failingCodec fails to encode objects whose value is "poison".
type failingCodec struct {
	etcd.JSONCodec[*sourcetest.Object]
}

var errPoison = errors.New("poison")

func (c failingCodec) Encode(o *sourcetest.Object) ([]byte, error) {
	if o.Value == "poison" {
		return nil, errPoison
	}
	return c.JSONCodec.Encode(o)
}

func TestBadInputIsAnError(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := newClient(t, c)
	ctx := t.Context()
	src := objectSource(t, cli, "/input/", func(o *etcd.Options[*sourcetest.Object]) {
		o.Codec = failingCodec{}
		o.KeyFunc = func(o *sourcetest.Object) string {
			if o.Key == "panic" {
				panic("key func exploded")
			}
			return o.Key
		}
	})
	_, err := src.Create(ctx, &sourcetest.Object{Key: "", Value: "x"})
	require.ErrorContains(t, err, "etcd: create: the key function returned an empty key")
	_, err = src.Create(ctx, &sourcetest.Object{Key: "panic"})
	require.ErrorContains(t, err, "etcd: create: the key function panicked: key func exploded")
	_, err = src.Update(ctx, &sourcetest.Object{Key: "a", Value: "poison"}, "")
	require.ErrorIs(t, err, errPoison)
	require.ErrorContains(t, err, `etcd: update "a": encode: poison`)
	_, err = src.Delete(ctx, "", "")
	require.ErrorContains(t, err, "etcd: delete: empty key")
	_, _, err = src.Get(ctx, "")
	require.ErrorContains(t, err, "etcd: get: empty key")
	_, err = src.List(ctx, source.ListOptions{Limit: -1})
	require.ErrorContains(t, err, "etcd: list: negative limit")
	_, err = src.List(ctx, source.ListOptions{ResourceVersion: "0", ResourceVersionMatch: source.Exact})
	require.ErrorIs(t, err, source.ErrExpired)
	_, err = src.List(ctx, source.ListOptions{ResourceVersion: "99999"})
	require.ErrorIs(t, err, source.ErrFutureVersion, "not older than a future version")

	// A nil context is an error from every call (issue 12.6).
	var nilCtx context.Context
	_, _, err = src.Get(nilCtx, "a")
	require.ErrorContains(t, err, "etcd: context is nil")
	_, err = src.List(nilCtx, source.ListOptions{})
	require.ErrorContains(t, err, "etcd: context is nil")
	_, err = src.Watch(nilCtx, source.WatchOptions{})
	require.ErrorContains(t, err, "etcd: context is nil")
	_, err = src.Create(nilCtx, &sourcetest.Object{Key: "a"})
	require.ErrorContains(t, err, "etcd: context is nil")
	_, err = src.Update(nilCtx, &sourcetest.Object{Key: "a"}, "")
	require.ErrorContains(t, err, "etcd: context is nil")
	_, err = src.Delete(nilCtx, "a", "")
	require.ErrorContains(t, err, "etcd: context is nil")

	// Nothing was written.
	resp, err := cli.Get(ctx, "/input/", clientv3.WithPrefix(), clientv3.WithCountOnly())
	require.NoError(t, err)
	require.Zero(t, resp.Count)
}

// TestListReadsPagesAtOneRevision lists without a limit in pages of 3:
// the result is one snapshot, in key order, at the revision asked for.
func TestListReadsPagesAtOneRevision(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli := newClient(t, c)
	ctx := t.Context()
	src := objectSource(t, cli, "/pages/", func(o *etcd.Options[*sourcetest.Object]) { o.PageSize = 3 })
	var rvs []string
	for i := range 10 {
		rv, err := src.Create(ctx, &sourcetest.Object{Key: fmt.Sprintf("k%02d", i), Value: "0"})
		require.NoError(t, err)
		rvs = append(rvs, rv)
	}
	mid := rvs[6]
	_, err := src.Delete(ctx, "k03", "")
	require.NoError(t, err)
	_, err = src.Update(ctx, &sourcetest.Object{Key: "k08", Value: "1"}, "")
	require.NoError(t, err)

	keys := func(items []*sourcetest.Object) (out []string) {
		for _, o := range items {
			out = append(out, o.Key+"="+o.Value+"@"+o.ResourceVersion)
		}
		return out
	}
	at, err := src.List(ctx, source.ListOptions{ResourceVersion: mid, ResourceVersionMatch: source.Exact})
	require.NoError(t, err)
	require.Equal(t, mid, at.ResourceVersion)
	require.Empty(t, at.Continue)
	var want []string
	for i := range 7 {
		want = append(want, fmt.Sprintf("k%02d=0@%s", i, rvs[i]))
	}
	require.Equal(t, want, keys(at.Items))

	now, err := src.List(ctx, source.ListOptions{})
	require.NoError(t, err)
	require.Len(t, now.Items, 9)
	require.Equal(t, "k08", now.Items[7].Key)
	require.Equal(t, "1", now.Items[7].Value)

	// The watch-list reads the same pages, at one revision.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch, err := src.Watch(wctx, source.WatchOptions{SendInitialEvents: true, ResourceVersion: mid})
	require.NoError(t, err)
	var initial []*sourcetest.Object
	for ev := range ch {
		if ev.Type == source.Bookmark && ev.InitialEventsEnd {
			require.Equal(t, mid, ev.ResourceVersion)
			break
		}
		require.Equal(t, source.Added, ev.Type)
		require.Equal(t, mid, ev.ResourceVersion)
		initial = append(initial, ev.Object)
	}
	require.Equal(t, want, keys(initial))
	// Then the writes after mid.
	for _, want := range []string{"k07", "k08", "k09", "k03", "k08"} {
		ev := <-ch
		require.Equal(t, want, ev.Object.Key)
	}
}

// TestWatchExpiresWhenCompactedWhileDisconnected: a watch whose client is
// cut off while the history it needs is compacted ends with an Error
// event wrapping source.ErrExpired when the client reconnects.
func TestWatchExpiresWhenCompactedWhileDisconnected(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	proxy, err := etcdtest.NewProxy(c.Members()[0].ClientURL())
	require.NoError(t, err)
	t.Cleanup(proxy.Close)
	direct := newClient(t, c)
	ctx := t.Context()
	writer := objectSource(t, direct, "/compact/")
	watcher := objectSource(t, newClient(t, c, proxy.URL()), "/compact/")

	rv, err := writer.Create(ctx, &sourcetest.Object{Key: "a", Value: "0"})
	require.NoError(t, err)
	ch, err := watcher.Watch(ctx, source.WatchOptions{ResourceVersion: rv})
	require.NoError(t, err)
	_, err = writer.Update(ctx, &sourcetest.Object{Key: "a", Value: "1"}, "")
	require.NoError(t, err)
	ev := <-ch
	require.Equal(t, source.Modified, ev.Type)

	proxy.Cut()
	for i := range 3 {
		_, err = writer.Update(ctx, &sourcetest.Object{Key: "a", Value: fmt.Sprint(i + 2)}, "")
		require.NoError(t, err)
	}
	_, err = compact(ctx, direct)
	require.NoError(t, err)
	proxy.Restore()

	select {
	case ev := <-ch:
		require.Equal(t, source.Error, ev.Type, "got %v", ev.Type)
		require.ErrorIs(t, ev.Err, source.ErrExpired)
	case <-time.After(20 * time.Second):
		t.Fatal("no Error event after the reconnection")
	}
	_, open := <-ch
	require.False(t, open)
}

// TestWatchClosesWhenTheClientCloses: a broken stream that is not an
// expiry closes the channel without an Error event, for the caller to
// resume from its last version.
func TestWatchClosesWhenTheClientCloses(t *testing.T) {
	c := etcdtest.New(t, etcdtest.Options{})
	cli, err := c.Client()
	require.NoError(t, err)
	src := objectSource(t, cli, "/closing/")
	ch, err := src.Watch(t.Context(), source.WatchOptions{})
	require.NoError(t, err)
	require.NoError(t, cli.Close())
	select {
	case ev, open := <-ch:
		require.False(t, open, "got a %v event (%v)", ev.Type, ev.Err)
	case <-time.After(10 * time.Second):
		t.Fatal("the watch did not close with its client")
	}
}
