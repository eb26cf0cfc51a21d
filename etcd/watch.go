package etcd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/source"
)

// Watch implements source.ListWatcher: an etcd watch on the prefix from
// opts.ResourceVersion+1 ("" is the current revision), with the previous
// values, so that Deleted events carry the object's last state.
//
// Errors are returned when the starting point is wrong: a malformed
// version; one that etcd has compacted away (source.ErrExpired); one
// newer than the cluster's revision (source.ErrFutureVersion). Once the
// channel is returned, compaction of the history the watch still needs
// (it fell behind, or was compacted between the check and the start)
// ends the stream with an Error event wrapping source.ErrExpired. A
// stored value that does not decode is quarantined (see DecodeError):
// its event is left out and the stream goes on. A stream that breaks for another reason (the
// member lost its leader: watches require one, so a partitioned member
// cannot hold a watch silently; the client was closed) is logged and the
// channel is closed without an Error event, so that the caller resumes
// from the last resourceVersion it saw. While the client reconnects to
// another member by itself, the stream goes on without a gap.
//
// With opts.SendInitialEvents the source reads the prefix at the current
// revision (or exactly at opts.ResourceVersion when given) in pages of
// Options.PageSize, sends each object as an Added event carrying that
// revision, then a Bookmark with InitialEventsEnd at that revision, and
// then watches from the next one.
//
// With opts.AllowBookmarks, a stream idle for Options.BookmarkInterval
// asks etcd for a progress notification and turns it into a Bookmark
// carrying the revision up to which the watch has delivered everything.
//
// The channel is unbuffered and closed at the end by the watch's
// goroutine, which exits after the etcd watch has been torn down. Cancel
// ctx to release a watch you stop reading.
func (s *Source[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	if ctx == nil {
		return nil, errNilContext
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w := &watch[T]{src: s, opts: opts, out: make(chan source.Event[T])}
	var (
		first page[T]
		from  int64
		err   error
	)
	if opts.SendInitialEvents {
		var rev int64
		if opts.ResourceVersion != "" {
			if rev, err = source.ParseRevision(opts.ResourceVersion); err != nil {
				return nil, fmt.Errorf("etcd: watch: %w", err)
			}
			if rev == 0 {
				return nil, fmt.Errorf("etcd: watch: initial events at revision 0, before etcd's first revision: %w", source.ErrExpired)
			}
		}
		if first, err = s.page(ctx, s.opts.Prefix, rev, s.opts.PageSize); err != nil {
			return nil, fmt.Errorf("etcd: watch: initial events: %w", err)
		}
		from = first.rev
	} else if from, err = s.startRevision(ctx, opts.ResourceVersion); err != nil {
		return nil, err
	}
	go w.run(ctx, first, from)
	return w.out, nil
}

// startRevision returns the revision after which a watch starts: the
// current one for "", else rv, checked to be neither compacted nor in the
// future.
func (s *Source[T]) startRevision(ctx context.Context, rv string) (int64, error) {
	var (
		rev int64
		ops []clientv3.OpOption
	)
	if rv != "" {
		var err error
		if rev, err = source.ParseRevision(rv); err != nil {
			return 0, fmt.Errorf("etcd: watch: %w", err)
		}
		if rev == 0 {
			// From the beginning of history: nothing to check.
			return 0, nil
		}
		ops = append(ops, clientv3.WithRev(rev), clientv3.WithCountOnly())
	}
	// A read of the prefix key itself (not the range) is cheap, and gives
	// the cluster's revision or the error for rev.
	resp, err := s.client.Get(ctx, s.opts.Prefix, ops...)
	if err != nil {
		return 0, fmt.Errorf("etcd: watch from %q: %w", rv, mapErr(err))
	}
	if rv == "" {
		return resp.Header.Revision, nil
	}
	return rev, nil
}

// watch is the state of one Watch call, owned by its goroutine.
type watch[T any] struct {
	src  *Source[T]
	opts source.WatchOptions
	out  chan source.Event[T]
}

// run sends the initial events, if any, then the etcd watch's events
// after from, until ctx ends or the stream breaks.
func (w *watch[T]) run(ctx context.Context, first page[T], from int64) {
	defer close(w.out)
	if w.opts.SendInitialEvents && !w.initial(ctx, first, from) {
		return
	}
	s := w.src
	if ctx.Err() != nil {
		return
	}
	// clientv3 multiplexes the watches whose contexts carry the same gRPC
	// metadata onto one stream, and answers RequestProgress on the stream
	// its context's metadata selects: wctx serves for both, so progress
	// requests reach this watch's stream (and the watches sharing it,
	// which ignore or use the notification as they see fit).
	wctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	wch := s.client.Watch(wctx, s.opts.Prefix,
		clientv3.WithRange(s.end), clientv3.WithRev(from+1), clientv3.WithPrevKV())
	defer func() {
		cancel()
		// Drain until clientv3 has torn the etcd watch down.
		for range wch {
		}
	}()

	var (
		tick     <-chan time.Time
		timer    *time.Timer
		interval = s.opts.BookmarkInterval
	)
	if w.opts.AllowBookmarks {
		timer = time.NewTimer(interval)
		defer timer.Stop()
		tick = timer.C
	}
	last := from // everything up to last has been delivered
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick:
			if err := s.client.RequestProgress(wctx); err != nil && ctx.Err() == nil {
				s.opts.Logger.Debug("etcd: watch: progress request failed", "prefix", s.opts.Prefix, "err", err)
			}
			timer.Reset(interval)
		case resp, ok := <-wch:
			if !ok {
				if ctx.Err() == nil {
					s.opts.Logger.Warn("etcd: watch stream closed; the caller resumes from its last version",
						"prefix", s.opts.Prefix, "revision", last)
				}
				return
			}
			if err := resp.Err(); err != nil {
				w.broken(ctx, &resp, last, err)
				return
			}
			if resp.IsProgressNotify() {
				if rev := resp.Header.Revision; w.opts.AllowBookmarks && rev >= last {
					last = rev
					if !w.send(ctx, source.Event[T]{Type: source.Bookmark, ResourceVersion: source.FormatRevision(rev)}) {
						return
					}
				}
				continue
			}
			for _, ev := range resp.Events {
				e, err := w.event(ev)
				var de *DecodeError
				if errors.As(err, &de) {
					w.src.quarantine(de)
					last = ev.Kv.ModRevision
					continue
				}
				if err != nil {
					w.send(ctx, source.Event[T]{Type: source.Error, Err: err})
					return
				}
				last = ev.Kv.ModRevision
				if !w.send(ctx, e) {
					return
				}
			}
			if timer != nil {
				timer.Reset(interval)
			}
		}
	}
}

// initial sends the objects at revision rev, starting with the page
// already read, then the Bookmark that ends the initial events. It
// reports whether the watch goes on.
func (w *watch[T]) initial(ctx context.Context, p page[T], rev int64) bool {
	rv := source.FormatRevision(rev)
	for {
		for i, obj := range p.items {
			if !w.send(ctx, source.Event[T]{Type: source.Added, Object: obj, ResourceVersion: rv}) {
				return false
			}
			var zero T
			p.items[i] = zero
		}
		if p.next == "" {
			break
		}
		var err error
		if p, err = w.src.page(ctx, p.next, rev, w.src.opts.PageSize); err != nil {
			if ctx.Err() == nil {
				w.send(ctx, source.Event[T]{Type: source.Error, Err: fmt.Errorf("etcd: watch: initial events: %w", err)})
			}
			return false
		}
	}
	return w.send(ctx, source.Event[T]{Type: source.Bookmark, ResourceVersion: rv, InitialEventsEnd: true})
}

// broken handles a watch response that ends the stream.
func (w *watch[T]) broken(ctx context.Context, resp *clientv3.WatchResponse, last int64, err error) {
	if ctx.Err() != nil {
		return
	}
	if resp.CompactRevision != 0 {
		w.send(ctx, source.Event[T]{Type: source.Error, Err: fmt.Errorf(
			"etcd: watch: the events after revision %d were compacted (history starts at %d): %w",
			last, resp.CompactRevision, source.ErrExpired)})
		return
	}
	w.src.opts.Logger.Warn("etcd: watch stream broke; the caller resumes from its last version",
		"prefix", w.src.opts.Prefix, "revision", last, "err", err)
}

// event converts an etcd event.
func (w *watch[T]) event(ev *clientv3.Event) (source.Event[T], error) {
	var e source.Event[T]
	rev := ev.Kv.ModRevision
	e.ResourceVersion = source.FormatRevision(rev)
	var err error
	switch ev.Type {
	case mvccpb.PUT:
		e.Type = source.Modified
		if ev.IsCreate() {
			e.Type = source.Added
		}
		e.Object, err = w.src.decodeRV(ev.Kv, e.ResourceVersion)
	case mvccpb.DELETE:
		e.Type = source.Deleted
		if ev.PrevKv == nil {
			return e, fmt.Errorf("etcd: watch: the delete of %q at revision %d carries no previous value: %w",
				ev.Kv.Key, rev, source.ErrExpired)
		}
		e.Object, err = w.src.decode(ev.PrevKv)
	default:
		return e, fmt.Errorf("etcd: watch: event of unknown type %v for %q at revision %d", ev.Type, ev.Kv.Key, rev)
	}
	return e, err
}

// send delivers ev unless ctx ends first; it reports whether it did.
func (w *watch[T]) send(ctx context.Context, ev source.Event[T]) bool {
	select {
	case w.out <- ev:
		return true
	case <-ctx.Done():
		return false
	}
}
