package cluster

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// A trigger field is one a kind's watches are indexed by, as
// kube-apiserver's watch cache indexes pods by spec.nodeName (the
// cacher's trigger functions): a Select whose field selector requires an
// exact value of it ("spec.nodeName=node-7", what every kubelet asks for)
// is served from one shared watch of the store, which hands each event
// only to the watches of the values the object had before and after it.
// Without it, each of N kubelets would filter every pod event of the
// cluster itself: O(nodes) work per pod event.
type trigger[T api.Object] struct {
	field string
	value func(T) string
}

// hubRingSize is how many recent events a hub keeps to start watches a
// little in the past (from the version of the List that seeded them);
// older versions are expired and the watcher relists.
const hubRingSize = 4096

// hubQueueLimit bounds the events a hub holds for one watch that is not
// reading; past it the watch ends with an error (the reflector relists),
// as the watch cache terminates a blocked watcher.
const hubQueueLimit = 1 << 16

// triggerHub fans one watch of a store out to indexed watches. It runs
// (one goroutine, one upstream watch) only while some watch is open.
type triggerHub[T api.Object] struct {
	s   *Store[T]
	t   trigger[T]
	mu  sync.Mutex // guards cur; held while a run starts
	cur *hubRun[T]
}

// hubRun is one life of the shared watch: from a List (which seeds each
// key's trigger value) until the upstream watch ends or no watch is left.
type hubRun[T api.Object] struct {
	hub     *triggerHub[T]
	cancel  context.CancelFunc
	mu      sync.Mutex
	startRV string                           // the List's version: watches from older ones are expired
	ring    []hubEvent[T]                    // the last events, oldest first from ring[head] (circular once full)
	head    int                              // index of the oldest event once ring is full
	ringRV  string                           // the version just before the oldest event (startRV until it wraps)
	last    map[string]string                // key → trigger value of its current state
	objs    map[string]map[string]T          // trigger value → key → current state
	rv      string                           // the version of the last event or bookmark dispatched
	subs    map[string]map[*hubWatch[T]]bool // trigger value → watches
	n       int
	ended   bool
}

type hubEvent[T any] struct {
	ev       source.Event[T]
	old, new string
	// existed says whether the key had a state before the event: prev,
	// whose trigger value is old.
	existed bool
	prev    T
}

// hubWatch is one indexed watch.
type hubWatch[T any] struct {
	value     string
	bookmarks bool
	from      string // events at or before this version are not sent
	mu        sync.Mutex
	queue     []source.Event[T]
	wake      chan struct{}
	closed    bool // an Error event is the queue's last
}

// indexedSource is the ListWatcher of one trigger value: Watch is the
// hub's; List is the hub's index when it can answer, the store's
// otherwise (Filter drops the rest).
type indexedSource[T api.Object] struct {
	hub   *triggerHub[T]
	value string
}

// List serves a relist — a version with NotOlderThan, what a reflector
// asks for after its watch ended — from the running hub's index of the
// value, as kube-apiserver's watch cache serves a kubelet's pod list
// from its spec.nodeName index, once the hub has reached that version:
// the objects that have the value at the hub's version, in key order,
// at that version. An exact version the hub's ring still covers — what
// source.Filter seeds a watch from — is the index with the ring's later
// events undone. Other Lists (the latest, a page after the first, more
// items than the limit, no hub running) read the store. Without the index, every kubelet's relist read every pod of
// the cluster, holding up the writers: when the shared watch ended
// during a burst of 100,000 pods, 5,000 such relists never settled.
func (x indexedSource[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	if opts.ResourceVersion != "" && opts.Continue == "" {
		if err := ctxErr(ctx); err != nil {
			return source.List[T]{}, err
		}
		if l, ok := x.hub.list(x.value, opts.ResourceVersion, opts.ResourceVersionMatch == source.Exact, opts.Limit); ok {
			return l, nil
		}
	}
	return x.hub.s.List(ctx, opts)
}

// ctxErr is ctx's error, or nil while it is live.
func ctxErr(ctx context.Context) error {
	if ctx == nil {
		return errors.New("cluster: nil context")
	}
	return ctx.Err()
}

func (x indexedSource[T]) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[T], error) {
	return x.hub.watch(ctx, x.value, opts)
}

func (x indexedSource[T]) CompareResourceVersions(a, b string) (int, error) {
	return x.hub.s.CompareResourceVersions(a, b)
}

func (h *triggerHub[T]) watch(ctx context.Context, value string, opts source.WatchOptions) (<-chan source.Event[T], error) {
	if ctx == nil {
		return nil, errors.New("cluster: watch: nil context")
	}
	if opts.SendInitialEvents {
		return nil, fmt.Errorf("cluster: %s: an indexed watch does not send initial events: %w", h.s.kind.resource, source.ErrUnsupported)
	}
	w := &hubWatch[T]{value: value, bookmarks: opts.AllowBookmarks, from: opts.ResourceVersion, wake: make(chan struct{}, 1)}
	h.mu.Lock()
	if h.cur == nil || h.cur.isEnded() {
		r, err := h.start()
		if err != nil {
			h.mu.Unlock()
			return nil, err
		}
		h.cur = r
	}
	r := h.cur
	err := r.add(w)
	if err != nil && r.stopIfIdle() {
		h.cur = nil
	}
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	out := make(chan source.Event[T])
	go w.run(ctx, out, func() { h.remove(r, w) })
	return out, nil
}

// start lists the store and opens the shared watch from the list's version.
func (h *triggerHub[T]) start() (*hubRun[T], error) {
	ctx, cancel := context.WithCancel(context.Background())
	l, err := h.s.List(ctx, source.ListOptions{})
	if err != nil {
		cancel()
		return nil, err
	}
	in, err := h.s.Watch(ctx, source.WatchOptions{ResourceVersion: l.ResourceVersion, AllowBookmarks: true})
	if err != nil {
		cancel()
		return nil, err
	}
	r := &hubRun[T]{hub: h, cancel: cancel, startRV: l.ResourceVersion, ringRV: l.ResourceVersion, rv: l.ResourceVersion,
		last: make(map[string]string, len(l.Items)), objs: make(map[string]map[string]T),
		subs: make(map[string]map[*hubWatch[T]]bool)}
	for _, obj := range l.Items {
		k, v := api.Key(obj), h.t.value(obj)
		r.last[k] = v
		r.index(v, k, obj)
	}
	go r.loop(in)
	return r, nil
}

// list returns the objects whose trigger value is value, in key order,
// if there is a run and it can answer: not exact, at the run's version
// once it has reached rv; exact, at rv if the ring covers the events
// since. More objects than limit (when positive) it leaves to the store.
func (h *triggerHub[T]) list(value, rv string, exact bool, limit int64) (source.List[T], bool) {
	h.mu.Lock()
	r := h.cur
	h.mu.Unlock()
	if r == nil {
		return source.List[T]{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended || r.older(r.rv, rv) || (exact && r.older(rv, r.ringRV)) {
		return source.List[T]{}, false
	}
	set, at := r.objs[value], r.rv
	if exact && rv != r.rv {
		set, at = r.undoAfter(value, rv), rv
	}
	if limit > 0 && int64(len(set)) > limit {
		return source.List[T]{}, false
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	items := make([]T, len(keys))
	for i, k := range keys {
		items[i] = set[k]
	}
	return source.List[T]{Items: items, ResourceVersion: at}, true
}

// undoAfter returns the objects with trigger value value as they were at
// version rv, which the ring covers: the index's, with every later event
// that touched value undone, newest first.
func (r *hubRun[T]) undoAfter(value, rv string) map[string]T {
	set := maps.Clone(r.objs[value])
	if set == nil {
		set = make(map[string]T)
	}
	for i := len(r.ring) - 1; i >= 0; i-- {
		e := &r.ring[(r.head+i)%len(r.ring)]
		if !r.older(rv, e.ev.ResourceVersion) {
			break
		}
		k := api.Key(e.ev.Object)
		if e.new == value {
			delete(set, k)
		}
		if e.existed && e.old == value {
			set[k] = e.prev
		}
	}
	return set
}

// index records obj, stored under key, as the current state of one with
// trigger value v.
func (r *hubRun[T]) index(v, key string, obj T) {
	set := r.objs[v]
	if set == nil {
		set = make(map[string]T)
		r.objs[v] = set
	}
	set[key] = obj
}

// unindex forgets key under trigger value v.
func (r *hubRun[T]) unindex(v, key string) {
	if set := r.objs[v]; set != nil {
		delete(set, key)
		if len(set) == 0 {
			delete(r.objs, v)
		}
	}
}

func (h *triggerHub[T]) remove(r *hubRun[T], w *hubWatch[T]) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.remove(w) && h.cur == r {
		h.cur = nil
	}
}

func (r *hubRun[T]) isEnded() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ended
}

// older reports whether version a is before b; an unparsable version
// counts as not older, so the event is sent.
func (r *hubRun[T]) older(a, b string) bool {
	c, err := r.hub.s.CompareResourceVersions(a, b)
	return err == nil && c < 0
}

// add registers w and queues the buffered events after w.from.
func (r *hubRun[T]) add(w *hubWatch[T]) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if w.from == "" {
		w.from = r.ringRV
		if n := len(r.ring); n > 0 {
			w.from = r.ring[(r.head+n-1)%n].ev.ResourceVersion
		}
	}
	if r.older(w.from, r.ringRV) {
		return fmt.Errorf("cluster: %s: watch from version %s: the watch cache starts at %s: %w", r.hub.s.kind.resource, w.from, r.ringRV, source.ErrExpired)
	}
	for i := range r.ring {
		e := &r.ring[(r.head+i)%len(r.ring)]
		if (e.old == w.value || e.new == w.value) && r.older(w.from, e.ev.ResourceVersion) {
			w.push(e.ev)
		}
	}
	set := r.subs[w.value]
	if set == nil {
		set = make(map[*hubWatch[T]]bool)
		r.subs[w.value] = set
	}
	set[w] = true
	r.n++
	return nil
}

// remove unregisters w and reports whether the run stopped (no watch left).
func (r *hubRun[T]) remove(w *hubWatch[T]) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if set := r.subs[w.value]; set[w] {
		delete(set, w)
		if len(set) == 0 {
			delete(r.subs, w.value)
		}
		r.n--
	}
	return r.stopIfIdleLocked()
}

// stopIfIdle ends the run if no watch is left, and reports whether it
// has ended.
func (r *hubRun[T]) stopIfIdle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stopIfIdleLocked()
}

func (r *hubRun[T]) stopIfIdleLocked() bool {
	if r.n == 0 && !r.ended {
		r.ended = true
		r.cancel()
	}
	return r.ended
}

// loop dispatches the shared watch until it ends.
func (r *hubRun[T]) loop(in <-chan source.Event[T]) {
	defer func() {
		for range in {
		}
	}()
	for ev := range in {
		if !r.dispatch(ev) {
			return
		}
	}
	r.end(fmt.Errorf("cluster: %s: the watch cache's watch ended: %w", r.hub.s.kind.resource, source.ErrExpired))
}

func (r *hubRun[T]) dispatch(ev source.Event[T]) bool {
	switch ev.Type {
	case source.Error:
		r.end(ev.Err)
		return false
	case source.Bookmark:
		r.mu.Lock()
		r.rv = ev.ResourceVersion
		for _, set := range r.subs {
			for w := range set {
				if w.bookmarks && r.older(w.from, ev.ResourceVersion) {
					w.push(ev)
				}
			}
		}
		r.mu.Unlock()
		return true
	}
	k := api.Key(ev.Object)
	e := hubEvent[T]{ev: ev, new: r.hub.t.value(ev.Object)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return false
	}
	old, known := r.last[k]
	e.old, e.existed = old, known
	if known {
		e.prev = r.objs[old][k]
		r.unindex(old, k)
	}
	if ev.Type == source.Deleted {
		delete(r.last, k)
	} else {
		r.last[k] = e.new
		r.index(e.new, k, ev.Object)
	}
	r.rv = ev.ResourceVersion
	if len(r.ring) < hubRingSize {
		r.ring = append(r.ring, e)
	} else { // overwrite the oldest: O(1) per event
		r.ringRV = r.ring[r.head].ev.ResourceVersion
		r.ring[r.head] = e
		r.head = (r.head + 1) % hubRingSize
	}
	r.send(e.new, ev)
	if e.old != e.new {
		r.send(e.old, ev)
	}
	return true
}

func (r *hubRun[T]) send(value string, ev source.Event[T]) {
	for w := range r.subs[value] {
		if r.older(w.from, ev.ResourceVersion) {
			w.push(ev)
		}
	}
}

// end closes every watch with err; the next watch starts a new run.
func (r *hubRun[T]) end(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return
	}
	r.ended = true
	r.cancel()
	for _, set := range r.subs {
		for w := range set {
			w.push(source.Event[T]{Type: source.Error, Err: err})
		}
	}
}

// push queues ev (never blocking the hub); an Error event is the last.
func (w *hubWatch[T]) push(ev source.Event[T]) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return
	}
	if len(w.queue) >= hubQueueLimit {
		ev = source.Event[T]{Type: source.Error, Err: fmt.Errorf("cluster: a watch fell %d events behind: %w", hubQueueLimit, source.ErrExpired)}
	}
	w.queue = append(w.queue, ev)
	w.closed = ev.Type == source.Error
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run sends the queued events to out until ctx ends or an Error was sent.
func (w *hubWatch[T]) run(ctx context.Context, out chan<- source.Event[T], done func()) {
	defer done()
	defer close(out)
	for {
		w.mu.Lock()
		batch := w.queue
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range batch {
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
			if ev.Type == source.Error {
				return
			}
		}
		select {
		case <-w.wake:
		case <-ctx.Done():
			return
		}
	}
}
