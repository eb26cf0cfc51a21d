package informer

import (
	"context"
	"sync"
)

// Resync gives every handler of the running informer, at once, an
// OnUpdate(obj, obj) for every cached object, in one pass over the
// cache, as if each handler's resync period had just elapsed — handlers
// without a period included. The handlers' periodic resyncs keep their
// schedule. It reports the number of cached objects resynced; before Run
// and once Run has returned it does nothing and reports 0.
func (inf *Informer[T]) Resync() int {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.state != stateRunning || len(inf.listeners) == 0 {
		return 0
	}
	n := 0
	for key, obj := range inf.idx.All() {
		n++
		for _, l := range inf.listeners {
			l.push(key, notification[T]{kind: kindUpdate, old: obj, obj: obj})
		}
	}
	return n
}

// Resyncs delivers resyncs on demand to the informers that run under a
// context carrying it (WithResyncs): each Informer's Run registers with
// the Resyncs of its context until it returns. It is the hook a test
// harness uses to make a controller's informers resync at a chosen
// moment without holding them (package harness's Resync fault). The zero
// value is ready to use; its methods are safe for concurrent use.
type Resyncs struct {
	mu   sync.Mutex
	next int
	subs map[int]func() int
}

type resyncsKey struct{}

// WithResyncs returns a copy of ctx carrying r: every Informer run under
// it (directly, or by a Factory started with it) resyncs when r.Resync
// is called.
func WithResyncs(ctx context.Context, r *Resyncs) context.Context {
	return context.WithValue(ctx, resyncsKey{}, r)
}

// Resync calls Resync on every running informer registered with r and
// returns how many there were.
func (r *Resyncs) Resync() int {
	r.mu.Lock()
	subs := make([]func() int, 0, len(r.subs))
	for _, f := range r.subs {
		subs = append(subs, f)
	}
	r.mu.Unlock()
	for _, f := range subs {
		f()
	}
	return len(subs)
}

// register adds f until the returned function is called.
func (r *Resyncs) register(f func() int) (unregister func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.subs == nil {
		r.subs = map[int]func() int{}
	}
	id := r.next
	r.next++
	r.subs[id] = f
	return func() {
		r.mu.Lock()
		delete(r.subs, id)
		r.mu.Unlock()
	}
}

// resyncsFrom returns the Resyncs ctx carries, or nil.
func resyncsFrom(ctx context.Context) *Resyncs {
	r, _ := ctx.Value(resyncsKey{}).(*Resyncs)
	return r
}

// Resync calls Resync on every informer f has started and returns how
// many there were.
func (f *Factory) Resync() int {
	f.mu.Lock()
	var infs []runnable
	for _, e := range f.order {
		if e.started {
			infs = append(infs, e.inf)
		}
	}
	f.mu.Unlock()
	for _, inf := range infs {
		inf.Resync()
	}
	return len(infs)
}
