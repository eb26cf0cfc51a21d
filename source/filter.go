package source

import (
	"context"
	"errors"
	"fmt"
)

// Filter returns a ListWatcher that serves only the objects of lw for which
// match returns true, with the semantics of Kubernetes' watch cache for a
// label or field selector: a watched object that starts matching arrives
// as Added, one that stops matching as Deleted (carrying its last matching
// state), one that matches before and after as Modified, and changes to
// objects that match neither before nor after are not sent. key returns an
// object's key, as the source keys it. If lw implements VersionComparer, so
// does the result. match and key must be pure and quick; they run on the
// caller's goroutine for List and on the watch's goroutine for Watch.
//
// List filters each page of lw's list; a page may hold fewer than
// opts.Limit items (even none) while its Continue token is set.
//
// # How a watch knows what matched before
//
// An Event carries the new state only, so telling "stopped matching" from
// "never matched" needs the state before the event. Each watch keeps the
// set of keys whose current state matches (with that state), seeded at the
// watch's starting version:
//
//   - From a resourceVersion: a List of lw at exactly that version
//     (ResourceVersionMatch Exact) seeds the set, then the watch of lw
//     starts from the same version. A version lw no longer retains fails
//     Watch with the List's error (ErrExpired), as the watch itself would.
//   - From "" (now): a List of the latest state seeds the set, and the
//     watch starts at the List's version.
//   - With SendInitialEvents: the initial Added events seed the set.
//
// The seed costs one unfiltered List of lw per watch; in exchange every
// transition is exact: no spurious Deleted for an object the watcher never
// saw, no missed Deleted for one that stopped matching. Memory is one map
// entry per matching key per watch.
func Filter[T any](lw ListWatcher[T], key func(T) string, match func(T) bool) ListWatcher[T] {
	f := &filter[T]{lw: lw, key: key, match: match}
	if vc, ok := lw.(VersionComparer); ok {
		return &comparingFilter[T]{filter: f, vc: vc}
	}
	return f
}

type filter[T any] struct {
	lw    ListWatcher[T]
	key   func(T) string
	match func(T) bool
}

type comparingFilter[T any] struct {
	*filter[T]
	vc VersionComparer
}

// CompareResourceVersions implements VersionComparer with the inner source's.
func (f *comparingFilter[T]) CompareResourceVersions(a, b string) (int, error) {
	return f.vc.CompareResourceVersions(a, b)
}

// check reports a misconfigured filter as an error rather than a panic.
func (f *filter[T]) check() error {
	switch {
	case f.lw == nil:
		return errors.New("source: Filter: the ListWatcher is nil")
	case f.key == nil:
		return errors.New("source: Filter: the key function is nil")
	case f.match == nil:
		return errors.New("source: Filter: the match function is nil")
	}
	return nil
}

// matches calls match, turning a panic into an error.
func (f *filter[T]) matches(obj T) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("source: Filter: match panicked: %v", p)
		}
	}()
	return f.match(obj), nil
}

// keyOf calls key, turning a panic or an empty key into an error.
func (f *filter[T]) keyOf(obj T) (k string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("source: Filter: key function panicked: %v", p)
		}
	}()
	if k = f.key(obj); k == "" {
		return "", errors.New("source: Filter: the key function returned an empty key")
	}
	return k, nil
}

// List returns the matching items of lw's list.
func (f *filter[T]) List(ctx context.Context, opts ListOptions) (List[T], error) {
	if err := f.check(); err != nil {
		return List[T]{}, err
	}
	l, err := f.lw.List(ctx, opts)
	if err != nil {
		return List[T]{}, err
	}
	items := l.Items[:0:0]
	for _, obj := range l.Items {
		ok, err := f.matches(obj)
		if err != nil {
			return List[T]{}, err
		}
		if ok {
			items = append(items, obj)
		}
	}
	l.Items = items
	return l, nil
}

// Watch streams the transitions of the matching set; see Filter.
func (f *filter[T]) Watch(ctx context.Context, opts WatchOptions) (<-chan Event[T], error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errors.New("source: Filter: nil context")
	}
	known := make(map[string]T)
	if !opts.SendInitialEvents {
		lo := ListOptions{ResourceVersion: opts.ResourceVersion}
		if opts.ResourceVersion != "" {
			lo.ResourceVersionMatch = Exact
		}
		l, err := f.lw.List(ctx, lo)
		if err != nil {
			return nil, fmt.Errorf("source: Filter: seed the watch: %w", err)
		}
		for _, obj := range l.Items {
			ok, err := f.matches(obj)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			k, err := f.keyOf(obj)
			if err != nil {
				return nil, err
			}
			known[k] = obj
		}
		opts.ResourceVersion = l.ResourceVersion
	}
	// The inner watch has a context of its own, so that a filter that
	// stops early (a bad key) can end it.
	innerCtx, cancel := context.WithCancel(ctx)
	in, err := f.lw.Watch(innerCtx, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	out := make(chan Event[T])
	go f.run(ctx, cancel, in, out, known)
	return out, nil
}

// run forwards the transitions of in to out until in closes or ctx ends.
func (f *filter[T]) run(ctx context.Context, cancel context.CancelFunc, in <-chan Event[T], out chan<- Event[T], known map[string]T) {
	// On the way out: close out, end the inner watch, and drain it so
	// that its goroutine is never left blocked on a send.
	defer func() {
		for range in {
		}
	}()
	defer cancel()
	defer close(out)
	send := func(ev Event[T]) bool {
		select {
		case out <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for ev := range in {
		fwd, ok, err := f.transition(known, ev)
		if err != nil {
			send(Event[T]{Type: Error, Err: err})
			return
		}
		if ok && !send(fwd) {
			return
		}
		if ev.Type == Error {
			return
		}
	}
}

// transition updates known with ev and returns the event to forward, if any.
func (f *filter[T]) transition(known map[string]T, ev Event[T]) (Event[T], bool, error) {
	switch ev.Type {
	case Added, Modified, Deleted:
	default: // Bookmark, Error and anything else pass through
		return ev, true, nil
	}
	k, err := f.keyOf(ev.Object)
	if err != nil {
		return ev, false, err
	}
	prev, was := known[k]
	if ev.Type == Deleted {
		if !was {
			return ev, false, nil
		}
		delete(known, k)
		return ev, true, nil
	}
	now, err := f.matches(ev.Object)
	if err != nil {
		return ev, false, err
	}
	switch {
	case now && was:
		known[k] = ev.Object
		return ev, true, nil
	case now:
		known[k] = ev.Object
		ev.Type = Added
		return ev, true, nil
	case was:
		delete(known, k)
		return Event[T]{Type: Deleted, Object: prev, ResourceVersion: ev.ResourceVersion}, true, nil
	}
	return ev, false, nil
}
