package deltafifo

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/ctrlkit/ctrlkit/reflector"
)

// ErrClosed is returned by Pop once the FIFO is closed and drained, and by
// Add, Update, Delete, Replace and Resync after Close.
var ErrClosed = errors.New("deltafifo: closed")

// ErrNilContext is wrapped by the error Pop returns for a nil context
// (the FIFO's only call that takes one); it never panics on one.
var ErrNilContext = errors.New("deltafifo: context is nil")

var (
	errNilKeyFunc = errors.New("deltafifo: key func is nil")
	errNilProcess = errors.New("deltafifo: process func is nil")
	// errEmptyKey is a cause: BadObjectError adds the package prefix.
	errEmptyKey = errors.New("key func returned an empty key")
)

// KnownObjects is what the FIFO consults to learn which objects the
// consumer's cache already holds: the indexer of an informer satisfies
// it. Replace infers deletes for known keys missing from a relist,
// Resync re-delivers known objects, and Delete of a key that is neither
// queued nor known is ignored.
//
// The FIFO calls it with its own lock held, so an implementation must
// never call back into the FIFO.
type KnownObjects[T any] interface {
	// Get returns the object stored under key.
	Get(key string) (T, bool)
	// ListKeys returns every key in the store.
	ListKeys() []string
}

// Options configure a DeltaFIFO. The zero value is valid.
type Options[T any] struct {
	// KnownObjects is the consumer's cache. Default nil: nothing is known,
	// so Resync does nothing, Replace infers deletes only for queued keys
	// and Delete of a key that is not queued is ignored.
	KnownObjects KnownObjects[T]
	// Transform, if set, is applied once to every object handed to Add,
	// Update, Delete and Replace, before it is queued; inferred deletes
	// and Sync deltas carry objects that were transformed already and are
	// not transformed again. It must not change the object's key (the key
	// is computed from the object before Transform runs). An object whose
	// Transform returns an error or panics is quarantined (see
	// BadObjectError); the call still succeeds. Default nil: objects are
	// queued as they are.
	Transform func(T) (T, error)
	// OnBadObject, if set, is called with every object the FIFO could
	// not take (see BadObjectError), after the FIFO has logged it and
	// released its lock, from the goroutine of the Add, Update, Delete or
	// Replace call that handed it in. It must return quickly; a panic in
	// it is recovered and logged. Default: nil (bad objects are logged
	// either way).
	OnBadObject func(*BadObjectError)
	// Logger receives debug logs (ignored deletes, Replace summaries) and
	// an error log per bad object. Default slog.Default().
	Logger *slog.Logger
}

// BadObjectError describes an object the FIFO could not take: its key
// func returned "" or panicked, or Transform failed or panicked. The FIFO
// quarantines such an object instead of failing the call that handed it
// in (see the package documentation, "Bad objects"): it logs it, reports
// it to Options.OnBadObject and goes on with everything else.
type BadObjectError struct {
	// Key is the object's key; "" when the key func failed.
	Key string
	// ResourceVersion is the version the object was handed in with: the
	// event's for Add, Update and Delete, the list's for Replace.
	ResourceVersion string
	// Type is the delta the object would have made (Added, Updated,
	// Deleted or Replaced).
	Type DeltaType
	// Err is the cause: the Transform's error, or a description of the
	// key func's failure or of the panic.
	Err error
}

// Error describes the object and the cause.
func (e *BadObjectError) Error() string {
	key := e.Key
	if key == "" {
		key = "(no key)"
	}
	return fmt.Sprintf("deltafifo: bad object %s in %s at resourceVersion %q: %v", key, e.Type, e.ResourceVersion, e.Err)
}

// Unwrap returns the cause.
func (e *BadObjectError) Unwrap() error { return e.Err }

func (o *Options[T]) defaults() {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// DeltaFIFO is a queue of per-key change lists between a reflector, which
// writes into it, and a consumer (an informer), which pops from it. See
// the package documentation for the full contract.
//
// All methods are safe for concurrent use.
type DeltaFIFO[T any] struct {
	keyFunc   func(T) string
	known     KnownObjects[T]
	transform func(T) (T, error)
	onBad     func(*BadObjectError)
	logger    *slog.Logger

	mu   sync.Mutex
	cond sync.Cond // L is &mu; signalled when an entry may have become poppable, broadcast on Close and ctx end

	// Guarded by mu:

	// items holds every queued entry by key; a key is in items iff its
	// entry is in queue.
	items map[string]*entry[T]
	// itemsPeak is the most keys items has held since it was made. A Go
	// map never gives back the room it grew into, so once the queue is
	// empty again after holding many keys (an initial list), takeLocked
	// replaces items with a fresh map rather than keep that room forever.
	itemsPeak int
	// queue holds the queued entries ordered by first.seq (the order of
	// first insertion since the key was last popped).
	queue ring[*entry[T]]
	// inflight holds one record per popped entry whose process func has
	// not returned yet, in pop order; keys are distinct. A queued entry whose key is in
	// inflight is not poppable.
	inflight []flight[T]
	// free holds cleared entries whose process func has returned, for
	// reuse (at most freeMax); slab is the unused tail of the last chunk
	// of entries allocated at once, and slabbed counts the entries
	// allocated so far (the next chunk's size; see newEntryLocked). An
	// entry is recycled only by finish, after which neither the queue,
	// items nor Pop refer to it; the Deltas handed to process live in
	// their own storage, which the FIFO never reuses.
	free    []*entry[T]
	slab    []entry[T]
	slabbed int
	waiters int // Pops blocked in cond.Wait
	closed  bool

	// nextSeq numbers every call that hands in a change (see stamp).
	nextSeq     uint64
	lastRV      string
	processedRV string
	processedCh chan struct{} // nil until asked for; closed when processedRV changes

	populated        bool          // Add/Update/Delete/Replace was called
	initialRemaining int           // entries of the first Replace not yet processed
	synced           chan struct{} // closed when HasSynced becomes true
	isSynced         bool
}

// entry is the queued change list of one key.
type entry[T any] struct {
	key     string
	first   stamp     // the call that created the entry
	lastSeq uint64    // seq of the call that appended the newest delta
	initial bool      // touched by the first Replace
	deltas  Deltas[T] // owned by process once popped: never reused
}

// freeMax bounds the free list of entries. When it is empty, entries are
// allocated in chunks: the first of entrySlabMin entries, each next one as
// large as all the earlier ones together, up to entrySlab. A FIFO that
// never holds more than a few keys (a kubelet's, of its own pods) so holds
// a few entries, not a full chunk.
const (
	freeMax      = 512
	entrySlabMin = 2
	entrySlab    = 32
)

// flight records a popped entry whose process func is running.
type flight[T any] struct {
	key    string
	first  stamp    // the entry's first stamp
	newest Delta[T] // the newest delta handed to process
}

// stamp identifies a call that hands in changes: its sequence number and
// the resourceVersion handed in before it. The queue is ordered by the seq
// of each entry's first change, and every change stays in its entry until
// that entry is processed; so the oldest seq among queued and in-flight
// entries is the oldest unprocessed call, and everything handed in before
// it, up to that entry's rvBefore, is processed.
type stamp struct {
	seq      uint64
	rvBefore string
}

var (
	_ reflector.Store[int]    = (*DeltaFIFO[int])(nil)
	_ reflector.BookmarkStore = (*DeltaFIFO[int])(nil)
)

// New returns an empty, open DeltaFIFO that files objects under
// keyFunc(obj). keyFunc must return a non-empty key; it may be called
// concurrently. New starts no goroutines.
func New[T any](keyFunc func(T) string, opts Options[T]) (*DeltaFIFO[T], error) {
	if keyFunc == nil {
		return nil, errNilKeyFunc
	}
	opts.defaults()
	f := &DeltaFIFO[T]{
		keyFunc:   keyFunc,
		known:     opts.KnownObjects,
		transform: opts.Transform,
		onBad:     opts.OnBadObject,
		logger:    opts.Logger,
		synced:    make(chan struct{}),
	}
	f.cond.L = &f.mu
	return f, nil
}

// Add queues an Added delta for obj, seen at rv. It returns an error only
// after Close (ErrClosed); an object the FIFO cannot take is quarantined
// (see BadObjectError) and Add returns nil.
func (f *DeltaFIFO[T]) Add(obj T, rv string) error { return f.change(Added, obj, rv) }

// Update queues an Updated delta for obj, seen at rv. Errors as for Add.
func (f *DeltaFIFO[T]) Update(obj T, rv string) error { return f.change(Updated, obj, rv) }

// Delete queues a Deleted delta for obj (its last state), seen at rv. A
// delete of a key that is neither queued, nor being processed by a Pop,
// nor known to KnownObjects is ignored: the consumer never saw the object.
// A key being processed counts as known exactly when the newest delta
// being processed is not itself a delete, because that is what the
// consumer's cache will hold once process returns.
//
// Errors as for Add, except that a delete whose Transform fails still
// applies when the key is present: the Deleted delta then carries the
// last object the FIFO knows for the key (never the rejected one).
func (f *DeltaFIFO[T]) Delete(obj T, rv string) error { return f.change(Deleted, obj, rv) }

func (f *DeltaFIFO[T]) change(typ DeltaType, obj T, rv string) error {
	key, obj, err := f.prepare(obj)
	var bad *BadObjectError
	if err != nil {
		bad = &BadObjectError{Key: key, ResourceVersion: rv, Type: typ, Err: err}
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return ErrClosed
	}
	st := f.beginLocked(rv)
	f.populated = true
	switch {
	case bad != nil && typ == Deleted && key != "":
		// The delete still applies: it carries the last object the
		// FIFO knows for key instead of the one Transform rejected.
		if last, ok := f.lastObjectLocked(key); ok {
			f.appendLocked(key, Delta[T]{Type: Deleted, Object: last, ResourceVersion: rv}, st)
		}
	case bad != nil:
	case typ == Deleted && !f.presentLocked(key):
		f.logger.Debug("deltafifo: ignoring delete of an unknown key", "key", key, "resourceVersion", rv)
	default:
		f.appendLocked(key, Delta[T]{Type: typ, Object: obj, ResourceVersion: rv}, st)
	}
	f.advanceLocked()
	f.checkSyncedLocked()
	f.mu.Unlock()
	if bad != nil {
		f.reportBad([]*BadObjectError{bad})
	}
	return nil
}

// reportBad logs every bad object and hands it to OnBadObject. It is
// called without the lock.
func (f *DeltaFIFO[T]) reportBad(bad []*BadObjectError) {
	for _, b := range bad {
		f.logger.Error("deltafifo: quarantined an object it cannot take",
			"key", b.Key, "type", b.Type.String(), "resourceVersion", b.ResourceVersion, "err", b.Err)
		f.callOnBad(b)
	}
}

// callOnBad calls OnBadObject, recovering and logging a panic.
func (f *DeltaFIFO[T]) callOnBad(b *BadObjectError) {
	if f.onBad == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			f.logger.Error("deltafifo: OnBadObject panicked", "key", b.Key, "panic", fmt.Sprint(r))
		}
	}()
	f.onBad(b)
}

// prepare computes obj's key and applies Transform, turning an empty key
// or a panic in user code into an error (the cause of a BadObjectError,
// which carries the package prefix and the key).
func (f *DeltaFIFO[T]) prepare(obj T) (key string, out T, err error) {
	inTransform := false
	defer func() {
		if r := recover(); r != nil {
			if inTransform {
				err = fmt.Errorf("transform panicked: %v", r)
			} else {
				key, err = "", fmt.Errorf("key func panicked: %v", r)
			}
		}
	}()
	key = f.keyFunc(obj)
	if key == "" {
		return "", obj, errEmptyKey
	}
	if f.transform == nil {
		return key, obj, nil
	}
	inTransform = true
	out, err = f.transform(obj)
	if err != nil {
		return key, out, fmt.Errorf("transform: %w", err)
	}
	return key, out, nil
}

// Replace records a relist consistent at rv: a Replaced delta for every
// item; then, for every queued key not in items whose newest delta is not
// a delete, an inferred delete (FinalStateUnknown) carrying that newest
// object; then the same for every key being processed by a Pop that is
// not in items and not queued, unless the delta being processed is a
// delete; then, for every key of KnownObjects that is neither in items,
// nor queued, nor being processed, an inferred delete carrying the known
// object (a key that vanished from KnownObjects meanwhile is skipped).
//
// Items whose key func or Transform fails are quarantined (see
// BadObjectError): left out, logged and reported to Options.OnBadObject,
// and every other item is still applied. An item with a key counts as
// present, so no delete is inferred for it and the consumer keeps its
// last good state; an item without a key cannot be matched to anything
// and so counts as absent. Replace returns an error only after Close
// (ErrClosed).
//
// The first Replace, unless an Add, Update or Delete came before it,
// defines the initial list: HasSynced becomes true once every key it
// touched (inferred deletes included) has been processed.
//
// Replace runs the key func and Transform with the FIFO's lock held.
func (f *DeltaFIFO[T]) Replace(items []T, rv string) error {
	bad, err := f.replace(items, rv)
	if err != nil {
		return err
	}
	f.reportBad(bad)
	return nil
}

// replace does Replace's work under the lock and returns the bad objects
// for Replace to report once the lock is released.
func (f *DeltaFIFO[T]) replace(items []T, rv string) ([]*BadObjectError, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, ErrClosed
	}
	st := f.beginLocked(rv)
	first := !f.populated
	f.populated = true
	touch := func(e *entry[T]) {
		if first && !e.initial {
			e.initial = true
			f.initialRemaining++
		}
	}
	queuedBefore := f.queue.len()

	var bad []*BadObjectError
	var failed map[string]struct{} // keys of items that could not be queued
	for _, item := range items {
		key, obj, err := f.prepare(item)
		if err != nil {
			bad = append(bad, &BadObjectError{Key: key, ResourceVersion: rv, Type: Replaced, Err: err})
			if key != "" {
				if failed == nil {
					failed = make(map[string]struct{})
				}
				failed[key] = struct{}{}
			}
			continue
		}
		touch(f.appendLocked(key, Delta[T]{Type: Replaced, Object: obj, ResourceVersion: rv}, st))
	}
	isFailed := func(key string) bool {
		_, ok := failed[key]
		return ok
	}

	inferred := 0
	infer := func(key string, obj T) {
		inferred++
		touch(f.appendLocked(key, Delta[T]{Type: Deleted, Object: obj, ResourceVersion: rv, FinalStateUnknown: true}, st))
	}
	// Queued keys absent from the list. Entries created above sit after
	// queuedBefore; an entry listed above has lastSeq == seq.
	for i := 0; i < queuedBefore; i++ {
		e := f.queue.at(i)
		if e.lastSeq == st.seq || isFailed(e.key) {
			continue
		}
		if newest := e.deltas[len(e.deltas)-1]; newest.Type != Deleted {
			infer(e.key, newest.Object)
		}
	}
	// Keys being processed, absent from the list and not queued.
	for i := range f.inflight {
		fl := &f.inflight[i]
		if _, queued := f.items[fl.key]; queued || isFailed(fl.key) || fl.newest.Type == Deleted {
			continue
		}
		infer(fl.key, fl.newest.Object)
	}
	// Known keys absent from the list, not queued and not being processed.
	if f.known != nil {
		for _, key := range f.known.ListKeys() {
			if _, queued := f.items[key]; queued || isFailed(key) || f.flightIndexLocked(key) >= 0 {
				continue
			}
			if obj, ok := f.known.Get(key); ok {
				infer(key, obj)
			}
		}
	}
	f.advanceLocked()
	f.checkSyncedLocked()
	f.logger.Debug("deltafifo: replaced", "resourceVersion", rv, "items", len(items),
		"inferredDeletes", inferred, "quarantined", len(bad), "initial", first)
	return bad, nil
}

// Resync queues a Sync delta for every key of KnownObjects that is neither
// queued nor being processed by a Pop (a key that vanished from
// KnownObjects meanwhile is skipped). Without KnownObjects it does
// nothing.
func (f *DeltaFIFO[T]) Resync() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return ErrClosed
	}
	if f.known == nil {
		return nil
	}
	st := f.beginLocked("")
	for _, key := range f.known.ListKeys() {
		if _, queued := f.items[key]; queued || f.flightIndexLocked(key) >= 0 {
			continue
		}
		if obj, ok := f.known.Get(key); ok {
			f.appendLocked(key, Delta[T]{Type: Sync, Object: obj}, st)
		}
	}
	f.advanceLocked()
	return nil
}

// Bookmark records that the source has reached rv without a change. It
// advances LastResourceVersion at once, and ProcessedResourceVersion once
// everything handed in before it has been processed. It is ignored after
// Close and when rv is empty.
func (f *DeltaFIFO[T]) Bookmark(rv string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || rv == "" {
		return
	}
	f.beginLocked(rv)
	f.advanceLocked()
}

// Close closes the FIFO: writes fail with ErrClosed, Pop hands out what is
// still queued and then returns ErrClosed, and every blocked Pop wakes.
// Close is idempotent.
func (f *DeltaFIFO[T]) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.closed {
		f.closed = true
		f.cond.Broadcast()
	}
}

// Len returns the number of queued keys (keys being processed by a Pop
// are not counted).
func (f *DeltaFIFO[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queue.len()
}

// beginLocked stamps a call that hands in changes and records its rv.
func (f *DeltaFIFO[T]) beginLocked(rv string) stamp {
	st := stamp{seq: f.nextSeq, rvBefore: f.lastRV}
	f.nextSeq++
	if rv != "" {
		f.lastRV = rv
	}
	return st
}

// appendLocked appends d to key's entry, creating and queueing the entry
// if the key is not queued.
func (f *DeltaFIFO[T]) appendLocked(key string, d Delta[T], st stamp) *entry[T] {
	if e := f.items[key]; e != nil {
		e.lastSeq = st.seq
		e.deltas = appendDelta(e.deltas, d)
		return e
	}
	e := f.newEntryLocked()
	e.key, e.first, e.lastSeq = key, st, st.seq
	e.deltas = make(Deltas[T], 1)
	e.deltas[0] = d
	if f.items == nil {
		f.items = make(map[string]*entry[T])
	}
	f.items[key] = e
	f.itemsPeak = max(f.itemsPeak, len(f.items))
	f.queue.push(e)
	if f.waiters > 0 {
		f.cond.Signal()
	}
	return e
}

// newEntryLocked returns a cleared entry from the free list or the slab.
func (f *DeltaFIFO[T]) newEntryLocked() *entry[T] {
	if n := len(f.free); n > 0 {
		e := f.free[n-1]
		f.free[n-1] = nil
		f.free = f.free[:n-1]
		return e
	}
	if len(f.slab) == 0 {
		n := min(entrySlab, max(entrySlabMin, f.slabbed))
		f.slab = make([]entry[T], n)
		f.slabbed += n
	}
	e := &f.slab[0]
	f.slab = f.slab[1:]
	return e
}

// presentLocked reports whether the consumer has, or will have once the
// queue and the running process funcs are through, an object under key.
// A queued key counts as present whatever its newest delta (client-go's
// rule: a repeated delete is queued and collapses).
func (f *DeltaFIFO[T]) presentLocked(key string) bool {
	if _, queued := f.items[key]; queued {
		return true
	}
	if i := f.flightIndexLocked(key); i >= 0 {
		return f.inflight[i].newest.Type != Deleted
	}
	if f.known == nil {
		return false
	}
	_, ok := f.known.Get(key)
	return ok
}

// lastObjectLocked returns the newest object the consumer has, or will
// have, under key: the newest queued delta's, else the newest delta being
// processed (unless it is a delete), else KnownObjects'.
func (f *DeltaFIFO[T]) lastObjectLocked(key string) (obj T, ok bool) {
	if e := f.items[key]; e != nil {
		return e.deltas[len(e.deltas)-1].Object, true
	}
	if i := f.flightIndexLocked(key); i >= 0 {
		if fl := f.inflight[i].newest; fl.Type != Deleted {
			return fl.Object, true
		}
		return obj, false
	}
	if f.known == nil {
		return obj, false
	}
	return f.known.Get(key)
}

// flightIndexLocked returns the index of key in inflight, or -1. Linear:
// inflight holds one record per concurrently running Pop.
func (f *DeltaFIFO[T]) flightIndexLocked(key string) int {
	for i := range f.inflight {
		if f.inflight[i].key == key {
			return i
		}
	}
	return -1
}
