package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/reflector/sourcetest"
)

// change is one change of one key, as etcd recorded it or as a watch
// delivered it.
type change struct {
	rev     int64
	deleted bool
	value   string // the new value, or the last one of a deleted key
}

func (c change) String() string {
	if c.deleted {
		return fmt.Sprintf("@%d deleted (was %q)", c.rev, c.value)
	}
	return fmt.Sprintf("@%d %q", c.rev, c.value)
}

// follower keeps a map in step with a source the way a reflector does,
// with only the moves the test expects: list once, watch, and when a
// stream closes without an error watch again from the last version seen.
// It records every change each stream delivered, per key.
type follower struct {
	src *etcd.Source[*sourcetest.Object]

	mu      sync.Mutex
	cond    *sync.Cond
	listRV  int64
	last    int64
	state   map[string]*sourcetest.Object
	history map[string][]change
	watches int
	err     error
}

func newFollower(src *etcd.Source[*sourcetest.Object]) *follower {
	f := &follower{src: src, state: map[string]*sourcetest.Object{}, history: map[string][]change{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// run lists and watches until ctx ends or the source breaks its contract.
func (f *follower) run(ctx context.Context) {
	err := f.follow(ctx)
	f.mu.Lock()
	f.err = err
	f.cond.Broadcast()
	f.mu.Unlock()
}

func (f *follower) follow(ctx context.Context) error {
	var list reflector.List[*sourcetest.Object]
	err := retry(ctx, func() (err error) {
		list, err = f.src.List(ctx, reflector.ListOptions{})
		return err
	})
	if err != nil {
		return err
	}
	rev, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	f.mu.Lock()
	f.listRV, f.last = rev, rev
	for _, o := range list.Items {
		f.state[o.Key] = o
	}
	f.mu.Unlock()
	for {
		var ch <-chan reflector.Event[*sourcetest.Object]
		err := retry(ctx, func() (err error) {
			ch, err = f.src.Watch(ctx, reflector.WatchOptions{ResourceVersion: strconv.FormatInt(f.lastRev(), 10)})
			return err
		})
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.watches++
		f.mu.Unlock()
		for ev := range ch {
			if ev.Type == reflector.Error {
				return fmt.Errorf("Error event: %w", ev.Err)
			}
			if err := f.apply(ev); err != nil {
				return err
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

func (f *follower) lastRev() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

func (f *follower) apply(ev reflector.Event[*sourcetest.Object]) error {
	rev, err := strconv.ParseInt(ev.ResourceVersion, 10, 64)
	if err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if rev <= f.last && ev.Type != reflector.Bookmark {
		return fmt.Errorf("%v event of %q at %d, not after %d: duplicated or out of order", ev.Type, ev.Object.Key, rev, f.last)
	}
	switch ev.Type {
	case reflector.Added, reflector.Modified:
		f.state[ev.Object.Key] = ev.Object
		f.history[ev.Object.Key] = append(f.history[ev.Object.Key], change{rev: rev, value: ev.Object.Value})
	case reflector.Deleted:
		delete(f.state, ev.Object.Key)
		f.history[ev.Object.Key] = append(f.history[ev.Object.Key], change{rev: rev, deleted: true, value: ev.Object.Value})
	}
	f.last = max(f.last, rev)
	f.cond.Broadcast()
	return nil
}

// waitFor waits until the follower has seen revision rev.
func (f *follower) waitFor(t *testing.T, rev int64, within time.Duration) {
	t.Helper()
	timer := time.AfterFunc(within, func() {
		f.mu.Lock()
		f.cond.Broadcast()
		f.mu.Unlock()
	})
	defer timer.Stop()
	deadline := time.Now().Add(within)
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.last < rev && f.err == nil && time.Now().Before(deadline) {
		f.cond.Wait()
	}
	if f.err != nil {
		t.Fatalf("follower failed: %v", f.err)
	}
	if f.last < rev {
		t.Fatalf("follower at revision %d after %v, want %d", f.last, within, rev)
	}
}

// retry calls fn until it succeeds or ctx ends, pausing briefly after
// each failure (while etcd elects a leader, for example).
func retry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if errors.Is(err, reflector.ErrExpired) {
			return err
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// etcdHistory reads, with a raw etcd watch, every change under prefix in
// the revisions (from, to], per key (the object key).
func etcdHistory(t *testing.T, cli *clientv3.Client, prefix string, from, to int64) map[string][]change {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	out := map[string][]change{}
	if to <= from {
		return out
	}
	for resp := range cli.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(from+1), clientv3.WithPrevKV()) {
		if err := resp.Err(); err != nil {
			t.Fatalf("history watch: %v", err)
		}
		for _, ev := range resp.Events {
			if ev.Kv.ModRevision > to {
				return out
			}
			kv, deleted := ev.Kv, ev.Type == mvccpb.DELETE
			if deleted {
				kv = ev.PrevKv
			}
			o, err := etcd.JSONCodec[*sourcetest.Object]{}.Decode(kv.Value)
			if err != nil {
				t.Fatalf("decode %q: %v", kv.Key, err)
			}
			out[o.Key] = append(out[o.Key], change{rev: ev.Kv.ModRevision, deleted: deleted, value: o.Value})
			if ev.Kv.ModRevision == to {
				return out
			}
		}
	}
	t.Fatalf("history watch ended before revision %d", to)
	return nil
}

// compareHistories fails the test unless got and want hold the same
// changes per key.
func compareHistories(t *testing.T, got, want map[string][]change) {
	t.Helper()
	keys := slices.Sorted(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	bad := 0
	for _, k := range keys {
		if !slices.Equal(got[k], want[k]) {
			bad++
			if bad <= 5 {
				t.Errorf("key %q:\n delivered %v\n etcd has  %v", k, got[k], want[k])
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d keys differ", bad, len(keys))
	}
}
