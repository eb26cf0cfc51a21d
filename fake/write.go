package fake

import (
	"context"
	"fmt"
	"reflect"

	"github.com/ctrlkit/ctrlkit/source"
)

// Create stores obj under its key and returns the resourceVersion of the
// write. It fails with an error wrapping source.ErrAlreadyExists when
// the key is taken.
//
// If T implements source.VersionSetter the new resourceVersion is
// stamped into the stored object (into obj itself unless Options.Copy is
// set).
func (s *Source[T]) Create(ctx context.Context, obj T) (string, error) {
	key, stored, size, err := s.prepare(ctx, "create", obj)
	if err != nil {
		return "", err
	}
	if err := s.shareCreated(stored); err != nil {
		return "", err
	}
	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	defer s.dispatch()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items.Get(item[T]{key: key}); ok {
		return "", fmt.Errorf("fake: create %q: %w", key, source.ErrAlreadyExists)
	}
	rec := record[T]{typ: source.Added, key: key, obj: stored}
	if err := s.commitLocked(&rec, size); err != nil {
		return "", err
	}
	return rec.rv, nil
}

// Update replaces the object stored under obj's key, on the condition
// that the stored object is at the version obj carries, and returns the
// resourceVersion of the write. The precondition is ifVersion when it is
// not empty, and otherwise obj's own resourceVersion (when T implements
// source.Versioned and it is not empty), as in Kubernetes: an object read,
// changed and written back fails with an error wrapping
// source.ErrConflict if someone wrote it meanwhile. An object that carries
// no version, with ifVersion "", is written unconditionally. A missing
// key fails with an error wrapping source.ErrNotFound.
//
// An update that changes nothing (Options.Equal) is not written, as
// kube-apiserver drops such writes: Update returns the stored object's
// version, and no event is sent. A controller that writes its status on
// every sync would otherwise wake itself up forever.
//
// Stamping works as for Create.
func (s *Source[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	key, stored, size, err := s.prepare(ctx, "update", obj)
	if err != nil {
		return "", err
	}
	if ifVersion == "" {
		ifVersion = source.ResourceVersionOf(obj)
	}
	want, err := parseIfVersion("update", key, ifVersion)
	if err != nil {
		return "", err
	}
	if err := s.share(key, stored); err != nil {
		return "", err
	}
	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	defer s.dispatch()
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.preconditionLocked("update", key, want)
	if err != nil {
		return "", err
	}
	if s.unchangedLocked(cur, stored) {
		return cur.rv, nil
	}
	rec := record[T]{typ: source.Modified, key: key, obj: stored, prev: cur.obj, size: cur.size}
	if err := s.commitLocked(&rec, size); err != nil {
		return "", err
	}
	return rec.rv, nil
}

// Delete removes the object stored under key and returns the
// resourceVersion of the delete. ifVersion works as for Update. Watchers
// receive a Deleted event carrying the object's last state, unchanged (it
// keeps the resourceVersion of its last write; the event carries the
// delete's).
func (s *Source[T]) Delete(ctx context.Context, key string, ifVersion string) (string, error) {
	if err := ctxErr(ctx); err != nil {
		return "", err
	}
	if key == "" {
		return "", fmt.Errorf("fake: delete: empty key")
	}
	want, err := parseIfVersion("delete", key, ifVersion)
	if err != nil {
		return "", err
	}
	s.dispatchMu.Lock()
	defer s.dispatchMu.Unlock()
	defer s.dispatch()
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, err := s.preconditionLocked("delete", key, want)
	if err != nil {
		return "", err
	}
	rec := record[T]{typ: source.Deleted, key: key, obj: cur.obj, size: cur.size}
	if err := s.commitLocked(&rec, 0); err != nil {
		return "", err
	}
	return rec.rv, nil
}

// prepare computes obj's key, the object to store and its size, turning
// a panic of the user's key, copy or size function into an error, and
// enforces Options.MaxObjectSize.
func (s *Source[T]) prepare(ctx context.Context, op string, obj T) (key string, stored T, size int64, err error) {
	if err := ctxErr(ctx); err != nil {
		return "", stored, 0, err
	}
	what := "key or copy function"
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fake: %s: %s panicked: %v", op, what, p)
		}
	}()
	key = s.keyFunc(obj)
	if key == "" {
		return "", stored, 0, fmt.Errorf("fake: %s: the key function returned an empty key", op)
	}
	stored = obj
	if s.opts.Copy != nil {
		stored = s.opts.Copy(obj)
	}
	if s.opts.Size != nil {
		what = "size function"
		size = int64(s.opts.Size(stored))
		if max := s.opts.MaxObjectSize; max > 0 && size > int64(max) {
			return "", stored, 0, fmt.Errorf("fake: %s %q: the object has %d bytes, more than the limit of %d: %w", op, key, size, max, ErrTooLarge)
		}
	}
	return key, stored, size, nil
}

// share lets next take the parts of the object stored under key that
// are equal to its own (Options.Share), turning a panic of the user's
// function into an error.
func (s *Source[T]) share(key string, next T) (err error) {
	if s.opts.Share == nil {
		return nil
	}
	s.mu.Lock()
	cur, ok := s.items.Get(item[T]{key: key})
	s.mu.Unlock()
	if !ok {
		return nil // the update fails with ErrNotFound
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fake: update: share function panicked: %v", p)
		}
	}()
	s.opts.Share(cur.obj, next)
	return nil
}

// shareCreated lets next, the object a create is about to store, take
// equal parts of objects stored before it (Options.ShareCreated),
// turning a panic of the user's function into an error.
func (s *Source[T]) shareCreated(next T) (err error) {
	if s.opts.ShareCreated == nil {
		return nil
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("fake: create: share function panicked: %v", p)
		}
	}()
	s.opts.ShareCreated(next)
	return nil
}

// parseIfVersion parses a write precondition; -1 means none.
func parseIfVersion(op, key, ifVersion string) (int64, error) {
	if ifVersion == "" {
		return -1, nil
	}
	n, err := source.ParseRevision(ifVersion)
	if err != nil {
		return 0, fmt.Errorf("fake: %s %q: precondition: %w", op, key, err)
	}
	return n, nil
}

// preconditionLocked returns the stored item of key, checking that it
// exists and, when want >= 0, that its last write is at revision want.
func (s *Source[T]) preconditionLocked(op, key string, want int64) (item[T], error) {
	cur, ok := s.items.Get(item[T]{key: key})
	if !ok {
		return cur, fmt.Errorf("fake: %s %q: %w", op, key, source.ErrNotFound)
	}
	if want >= 0 && cur.rev != want {
		return cur, fmt.Errorf("fake: %s %q: resource version %d is stale, the object is at %d: %w", op, key, want, cur.rev, source.ErrConflict)
	}
	return cur, nil
}

// commitLocked applies rec as the next revision: it stamps the stored
// object, updates the state and the history (forgetting the oldest
// writes beyond Options.HistorySize and HistoryBytes), and leaves the
// write for dispatch to hand to the watchers open now. size is the new object's Options.Size. It fills in rec.rev,
// rec.rv and rec.hidden.
func (s *Source[T]) commitLocked(rec *record[T], size int64) error {
	rec.rev = s.rev + 1
	rec.rv = source.FormatRevision(rec.rev)
	if rec.typ != source.Deleted {
		if err := source.StampResourceVersion(rec.obj, rec.rv); err != nil {
			return fmt.Errorf("fake: %w", err)
		}
	}
	s.rev = rec.rev
	if rec.typ == source.Deleted {
		s.items.Delete(item[T]{key: rec.key})
	} else {
		s.items.ReplaceOrInsert(item[T]{key: rec.key, obj: rec.obj, rev: rec.rev, rv: rec.rv, size: size})
	}
	if s.faults.missNext > 0 {
		s.faults.missNext--
		rec.hidden = true
	}
	s.compacted += int64(s.hist.push(*rec, s.opts.HistorySize))
	if s.opts.Size != nil {
		s.compacted += int64(s.hist.trim(s.opts.HistoryBytes))
	}
	if !rec.hidden && len(s.watchers) > 0 {
		s.out, s.outOK = *rec, true
		for w := range s.watchers {
			if !w.behind.Load() {
				s.outTo = append(s.outTo, w)
			}
		}
		s.undispatched.Store(rec.rev)
	}
	return nil
}

// unchangedLocked reports whether writing stored over cur would change
// nothing: Options.Equal says so once stored carries cur's version. The
// stored object itself (the caller's, changed in place) always counts as
// a change, since the source can no longer see what it was.
func (s *Source[T]) unchangedLocked(cur item[T], stored T) bool {
	if s.opts.Equal == nil || samePointer(cur.obj, stored) {
		return false
	}
	if err := source.StampResourceVersion(stored, cur.rv); err != nil {
		return false
	}
	return s.opts.Equal(cur.obj, stored)
}

// samePointer reports whether a and b are the same non-nil pointer.
func samePointer[T any](a, b T) bool {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	return va.Kind() == reflect.Pointer && vb.Kind() == reflect.Pointer && !va.IsNil() && va.Pointer() == vb.Pointer()
}
