package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cluster/clustertest"
	"github.com/ctrlkit/ctrlkit/source"
)

// Kubelets' watches (spec.nodeName=<node>) are served by one shared
// watch of the pods, indexed by node: each sees its own pods only, a
// watch started from an earlier version gets the events since, a version
// older than the shared watch is expired, and once every watch is closed
// nothing keeps running (the bubble would report a blocked goroutine).
func TestIndexedNodeWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c := newMemory(t, cluster.Options{})
		const nodes = 20
		watches := make([]<-chan source.Event[*api.Pod], nodes)
		for i := range nodes {
			lw, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: fmt.Sprintf("spec.nodeName=n%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			if watches[i], err = lw.Watch(ctx, source.WatchOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		before, err := c.Pods().List(ctx, source.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 * nodes {
			name := fmt.Sprintf("p%d", i)
			if _, err := c.Pods().Create(ctx, clustertest.Pod("default", name, nil)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Bind(ctx, "default", name, fmt.Sprintf("n%d", i%nodes)); err != nil {
				t.Fatal(err)
			}
		}
		for i, ch := range watches {
			for _, want := range []string{fmt.Sprintf("p%d", i), fmt.Sprintf("p%d", i+nodes)} {
				if got, _ := recv(t, ch); got != (podEvent{source.Added, want}) {
					t.Fatalf("n%d: got %+v, want Added %s", i, got, want)
				}
			}
			if got, ok := recv(t, ch); ok {
				t.Fatalf("n%d saw another node's pod: %+v", i, got)
			}
		}

		// From the version before the pods: Filter seeds from a List at that
		// version, the shared watch replays what came after it.
		lw, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName=n3,status.phase!=Failed"})
		if err != nil {
			t.Fatal(err)
		}
		late, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: before.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"p3", "p23"} {
			if got, _ := recv(t, late); got != (podEvent{source.Added, want}) {
				t.Fatalf("late watch: got %+v, want Added %s", got, want)
			}
		}
		if _, err := c.Pods().DeleteWith(ctx, "default/p3", cluster.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
		for _, ch := range []<-chan source.Event[*api.Pod]{watches[3], late} {
			var last podEvent
			for ev, ok := recv(t, ch); ok; ev, ok = recv(t, ch) {
				last = ev
			}
			if last != (podEvent{source.Deleted, "p3"}) {
				t.Fatalf("after the delete: last event %+v", last)
			}
		}
		if got, ok := recv(t, watches[4]); ok {
			t.Fatalf("n4 saw %+v", got)
		}
		cancel()
		synctest.Wait()

		// Every watch closed: the shared watch stopped. The next one starts
		// it again from now, so an older version is expired (a relist).
		lw, err = c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName=n1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := lw.Watch(t.Context(), source.WatchOptions{ResourceVersion: before.ResourceVersion}); !errors.Is(err, source.ErrExpired) {
			t.Fatalf("watch from before the shared watch started: %v, want ErrExpired", err)
		}
	})
}

// The shared watch keeps its last 4,096 events in a ring: past it, a
// watch from a version still in the ring gets exactly the events after
// it, and one from a version that left the ring is expired.
func TestIndexedWatchRingWraps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		c := newMemory(t, cluster.Options{})
		lw, err := c.Pods().Select(cluster.SelectOptions{FieldSelector: "spec.nodeName=n1"})
		if err != nil {
			t.Fatal(err)
		}
		keep, err := lw.Watch(ctx, source.WatchOptions{}) // keeps the shared watch running
		if err != nil {
			t.Fatal(err)
		}
		var rvs []string  // the version of each bind to n1
		const pods = 2100 // 4,200 events: create and bind each
		for i := range pods {
			name := fmt.Sprintf("p%d", i)
			if _, err := c.Pods().Create(ctx, clustertest.Pod("default", name, nil)); err != nil {
				t.Fatal(err)
			}
			rv, err := c.Bind(ctx, "default", name, "n1")
			if err != nil {
				t.Fatal(err)
			}
			rvs = append(rvs, rv)
		}
		for i := range pods {
			if got, _ := recv(t, keep); got != (podEvent{source.Added, fmt.Sprintf("p%d", i)}) {
				t.Fatalf("event %d: got %+v", i, got)
			}
		}
		synctest.Wait()
		// The ring holds the last 4,096 of 4,200 events: from the create
		// of p52 (event 105) on.
		if _, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: rvs[10]}); !errors.Is(err, source.ErrExpired) {
			t.Fatalf("watch from a version the ring no longer holds: %v, want ErrExpired", err)
		}
		from, err := lw.Watch(ctx, source.WatchOptions{ResourceVersion: rvs[pods-4]})
		if err != nil {
			t.Fatal(err)
		}
		for i := pods - 3; i < pods; i++ {
			if got, _ := recv(t, from); got != (podEvent{source.Added, fmt.Sprintf("p%d", i)}) {
				t.Fatalf("from %s: got %+v, want Added p%d", rvs[pods-4], got, i)
			}
		}
		synctest.Wait()
		select {
		case ev := <-from:
			t.Fatalf("from %s: unexpected %+v", rvs[pods-4], ev)
		default:
		}
	})
}
