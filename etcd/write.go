package etcd

import (
	"context"
	"errors"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/source"
)

// Create stores obj under its key in one transaction that succeeds only
// if the key is absent, and returns the resourceVersion (revision) of the
// write. A taken key fails with an error wrapping
// source.ErrAlreadyExists.
//
// The value is encoded as obj is; if T implements source.VersionSetter
// the new resourceVersion is stamped into obj after the write (objects read
// back from etcd are stamped with their own revision anyway).
func (s *Source[T]) Create(ctx context.Context, obj T) (string, error) {
	if ctx == nil {
		return "", errNilContext
	}
	key, data, err := s.prepare("create", obj)
	if err != nil {
		return "", err
	}
	k := s.opts.Prefix + key
	resp, err := s.client.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, string(data))).
		Commit()
	if err != nil {
		return "", fmt.Errorf("etcd: create %q: %w", key, mapErr(err))
	}
	if !resp.Succeeded {
		return "", fmt.Errorf("etcd: create %q: %w", key, source.ErrAlreadyExists)
	}
	return s.written("create", key, obj, resp.Header.Revision)
}

// Update replaces the object stored under obj's key, on the condition
// that the key's last write is at the version obj carries, and returns
// the resourceVersion of the write. The precondition is ifVersion when it
// is not empty, and otherwise obj's own resourceVersion (when T
// implements source.Versioned and it is not empty), as in Kubernetes; the
// key's last write must be at that revision (etcd's mod revision), or
// Update fails with an error wrapping source.ErrConflict. An object that
// carries no version, with ifVersion "", is written unconditionally.
// Every update is a new revision, even one that changes nothing, as in
// etcd itself (the cluster store drops no-op updates above it).
// A missing key fails with an error wrapping source.ErrNotFound. The
// check and the write are one transaction. Stamping works as for Create.
func (s *Source[T]) Update(ctx context.Context, obj T, ifVersion string) (string, error) {
	if ctx == nil {
		return "", errNilContext
	}
	key, data, err := s.prepare("update", obj)
	if err != nil {
		return "", err
	}
	if ifVersion == "" {
		ifVersion = source.ResourceVersionOf(obj)
	}
	k := s.opts.Prefix + key
	rev, err := s.guarded(ctx, "update", key, ifVersion, clientv3.OpPut(k, string(data)))
	if err != nil {
		return "", err
	}
	return s.written("update", key, obj, rev)
}

// Delete removes the object stored under key and returns the
// resourceVersion of the delete. ifVersion works as for Update. Watchers
// receive a Deleted event that carries the object's last state.
func (s *Source[T]) Delete(ctx context.Context, key string, ifVersion string) (string, error) {
	if ctx == nil {
		return "", errNilContext
	}
	if key == "" {
		return "", errors.New("etcd: delete: empty key")
	}
	rev, err := s.guarded(ctx, "delete", key, ifVersion, clientv3.OpDelete(s.opts.Prefix+key))
	if err != nil {
		return "", err
	}
	return source.FormatRevision(rev), nil
}

// guarded runs op in a transaction that requires the key to exist and,
// with ifVersion, to have been written last at that revision. On failure
// it reads the key in the same transaction to tell ErrNotFound from
// ErrConflict. It returns the revision of the write.
func (s *Source[T]) guarded(ctx context.Context, op, key, ifVersion string, write clientv3.Op) (int64, error) {
	k := s.opts.Prefix + key
	cmps := []clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(k), ">", 0)}
	if ifVersion != "" {
		want, err := source.ParseRevision(ifVersion)
		if err != nil {
			return 0, fmt.Errorf("etcd: %s %q: precondition: %w", op, key, err)
		}
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", want))
	}
	resp, err := s.client.Txn(ctx).
		If(cmps...).
		Then(write).
		Else(clientv3.OpGet(k, clientv3.WithKeysOnly())).
		Commit()
	if err != nil {
		return 0, fmt.Errorf("etcd: %s %q: %w", op, key, mapErr(err))
	}
	if resp.Succeeded {
		return resp.Header.Revision, nil
	}
	kvs := resp.Responses[0].GetResponseRange().GetKvs()
	if len(kvs) == 0 {
		return 0, fmt.Errorf("etcd: %s %q: %w", op, key, source.ErrNotFound)
	}
	return 0, fmt.Errorf("etcd: %s %q: resource version %s is stale, the object is at %d: %w",
		op, key, ifVersion, kvs[0].ModRevision, source.ErrConflict)
}

// prepare computes obj's key and stored value.
func (s *Source[T]) prepare(op string, obj T) (string, []byte, error) {
	key, err := s.key(op, obj)
	if err != nil {
		return "", nil, err
	}
	data, err := s.opts.Codec.Encode(obj)
	if err != nil {
		return "", nil, fmt.Errorf("etcd: %s %q: encode: %w", op, key, err)
	}
	return key, data, nil
}

// written stamps obj with the revision of its write and returns it as a
// resourceVersion.
func (s *Source[T]) written(op, key string, obj T, rev int64) (string, error) {
	rv := source.FormatRevision(rev)
	if err := source.StampResourceVersion(obj, rv); err != nil {
		return rv, fmt.Errorf("etcd: %s %q: written at %s, but: %w", op, key, rv, err)
	}
	return rv, nil
}
