package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ctrlkit/ctrlkit/source"
)

// Source is a source.ListWatcher, source.VersionComparer and writer
// of objects of type T stored under one key prefix of an etcd cluster.
// See the package documentation for its guarantees. A Source is safe for
// concurrent use; create it with New.
type Source[T any] struct {
	client *clientv3.Client
	opts   Options[T]
	// end is the exclusive end of the prefix's key range.
	end string
}

// New returns a Source over client and opts.Prefix. It starts no
// goroutine and makes no request. The client stays the caller's: close it
// after the last use of the Source.
func New[T any](client *clientv3.Client, opts Options[T]) (*Source[T], error) {
	if client == nil {
		return nil, errors.New("etcd: New: nil client")
	}
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	return &Source[T]{
		client: client,
		opts:   opts,
		end:    clientv3.GetPrefixRangeEnd(opts.Prefix),
	}, nil
}

// Prefix returns the key prefix the source owns.
func (s *Source[T]) Prefix() string { return s.opts.Prefix }

// Get returns the object stored under key and the resourceVersion of its
// last write (its etcd mod revision), or an error wrapping
// source.ErrNotFound. The read is linearizable.
func (s *Source[T]) Get(ctx context.Context, key string) (T, string, error) {
	var zero T
	if ctx == nil {
		return zero, "", errNilContext
	}
	if key == "" {
		return zero, "", errors.New("etcd: get: empty key")
	}
	resp, err := s.client.Get(ctx, s.opts.Prefix+key)
	if err != nil {
		return zero, "", fmt.Errorf("etcd: get %q: %w", key, mapErr(err))
	}
	if len(resp.Kvs) == 0 {
		return zero, "", fmt.Errorf("etcd: get %q: %w", key, source.ErrNotFound)
	}
	kv := resp.Kvs[0]
	obj, err := s.decode(kv)
	if err != nil {
		return zero, "", err
	}
	return obj, source.FormatRevision(kv.ModRevision), nil
}

// CompareResourceVersions implements source.VersionComparer: the
// resourceVersions are etcd revisions, non-negative decimal integers.
func (s *Source[T]) CompareResourceVersions(a, b string) (int, error) {
	return source.CompareRevisions(a, b)
}

// decode decodes a stored value and stamps the revision of its last write
// into it.
func (s *Source[T]) decode(kv *mvccpb.KeyValue) (T, error) {
	return s.decodeRV(kv, "")
}

// decodeRV is decode with kv.ModRevision already formatted as rv ("":
// not yet), which saves an allocation per watch event.
func (s *Source[T]) decodeRV(kv *mvccpb.KeyValue, rv string) (T, error) {
	obj, err := s.opts.Codec.Decode(kv.Value)
	if err == nil {
		if _, ok := any(obj).(source.VersionSetter); ok {
			if rv == "" {
				rv = source.FormatRevision(kv.ModRevision)
			}
			err = source.StampResourceVersion(obj, rv)
		}
	}
	if err != nil {
		var zero T
		return zero, &DecodeError{Key: string(kv.Key), Revision: kv.ModRevision, Err: err}
	}
	return obj, nil
}

// key returns the object key of obj, turning a panic of the key function
// into an error.
func (s *Source[T]) key(op string, obj T) (key string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("etcd: %s: the key function panicked: %v", op, p)
		}
	}()
	key = s.opts.KeyFunc(obj)
	if key == "" {
		return "", fmt.Errorf("etcd: %s: the key function returned an empty key", op)
	}
	return key, nil
}

// mapErr adds the reflector sentinel that matches an etcd error.
func mapErr(err error) error {
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		return fmt.Errorf("%w: %w", source.ErrExpired, err)
	case errors.Is(err, rpctypes.ErrFutureRev):
		return fmt.Errorf("%w: %w", source.ErrFutureVersion, err)
	}
	switch grpcCode(err) {
	case codes.Unavailable, codes.ResourceExhausted:
		// No member to serve the request, or too many requests: the
		// same request may succeed after a backoff.
		return fmt.Errorf("%w: %w", source.ErrTransient, err)
	}
	return err
}

// grpcCode returns the gRPC status code of err, as the client's typed
// errors or a plain gRPC status carry it.
func grpcCode(err error) codes.Code {
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		return ee.Code()
	}
	return status.Code(err)
}

// errNilContext is returned by every call given a nil context.
var errNilContext = errors.New("etcd: context is nil")

var (
	_ source.ListWatcher[int] = (*Source[int])(nil)
	_ source.Writer[int]      = (*Source[int])(nil)
	_ source.VersionComparer  = (*Source[int])(nil)
)
