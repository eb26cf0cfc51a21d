package cluster_test

import (
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/source"
)

// heapInUse returns the bytes of live heap objects after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Issue 28: 60 PUTs of one large ConfigMap pinned all 60 versions in the
// store's history. The history is now bounded by bytes (32 MiB per kind by
// default): the memory the writes leave behind stays near the bound, and
// the versions it forgot are expired for lists and watches.
func TestHistoryBoundedByBytes(t *testing.T) {
	const (
		updates = 60
		size    = 1000 << 10 // under ConfigMap's 1 MiB of data
		bound   = 32 << 20   // the default Options.HistoryBytes
	)
	ctx := t.Context()
	c := newMemory(t, cluster.Options{})
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big"}, Data: map[string]string{"k": "v"}}
	first, err := c.ConfigMaps().Create(ctx, cm)
	if err != nil {
		t.Fatal(err)
	}
	before := heapInUse()
	for i := range updates {
		// A new string each time, as a decoded request body is.
		cm.Data["k"] = strconv.Itoa(i) + strings.Repeat("x", size)
		if _, err := c.ConfigMaps().Update(ctx, cm, ""); err != nil {
			t.Fatal(err)
		}
	}
	grown := int64(heapInUse()) - int64(before)
	runtime.KeepAlive(c)
	t.Logf("60 updates of %d KiB left %d MiB on the heap", size>>10, grown>>20)
	// Today's code keeps all 60 versions (about 60 MB); the bound keeps
	// at most 32 MiB of them, plus the current object and the encoders'
	// pooled buffers (35 MiB measured).
	if limit := int64(bound + 12<<20); grown > limit {
		t.Errorf("the 60 updates left %d MiB on the heap, want at most %d MiB", grown>>20, limit>>20)
	}

	_, err = c.ConfigMaps().Watch(ctx, source.WatchOptions{ResourceVersion: first})
	if !errors.Is(err, source.ErrExpired) {
		t.Errorf("watch from the first version: %v, want ErrExpired", err)
	}
	_, err = c.ConfigMaps().List(ctx, source.ListOptions{ResourceVersion: first, ResourceVersionMatch: source.Exact})
	if !errors.Is(err, source.ErrExpired) {
		t.Errorf("list at the first version: %v, want ErrExpired", err)
	}
	got, _, err := c.ConfigMaps().Get(ctx, "default/big")
	if err != nil || !strings.HasPrefix(got.Data["k"], strconv.Itoa(updates-1)+"x") {
		t.Errorf("the current object was lost: %v", err)
	}
	// Recent versions are kept: a watch from a few writes back replays them.
	rv, _ := strconv.Atoi(got.ResourceVersion)
	ch, err := c.ConfigMaps().Watch(ctx, source.WatchOptions{ResourceVersion: strconv.Itoa(rv - 3)})
	if err != nil {
		t.Fatalf("watch from 3 writes back: %v", err)
	}
	for i := range 3 {
		if ev := <-ch; ev.Type != source.Modified {
			t.Fatalf("event %d: %v %v", i, ev.Type, ev.Err)
		}
	}
}

func TestLimitOptionsRejected(t *testing.T) {
	for name, opts := range map[string]cluster.Options{
		"negative HistoryBytes":   {HistoryBytes: -1},
		"negative MaxObjectBytes": {MaxObjectBytes: -1},
	} {
		if _, err := cluster.New(t.Context(), opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// ResourceVersions is a snapshot of every kind's version: a list at it
// (Exact) is the kind's state then, later writes not included.
func TestResourceVersions(t *testing.T) {
	ctx := t.Context()
	c := newMemory(t, cluster.Options{})
	if _, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	snap, err := c.ResourceVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := snap["pods"]; !ok {
		t.Fatalf("no version of pods in %v", snap)
	}
	if _, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "b"}}); err != nil {
		t.Fatal(err)
	}
	l, err := c.ConfigMaps().List(ctx, source.ListOptions{ResourceVersion: snap["configmaps"], ResourceVersionMatch: source.Exact})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Items) != 1 || l.Items[0].Name != "a" {
		t.Fatalf("the list at the snapshot has %d config maps, want a alone", len(l.Items))
	}
	now, err := c.ResourceVersions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if now["configmaps"] == snap["configmaps"] || now["pods"] != snap["pods"] {
		t.Fatalf("versions %v then %v: only configmaps' should move", snap, now)
	}
}
