package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/source"
)

// maxRetries bounds the retries of an unconditional write that keeps
// losing races with other writers (kube-apiserver's GuaranteedUpdate loops
// the same way).
const maxRetries = 64

// generateNameAttempts is how many suffixes a create with generateName
// tries before giving up with ErrAlreadyExists (Kubernetes retries too).
const generateNameAttempts = 8

// Create creates obj, as kube-apiserver does: it sets the uid, the
// creationTimestamp, generation 1 (kinds with a spec), the name from
// generateName plus five random characters when the name is empty, the
// namespace "default" when a namespaced object has none, apiVersion and
// kind; applies the kind's defaults; validates (an *InvalidError wrapping
// ErrInvalid); refuses a create in a missing namespace (ErrNotFound) or a
// terminating one (ErrForbidden); runs Options.Admission; and stores it.
// Server-owned fields the caller set (uid, resourceVersion,
// deletionTimestamp, status of a pod) are reset. A taken name fails with
// ErrAlreadyExists.
//
// On success obj is overwritten with the object as stored, its
// resourceVersion included, so the caller learns the generated name and
// the defaults; the store keeps its own copy.
func (s *Store[T]) Create(ctx context.Context, obj T) (string, error) {
	if err := checkObject(ctx, obj); err != nil {
		return "", fmt.Errorf("cluster: create %s: %w", s.kind.resource, err)
	}
	for attempt := 0; ; attempt++ {
		next := deepCopy(obj)
		generated, err := s.prepareCreate(next)
		if err != nil {
			return "", err
		}
		if svc, ok := any(next).(*api.Service); ok {
			// Allocation and the create that takes the addresses happen
			// under one lock.
			s.c.allocMu.Lock()
			rv, retry, err := s.createService(ctx, svc, generated && attempt < generateNameAttempts)
			s.c.allocMu.Unlock()
			if retry {
				continue
			}
			if err != nil {
				return "", err
			}
			assign(obj, next)
			return rv, nil
		}
		if err := s.c.admitCreate(ctx, s.kind.resource, s.kind.namespaced, next); err != nil {
			return "", err
		}
		rv, err := s.create(ctx, next)
		if errors.Is(err, source.ErrAlreadyExists) && generated && attempt < generateNameAttempts {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cluster: create %s %q: %w", s.kind.resource, api.Key(next), err)
		}
		next.SetResourceVersion(rv)
		assign(obj, next)
		return rv, nil
	}
}

// createService allocates a service's addresses and creates it; the
// caller holds c.allocMu. retry reports a generated name that was taken.
func (s *Store[T]) createService(ctx context.Context, svc *api.Service, mayRetry bool) (rv string, retry bool, err error) {
	if err := s.c.allocateServiceAddresses(ctx, svc); err != nil {
		return "", false, err
	}
	if err := s.c.admitCreate(ctx, s.kind.resource, s.kind.namespaced, svc); err != nil {
		return "", false, err
	}
	rv, err = storeOf[*api.Service](s.c).create(ctx, svc)
	if errors.Is(err, source.ErrAlreadyExists) && mayRetry {
		return "", true, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("cluster: create %s %q: %w", s.kind.resource, api.Key(svc), err)
	}
	svc.SetResourceVersion(rv)
	return rv, false, nil
}

// prepareCreate turns a caller's object into the one to store and
// validates it. It reports whether the name was generated.
func (s *Store[T]) prepareCreate(obj T) (generated bool, err error) {
	m := obj.GetObjectMeta()
	if m.Name == "" && m.GenerateName != "" {
		m.Name = m.GenerateName + randomSuffix()
		generated = true
	}
	if s.kind.namespaced && m.Namespace == "" {
		m.Namespace = "default"
	}
	if !s.kind.namespaced {
		m.Namespace = ""
	}
	m.UID = newUID()
	m.ResourceVersion = ""
	m.CreationTimestamp = api.NewTime(now())
	m.DeletionTimestamp = nil
	m.DeletionGracePeriodSeconds = nil
	m.Generation = 0
	if s.kind.hasSpec {
		m.Generation = 1
	}
	s.kind.setTypeMeta(obj)
	if s.kind.hasStatus && !s.kind.keepStatusOnCreate {
		s.kind.clearStatus(obj)
	}
	if s.kind.defaults != nil {
		s.kind.defaults(obj)
	}
	if s.kind.prepareCreate != nil {
		s.kind.prepareCreate(obj)
	}
	var fs fieldErrors
	validateMeta(m, s.kind.resource, s.kind.namespaced, &fs)
	if s.kind.validate != nil {
		s.kind.validate(obj, &fs)
	}
	if s.kind.validateCreate != nil {
		s.kind.validateCreate(obj, &fs)
	}
	return generated, fs.err(s.kind.resource, m.Name)
}

// Update replaces the object stored under obj's key with obj, as
// kube-apiserver does: the precondition is ifVersion, or when that is ""
// obj's own metadata.resourceVersion (an empty one writes
// unconditionally), and a stale one fails with ErrConflict; a missing
// object fails with ErrNotFound. The server-owned metadata (uid,
// creationTimestamp, deletionTimestamp, generation) is kept, status
// changes are ignored (UpdateStatus writes status), the kind's defaults
// are applied, generation is bumped when the spec changes, and the result
// is validated, including the fields the kind makes immutable. An update
// that changes nothing is not written: Update returns the stored version
// and no watcher sees an event. A uid in obj that is not the stored
// object's fails with ErrConflict. An object being deleted may only lose
// finalizers; when it loses its last one (and no grace period is
// pending), it is removed.
//
// On success obj is overwritten with the object as stored.
func (s *Store[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	if err := checkObject(ctx, obj); err != nil {
		return "", fmt.Errorf("cluster: update %s: %w", s.kind.resource, err)
	}
	if ifVersion == "" {
		ifVersion = obj.GetResourceVersion()
	}
	return s.write(ctx, "update", api.Key(obj), ifVersion, obj, func(cur T) (T, error) {
		next := deepCopy(obj)
		s.keepServerFields(next, cur)
		s.kind.copyStatus(next, cur)
		if s.kind.defaults != nil {
			s.kind.defaults(next)
		}
		if !s.kind.specEqual(cur, next) {
			next.GetObjectMeta().Generation = cur.GetObjectMeta().Generation + 1
		}
		var fs fieldErrors
		validateMeta(next.GetObjectMeta(), s.kind.resource, s.kind.namespaced, &fs)
		if s.kind.validate != nil {
			s.kind.validate(next, &fs)
		}
		if s.kind.validateUpdate != nil {
			s.kind.validateUpdate(cur, next, &fs)
		}
		s.validateDeleting(cur, next, &fs)
		return next, fs.err(s.kind.resource, next.GetObjectMeta().Name)
	})
}

// UpdateStatus writes obj's status over the stored object, and nothing
// else (Kubernetes' status subresource): spec and metadata changes in obj
// (but its managedFields, when set) are ignored and the generation does
// not change. Preconditions, no-op detection and the result in obj are
// as for Update. A kind without status fails with ErrBadRequest.
func (s *Store[T]) UpdateStatus(ctx context.Context, obj T) (string, error) {
	if err := checkObject(ctx, obj); err != nil {
		return "", fmt.Errorf("cluster: update %s status: %w", s.kind.resource, err)
	}
	if !s.kind.hasStatus {
		return "", fmt.Errorf("cluster: %s have no status: %w", s.kind.resource, ErrBadRequest)
	}
	return s.write(ctx, "update status", api.Key(obj), obj.GetResourceVersion(), obj, func(cur T) (T, error) {
		next := deepCopy(cur)
		s.kind.copyStatus(next, deepCopy(obj))
		if mf := obj.GetObjectMeta().ManagedFields; mf != nil {
			// The managed fields a field manager computed for the
			// status write (kube keeps them, as it keeps no other
			// metadata change of a status write).
			next.GetObjectMeta().ManagedFields = deepCopy(obj).GetObjectMeta().ManagedFields
		}
		if s.kind.prepareStatus == nil {
			return next, nil
		}
		var fs fieldErrors
		s.kind.prepareStatus(cur, next, &fs)
		return next, fs.err(s.kind.resource, next.GetObjectMeta().Name)
	})
}

// write is the read-modify-write loop of Update and UpdateStatus: mutate
// computes the object to store from the current one. A write without a
// precondition that loses a race is retried; one with a precondition
// fails with ErrConflict. obj's uid, when set, is a precondition too, as
// kube-apiserver makes it of an update: a copy of an object deleted and
// created again under the same name does not overwrite the new one.
func (s *Store[T]) write(ctx context.Context, op, key, ifVersion string, obj T, mutate func(cur T) (T, error)) (string, error) {
	uid := obj.GetObjectMeta().UID
	for range maxRetries {
		cur, curRV, err := s.s.Get(ctx, key)
		if err != nil {
			return "", fmt.Errorf("cluster: %s %s %q: %w", op, s.kind.resource, key, err)
		}
		if ifVersion != "" && ifVersion != curRV {
			return "", fmt.Errorf("cluster: %s %s %q: the object has been modified (resource version %s, now %s): %w",
				op, s.kind.resource, key, ifVersion, curRV, source.ErrConflict)
		}
		if curUID := cur.GetObjectMeta().UID; uid != "" && uid != curUID {
			return "", fmt.Errorf("cluster: %s %s %q: precondition failed: uid %s, the object's %s: %w",
				op, s.kind.resource, key, uid, curUID, source.ErrConflict)
		}
		next, err := mutate(cur)
		if err != nil {
			return "", err
		}
		next.SetResourceVersion(curRV)
		cur.SetResourceVersion(curRV)
		if jsonEqual(cur, next) {
			assign(obj, next)
			return curRV, nil
		}
		if err := s.c.admitUpdate(ctx, s.kind.resource, op, next, cur); err != nil {
			return "", err
		}
		var rv string
		m := next.GetObjectMeta()
		if IsDryRun(ctx) {
			assign(obj, next)
			return curRV, nil
		}
		if m.DeletionTimestamp != nil && !s.kind.finalizing(next) && (m.DeletionGracePeriodSeconds == nil || *m.DeletionGracePeriodSeconds == 0) {
			rv, err = s.s.Delete(ctx, key, curRV)
		} else {
			rv, err = s.s.Update(ctx, next, curRV)
		}
		if errors.Is(err, source.ErrConflict) && ifVersion == "" {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("cluster: %s %s %q: %w", op, s.kind.resource, key, err)
		}
		next.SetResourceVersion(rv)
		assign(obj, next)
		return rv, nil
	}
	return "", fmt.Errorf("cluster: %s %s %q: gave up after %d conflicting writes: %w", op, s.kind.resource, key, maxRetries, source.ErrConflict)
}

// keepServerFields copies into next the metadata only the server writes.
func (s *Store[T]) keepServerFields(next, cur T) {
	nm, cm := next.GetObjectMeta(), cur.GetObjectMeta()
	nm.UID = cm.UID
	nm.CreationTimestamp = cm.CreationTimestamp
	nm.DeletionTimestamp = cm.DeletionTimestamp
	nm.DeletionGracePeriodSeconds = cm.DeletionGracePeriodSeconds
	nm.Generation = cm.Generation
	nm.GenerateName = cm.GenerateName
	s.kind.setTypeMeta(next)
}

// validateDeleting enforces that an object being deleted only loses
// finalizers (and, for namespaces, spec finalizers).
func (s *Store[T]) validateDeleting(cur, next T, fs *fieldErrors) {
	cm, nm := cur.GetObjectMeta(), next.GetObjectMeta()
	if cm.DeletionTimestamp == nil {
		return
	}
	for _, f := range nm.Finalizers {
		if !slices.Contains(cm.Finalizers, f) {
			fs.forbidden("metadata.finalizers", "no new finalizers can be added if the object is being deleted, found new finalizer "+f)
		}
	}
	// Apart from finalizers (and spec finalizers, which the kind's
	// immutability rules keep from growing), nothing may change.
	a, b := deepCopy(cur), deepCopy(next)
	a.GetObjectMeta().Finalizers, b.GetObjectMeta().Finalizers = nil, nil
	a.GetObjectMeta().Generation, b.GetObjectMeta().Generation = 0, 0
	if s.kind.specFinalizers != nil {
		clearNamespaceFinalizers(a)
		clearNamespaceFinalizers(b)
	}
	if !jsonEqual(a, b) {
		fs.forbidden("metadata.deletionTimestamp", "the object is being deleted: an update may only remove finalizers and change status")
	}
}

// checkObject rejects a nil context or object.
func checkObject[T api.Object](ctx context.Context, obj T) (err error) {
	if ctx == nil {
		return errors.New("nil context")
	}
	defer func() {
		if recover() != nil {
			err = errors.New("nil object")
		}
	}()
	_ = obj.GetObjectMeta().Name
	return ctx.Err()
}

// now is the API server's clock: metadata timestamps have a resolution
// of one second, as in Kubernetes.
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// newUID returns a random (version 4) UUID.
func newUID() api.UID {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return api.UID(fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:]))
}

// suffixAlphabet is Kubernetes' utilrand alphabet: no vowels (no words),
// no 0, 1, 3 (no confusion with o, l, e).
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// randomSuffix returns the five random characters of a generated name.
func randomSuffix() string {
	b := make([]byte, 5)
	for i := range b {
		b[i] = suffixAlphabet[mrand.IntN(len(suffixAlphabet))]
	}
	return string(b)
}
