package etcd_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/etcd"
	"github.com/ctrlkit/ctrlkit/source"
	"github.com/ctrlkit/ctrlkit/source/sourcetest"
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

// retry calls fn until it succeeds or ctx ends, pausing briefly after
// each failure (while etcd elects a leader, for example).
func retry(ctx context.Context, fn func() error) error {
	for {
		err := fn()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if errors.Is(err, source.ErrExpired) {
			return err
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// keyedChange is a change and the key it changed.
type keyedChange struct {
	key string
	change
}

// etcdHistory reads, with a raw etcd watch, every change under prefix in
// the revisions (from, to], in revision order.
func etcdHistory(t *testing.T, cli *clientv3.Client, prefix string, from, to int64) []keyedChange {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out []keyedChange
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
			out = append(out, keyedChange{o.Key, change{rev: ev.Kv.ModRevision, deleted: deleted, value: o.Value}})
			if ev.Kv.ModRevision == to {
				return out
			}
		}
	}
	t.Fatalf("history watch ended before revision %d", to)
	return nil
}

// recorder wraps a source and records, in order, every List an informer
// starts and every event each of its watches delivered.
type recorder struct {
	*etcd.Source[*sourcetest.Object]

	mu   sync.Mutex
	log  []*segment
	last int64 // the highest version delivered so far
}

// segment is one List (its version) or one watch (its starting version
// and what it delivered).
type segment struct {
	list   bool
	from   int64
	events []keyedChange
	// last is the highest version the watch delivered (events and
	// bookmarks).
	last int64
}

func (r *recorder) List(ctx context.Context, opts source.ListOptions) (source.List[*sourcetest.Object], error) {
	l, err := r.Source.List(ctx, opts)
	if err == nil && opts.Continue == "" {
		rev, _ := strconv.ParseInt(l.ResourceVersion, 10, 64)
		r.mu.Lock()
		r.log = append(r.log, &segment{list: true, from: rev, last: rev})
		r.last = max(r.last, rev)
		r.mu.Unlock()
	}
	return l, err
}

func (r *recorder) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*sourcetest.Object], error) {
	in, err := r.Source.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	from, _ := strconv.ParseInt(opts.ResourceVersion, 10, 64)
	seg := &segment{from: from, last: from}
	r.mu.Lock()
	r.log = append(r.log, seg)
	r.mu.Unlock()
	out := make(chan source.Event[*sourcetest.Object])
	go func() {
		defer close(out)
		for ev := range in {
			select {
			case out <- ev:
			case <-ctx.Done():
				for range in {
				}
				return
			}
			r.note(seg, ev)
		}
	}()
	return out, nil
}

// note records an event the reader received.
func (r *recorder) note(seg *segment, ev source.Event[*sourcetest.Object]) {
	rev, _ := strconv.ParseInt(ev.ResourceVersion, 10, 64)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev.Type {
	case source.Added, source.Modified, source.Deleted:
		seg.events = append(seg.events, keyedChange{ev.Object.Key, change{rev: rev, deleted: ev.Type == source.Deleted, value: ev.Object.Value}})
	case source.Bookmark:
	default:
		return
	}
	seg.last = max(seg.last, rev)
	r.last = max(r.last, rev)
}

// delivered returns the highest version delivered so far.
func (r *recorder) delivered() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// check verifies that every watch delivered exactly etcd's history from
// its starting version up to its last event, and that each watch started
// where the previous one (or the list before it) left off: together, no
// change was lost or delivered twice. history must start at or before the
// first list. It returns the number of lists and watches.
func (r *recorder) check(t *testing.T, history []keyedChange) (lists, watches int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var cur int64 = -1
	for i, seg := range r.log {
		if seg.list {
			lists++
			cur = seg.from
			continue
		}
		watches++
		if cur >= 0 && seg.from != cur {
			t.Errorf("watch %d starts at %d, but the informer had got to %d", i, seg.from, cur)
		}
		var want []keyedChange
		for _, c := range history {
			if c.rev > seg.from && len(seg.events) > 0 && c.rev <= seg.events[len(seg.events)-1].rev {
				want = append(want, c)
			}
		}
		if !slices.Equal(seg.events, want) {
			t.Errorf("watch %d from %d delivered %d changes, etcd has %d in that range", i, seg.from, len(seg.events), len(want))
			for j := range min(len(want), len(seg.events)) {
				if want[j] != seg.events[j] {
					t.Errorf("first difference at change %d: delivered %v %v, etcd has %v %v",
						j, seg.events[j].key, seg.events[j].change, want[j].key, want[j].change)
					break
				}
			}
		}
		cur = max(seg.from, seg.last)
	}
	return lists, watches
}
