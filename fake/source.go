package fake

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/btree"

	"github.com/ctrlkit/ctrlkit/source"
)

// Defaults of Options.
const (
	// DefaultHistorySize is the default Options.HistorySize.
	DefaultHistorySize = 10000
	// DefaultWatchBuffer is the default Options.WatchBuffer.
	DefaultWatchBuffer = 1024
	// DefaultHistoryBytes is the default Options.HistoryBytes: 32 MiB.
	// A program with one source per kind, as the cluster store of
	// controllers/cluster (about 25 kinds), then pins at most about
	// 800 MiB of past objects (as counted by Size) in the worst case, and
	// ordinary objects (a few KiB) still fill the HistorySize window
	// before the byte bound.
	DefaultHistoryBytes = 32 << 20
	// DefaultWatchBudget is the default Options.WatchBudget: 100 ms, as
	// kube-apiserver's watch cache.
	DefaultWatchBudget = 100 * time.Millisecond
)

// ErrTooLarge is wrapped by the error of a Create or Update whose object
// is larger than Options.MaxObjectSize.
var ErrTooLarge = errors.New("fake: object too large")

// Options configures a Source. The zero value is valid.
type Options[T any] struct {
	// HistorySize is how many writes the source remembers. Watches and
	// lists at a resourceVersion older than the oldest remembered write
	// fail with source.ErrExpired. Default DefaultHistorySize;
	// negative is an error.
	HistorySize int

	// HistoryBytes bounds, besides HistorySize, the bytes the history
	// keeps alive: the sum of Size over the past versions of objects
	// that only the history still holds (an object replaced by an Update
	// or removed by a Delete). The current objects are never counted nor
	// forgotten. When a write takes the sum over the bound, the oldest
	// writes are forgotten until it is within, exactly as when HistorySize
	// is reached: lists and watches at versions older than the remaining
	// history fail with source.ErrExpired. Applied only when Size is set.
	// Default DefaultHistoryBytes; negative is an error.
	HistoryBytes int64

	// Size returns the approximate number of bytes obj keeps alive, for
	// HistoryBytes and MaxObjectSize; the length of its encoding is a good
	// measure. It is called once per Create and Update, on the object
	// stored, outside the source's lock, and must not change obj. When nil
	// (the default) objects are not measured: the history is bounded by
	// HistorySize alone, HistoryStats reports no bytes, and MaxObjectSize
	// must be zero.
	Size func(T) int

	// MaxObjectSize, when positive, makes Create and Update refuse an
	// object whose Size is larger, with an error wrapping ErrTooLarge, as
	// etcd refuses values over its --max-request-bytes. Zero (the
	// default) sets no limit; negative is an error. Requires Size.
	MaxObjectSize int

	// WatchBuffer is how many live events may wait for one watcher's
	// reader. A write that finds a watcher's buffer full waits for its
	// reader to take an event, within the budget of WatchBudget; a
	// watcher still full when the budget has run out is ended with an
	// Error event wrapping source.ErrExpired, so that its client
	// relists. Events replayed from history and initial events do not
	// count. Default DefaultWatchBuffer; negative is an error.
	WatchBuffer int

	// CatchUp, when set, keeps a watcher whose buffer is still full when
	// the budget has run out instead of ending it, as etcd moves a slow
	// watcher to its unsynced set: the watcher stops receiving queued
	// events, replays the writes after the last one its reader took from
	// the history, and rejoins the live stream once it has caught up. It
	// ends with an Error event wrapping source.ErrExpired only when the
	// history has forgotten a write it has yet to send (HistorySize,
	// HistoryBytes, Compact). Memory stays bounded — WatchBuffer queued
	// events per watcher, and the history — and no write waits longer
	// than the budget. LaggedWatchers counts the watchers that fell
	// behind. Default false: such a watcher is ended, as kube-apiserver's
	// watch cache ends it.
	CatchUp bool

	// WatchBudget is the most the writes of the source wait, in all, for
	// watchers whose buffer is full before ending them: a budget shared
	// by the writes, which refills by half of WatchBudget per second of
	// wall time, as kube-apiserver's cacher's dispatch budget (100 ms,
	// 50 ms/s). Default DefaultWatchBudget; negative is an error.
	WatchBudget time.Duration

	// BookmarkInterval is how often an idle watch opened with
	// AllowBookmarks receives a Bookmark carrying the revision it has
	// caught up to. Zero (the default) sends no periodic bookmarks;
	// negative is an error.
	BookmarkInterval time.Duration

	// Copy, when set, is applied to every object the source stores
	// (Create, Update) and to every object Get returns, so a caller may
	// keep changing its own object after writing it, and may change what
	// Get returned. When nil (the default) the source stores the objects
	// it is given: the caller must not change an object after writing it
	// and nobody may change an object read back from the source.
	// Objects delivered by List and Watch are always shared between
	// readers and must be treated as read-only.
	Copy func(T) T

	// Share, when set, is called by Update with the object stored under
	// the key (prev) and the one about to replace it (next, after Copy),
	// so that next can take, instead of its own, the parts of prev equal
	// to them: the version an update replaces stays in the history, and
	// what the two versions share is held once. Both objects are
	// read-only from then on, as every stored object is: Share must only
	// point next's fields at prev's equal ones, never change prev. It is
	// called outside the source's lock; prev may already be older than
	// the version the update replaces, which is as good to share with.
	// Default (nil): nothing is shared.
	Share func(prev, next T)

	// ShareCreated, when set, is called by Create with the object about
	// to be stored (after Copy), so that it can take, instead of its own,
	// the parts equal to its own of objects stored before it — a pod
	// created from the same template as the last one holds the same
	// containers, tolerations, labels and owner references, and they are
	// then held once for all of them. As with Share, every stored object
	// is read-only: ShareCreated must only point next's fields at parts
	// of objects already handed to the source (stored or about to be),
	// never change them. It is called outside the source's lock, before
	// the create may still fail. Default (nil): nothing is shared.
	ShareCreated func(next T)

	// Equal decides whether an Update changes nothing, comparing the
	// stored object with the new one (given the stored one's
	// resourceVersion first); such an update is not written and sends
	// no event, as kube-apiserver drops no-op writes. Default (nil):
	// reflect.DeepEqual, which is right for plain data; set
	// NeverEqual to make every Update a new revision, as etcd does.
	Equal func(stored, updated T) bool

	// Logger receives the source's rare log lines (watchers ended for falling behind).
	// Default slog.Default().
	Logger *slog.Logger
}

func (o *Options[T]) defaults() error {
	switch {
	case o.HistorySize < 0:
		return fmt.Errorf("fake: Options.HistorySize is negative (%d)", o.HistorySize)
	case o.WatchBuffer < 0:
		return fmt.Errorf("fake: Options.WatchBuffer is negative (%d)", o.WatchBuffer)
	case o.WatchBudget < 0:
		return fmt.Errorf("fake: Options.WatchBudget is negative (%v)", o.WatchBudget)
	case o.BookmarkInterval < 0:
		return fmt.Errorf("fake: Options.BookmarkInterval is negative (%v)", o.BookmarkInterval)
	case o.HistoryBytes < 0:
		return fmt.Errorf("fake: Options.HistoryBytes is negative (%d)", o.HistoryBytes)
	case o.MaxObjectSize < 0:
		return fmt.Errorf("fake: Options.MaxObjectSize is negative (%d)", o.MaxObjectSize)
	case o.MaxObjectSize > 0 && o.Size == nil:
		return errors.New("fake: Options.MaxObjectSize is set but Options.Size is nil")
	}
	if o.HistorySize == 0 {
		o.HistorySize = DefaultHistorySize
	}
	if o.HistoryBytes == 0 {
		o.HistoryBytes = DefaultHistoryBytes
	}
	if o.WatchBuffer == 0 {
		o.WatchBuffer = DefaultWatchBuffer
	}
	if o.WatchBudget == 0 {
		o.WatchBudget = DefaultWatchBudget
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Equal == nil {
		o.Equal = deepEqual[T]
	}
	return nil
}

func deepEqual[T any](a, b T) bool { return reflect.DeepEqual(a, b) }

// NeverEqual is an Options.Equal that makes every Update a new revision,
// as etcd does, even one that changes nothing.
func NeverEqual[T any](stored, updated T) bool { return false }

// Source is an in-memory, versioned store of objects of type T that can be
// listed, watched and written. It implements source.ListWatcher[T] and
// source.VersionComparer. See the package documentation for the
// guarantees it keeps. A Source is safe for concurrent use; create it with
// NewSource.
type Source[T any] struct {
	keyFunc func(T) string
	opts    Options[T]

	listCalls  atomic.Int64
	watchCalls atomic.Int64
	terminated atomic.Int64
	lagged     atomic.Int64
	// undispatched is the revision of the write committed but not yet
	// handed to every watcher it is for, or 0: a watcher with nothing
	// queued has seen every write before it, and no more.
	undispatched atomic.Int64

	// dispatchMu is held by a writer from before it takes mu until it
	// has handed its write to every watcher, outside mu: writes reach
	// the watchers in revision order, and a writer waiting for a slow
	// reader holds up the other writers (of this source) only, not Get,
	// List or Watch. Taken before mu.
	dispatchMu sync.Mutex
	// out is the write to hand to the watchers in outTo once mu is
	// released; outOK says whether there is one. budget is the time
	// writers may still wait for readers. Guarded by dispatchMu (and
	// set while holding mu too).
	out     record[T]
	outOK   bool
	outTo   []*watcher[T]
	blocked []*watcher[T]
	budget  timeBudget
	timer   *time.Timer

	mu sync.Mutex
	// rev is the revision of the last write (0: none yet). Guarded by mu.
	rev int64
	// compacted is the newest revision whose write is no longer in hist:
	// hist holds exactly the writes compacted+1 ... rev. Guarded by mu.
	compacted int64
	// items is the current state, ordered by key. Guarded by mu.
	items *btree.BTreeG[item[T]]
	// hist is the bounded history of writes. Guarded by mu.
	hist history[T]
	// watchers are the open watches. Guarded by mu.
	watchers map[*watcher[T]]struct{}
	// faults are the injected faults. Guarded by mu.
	faults faults
}

// item is one stored object.
type item[T any] struct {
	key string
	obj T
	rev int64
	rv  string
	// size is Options.Size(obj) (0 without Size).
	size int64
}

func itemLess[T any](a, b item[T]) bool { return a.key < b.key }

// NewSource returns an empty Source at revision 0 whose objects are keyed
// by keyFunc. It starts no goroutine.
func NewSource[T any](keyFunc func(T) string, opts Options[T]) (*Source[T], error) {
	if keyFunc == nil {
		return nil, errors.New("fake: NewSource: keyFunc is nil")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	return &Source[T]{
		keyFunc:  keyFunc,
		opts:     opts,
		items:    btree.NewG(32, itemLess[T]),
		watchers: make(map[*watcher[T]]struct{}),
		budget:   newTimeBudget(time.Now(), opts.WatchBudget),
	}, nil
}

// Get returns the object stored under key and the resourceVersion of its
// last write, or an error wrapping source.ErrNotFound.
func (s *Source[T]) Get(ctx context.Context, key string) (T, string, error) {
	var zero T
	if err := ctxErr(ctx); err != nil {
		return zero, "", err
	}
	s.mu.Lock()
	it, ok := s.items.Get(item[T]{key: key})
	s.mu.Unlock()
	if !ok {
		return zero, "", fmt.Errorf("fake: get %q: %w", key, source.ErrNotFound)
	}
	obj := it.obj
	if s.opts.Copy != nil {
		obj = s.opts.Copy(obj)
	}
	return obj, it.rv, nil
}

// Len returns the number of objects stored now.
func (s *Source[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.items.Len()
}

// Items returns the objects stored at the moment Items is called, by key
// in ascending order. The snapshot costs O(1) to take (copy-on-write); no
// lock is held while the caller iterates.
func (s *Source[T]) Items() iter.Seq2[string, T] {
	s.mu.Lock()
	snap := s.items.Clone()
	s.mu.Unlock()
	return func(yield func(string, T) bool) {
		snap.Ascend(func(it item[T]) bool { return yield(it.key, it.obj) })
	}
}

// HistoryStats describes what a Source's history holds.
type HistoryStats struct {
	// Writes is the number of writes remembered.
	Writes int
	// Bytes is the sum of Options.Size over the past object versions
	// that only the history keeps alive (0 without Options.Size); it
	// never exceeds Options.HistoryBytes.
	Bytes int64
	// Compacted is the revision of the newest forgotten write ("0" when
	// none was forgotten): lists and watches at older resourceVersions
	// fail with source.ErrExpired.
	Compacted string
}

// HistoryStats reports what the history holds now.
func (s *Source[T]) HistoryStats() HistoryStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return HistoryStats{Writes: s.hist.n, Bytes: s.hist.bytes, Compacted: source.FormatRevision(s.compacted)}
}

// ResourceVersion returns the revision of the last write ("0" for a new
// source).
func (s *Source[T]) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return source.FormatRevision(s.rev)
}

// CompareResourceVersions implements source.VersionComparer: the
// source's resourceVersions are non-negative decimal integers.
func (s *Source[T]) CompareResourceVersions(a, b string) (int, error) {
	return source.CompareRevisions(a, b)
}

// checkRevLocked reports whether the state at rev can still be served:
// an error wrapping source.ErrExpired when rev is older than the
// history, source.ErrFutureVersion when newer than the last write.
func (s *Source[T]) checkRevLocked(op string, rev int64) error {
	if rev > s.rev {
		return fmt.Errorf("fake: %s: resource version %d is newer than the current %d: %w", op, rev, s.rev, source.ErrFutureVersion)
	}
	if rev < s.compacted {
		return fmt.Errorf("fake: %s: resource version %d is older than the retained history (compacted at %d): %w", op, rev, s.compacted, source.ErrExpired)
	}
	return nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errNilContext is returned by every call given a nil context.
var errNilContext = errors.New("fake: context is nil")

// ctxErr is ctx.Err(), or errNilContext for a nil ctx.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return errNilContext
	}
	return ctx.Err()
}

var (
	_ source.ListWatcher[int] = (*Source[int])(nil)
	_ source.Writer[int]      = (*Source[int])(nil)
	_ source.VersionComparer  = (*Source[int])(nil)
)
