package etcd

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/ctrlkit/ctrlkit/source"
)

// List implements source.ListWatcher: a range read over the prefix at
// one revision, in key order.
//
//   - opts.ResourceVersion "": the latest revision (a linearizable read);
//   - a version v with source.NotOlderThan (the default): the latest
//     revision, which is at least v (source.ErrFutureVersion when v is
//     newer than the cluster's revision; an old v is never expired);
//   - a version v with source.Exact: exactly revision v; an error
//     wrapping source.ErrExpired when etcd has compacted v away (and for
//     "0", which precedes etcd's first revision),
//     source.ErrFutureVersion when v is newer than the cluster's
//     revision;
//   - opts.Continue (opts.ResourceVersion is then ignored): the next page
//     of the list that returned the token, at that list's revision; the
//     token expires (source.ErrExpired) when that revision is
//     compacted.
//
// With opts.Limit > 0 at most Limit items are returned, and List.Continue
// is non-empty exactly when more keys follow. Without a limit the whole
// prefix is returned, read in pages of Options.PageSize at one revision.
// A value that does not decode is left out (see DecodeError).
func (s *Source[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	var out source.List[T]
	if opts.Limit < 0 {
		return out, fmt.Errorf("etcd: list: negative limit %d", opts.Limit)
	}
	if ctx == nil {
		return out, errNilContext
	}
	var (
		rev   int64
		floor int64
		start = s.opts.Prefix
		err   error
	)
	switch {
	case opts.Continue != "":
		var after string
		if rev, after, err = decodeContinue(opts.Continue); err != nil {
			return out, err
		}
		start = s.opts.Prefix + after + "\x00"
	case opts.ResourceVersion == "":
	case opts.ResourceVersionMatch == source.NotOlderThan:
		if floor, err = source.ParseRevision(opts.ResourceVersion); err != nil {
			return out, fmt.Errorf("etcd: list: %w", err)
		}
	case opts.ResourceVersionMatch == source.Exact:
		if rev, err = source.ParseRevision(opts.ResourceVersion); err != nil {
			return out, fmt.Errorf("etcd: list: %w", err)
		}
		if rev == 0 {
			return out, fmt.Errorf("etcd: list at revision 0, before etcd's first revision: %w", source.ErrExpired)
		}
	default:
		return out, fmt.Errorf("etcd: list: unknown resourceVersionMatch %v", opts.ResourceVersionMatch)
	}
	pageSize := s.opts.PageSize
	if opts.Limit > 0 {
		pageSize = opts.Limit
	}
	for {
		p, err := s.page(ctx, start, rev, pageSize)
		if err != nil {
			return out, fmt.Errorf("etcd: list: %w", err)
		}
		rev = p.rev
		if rev < floor {
			return out, fmt.Errorf("etcd: list: resource version %d is newer than the cluster's %d: %w", floor, rev, source.ErrFutureVersion)
		}
		if out.Items == nil {
			out.Items = p.items
		} else {
			out.Items = append(out.Items, p.items...)
		}
		if p.next == "" {
			break
		}
		if opts.Limit > 0 {
			out.Continue = encodeContinue(rev, p.last)
			break
		}
		start = p.next
	}
	out.ResourceVersion = source.FormatRevision(rev)
	return out, nil
}

// page is one range read.
type page[T any] struct {
	items []T
	// rev is the revision the page was read at.
	rev int64
	// last is the object key of the last item; next the etcd key to
	// continue from ("" when the range is exhausted).
	last, next string
}

// page reads up to limit keys from start to the end of the prefix at rev
// (0: the latest).
func (s *Source[T]) page(ctx context.Context, start string, rev, limit int64) (page[T], error) {
	var p page[T]
	ops := []clientv3.OpOption{clientv3.WithRange(s.end), clientv3.WithLimit(limit)}
	if rev > 0 {
		ops = append(ops, clientv3.WithRev(rev))
	}
	resp, err := s.client.Get(ctx, start, ops...)
	if err != nil {
		if rev > 0 {
			return p, fmt.Errorf("at revision %d: %w", rev, mapErr(err))
		}
		return p, mapErr(err)
	}
	p.rev = rev
	if rev == 0 {
		p.rev = resp.Header.Revision
	}
	p.items = make([]T, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		obj, err := s.decode(kv)
		if err != nil {
			s.quarantine(err)
			continue
		}
		p.items = append(p.items, obj)
	}
	if resp.More && len(resp.Kvs) > 0 {
		lastKey := string(resp.Kvs[len(resp.Kvs)-1].Key)
		p.last = strings.TrimPrefix(lastKey, s.opts.Prefix)
		p.next = lastKey + "\x00"
	}
	return p, nil
}

// continueVersion is the first field of a continue token, so that a token
// format change can be told from garbage.
const continueVersion = "c1"

// encodeContinue returns the token for the page after key at rev.
func encodeContinue(rev int64, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(continueVersion + ":" + strconv.FormatInt(rev, 10) + ":" + key))
}

// decodeContinue parses a token made by encodeContinue.
func decodeContinue(token string) (rev int64, key string, err error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		ver, rest, ok1 := strings.Cut(string(raw), ":")
		revStr, k, ok2 := strings.Cut(rest, ":")
		if ok1 && ok2 && ver == continueVersion {
			if rev, err = strconv.ParseInt(revStr, 10, 64); err == nil && rev > 0 && k != "" {
				return rev, k, nil
			}
		}
	}
	return 0, "", fmt.Errorf("etcd: list: malformed continue token %q: %w", token, source.ErrBadContinue)
}

// quarantine logs a value that does not decode and hands it to
// Options.OnDecodeError.
func (s *Source[T]) quarantine(err error) {
	var de *DecodeError
	if !errors.As(err, &de) {
		de = &DecodeError{Err: err}
	}
	s.opts.Logger.Warn("etcd: leaving out a stored value that does not decode",
		"key", de.Key, "revision", de.Revision, "err", de.Err)
	if f := s.opts.OnDecodeError; f != nil {
		f(de)
	}
}
