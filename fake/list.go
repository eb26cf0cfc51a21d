package fake

import (
	"context"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/source"
)

// List implements source.ListWatcher. It returns the objects in key
// order as they were at exactly one revision:
//
//   - opts.ResourceVersion "": the current revision;
//   - a version v with source.NotOlderThan (the default): the current
//     revision, which is at least v; source.ErrFutureVersion when v is
//     newer than the last write (an old v is never expired);
//   - a version v with source.Exact: exactly revision v, reconstructed
//     from the history; an error wrapping source.ErrExpired when v is
//     older than the history, source.ErrFutureVersion when v is newer
//     than the last write;
//   - opts.Continue (opts.ResourceVersion is then ignored): the next page
//     of the list that returned the token, at that list's revision. The
//     token expires (source.ErrExpired) once that revision has left the
//     history.
//
// With opts.Limit > 0 at most Limit items are returned, and List.Continue
// is non-empty exactly when more items follow.
func (s *Source[T]) List(ctx context.Context, opts source.ListOptions) (source.List[T], error) {
	s.listCalls.Add(1)
	var out source.List[T]
	if err := ctxErr(ctx); err != nil {
		return out, err
	}
	if err := s.injected(ctx, &s.faults.lists); err != nil {
		return out, err
	}
	if opts.Limit < 0 {
		return out, fmt.Errorf("fake: list: negative limit %d", opts.Limit)
	}
	var (
		at       int64 = -1
		floor    int64 = -1
		after    string
		hasAfter bool
		err      error
	)
	switch {
	case opts.Continue != "":
		at, after, err = decodeContinue(opts.Continue)
		hasAfter = true
	case opts.ResourceVersion == "":
	case opts.ResourceVersionMatch == source.Exact:
		at, err = source.ParseRevision(opts.ResourceVersion)
	case opts.ResourceVersionMatch == source.NotOlderThan:
		floor, err = source.ParseRevision(opts.ResourceVersion)
	default:
		err = fmt.Errorf("unknown resourceVersionMatch %v", opts.ResourceVersionMatch)
	}
	if err != nil {
		return out, fmt.Errorf("fake: list: %w", err)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case floor > s.rev:
		return out, fmt.Errorf("fake: list: resource version %d is newer than the current %d: %w", floor, s.rev, source.ErrFutureVersion)
	case at < 0:
		at = s.rev
	default:
		if err := s.checkRevLocked("list", at); err != nil {
			return out, err
		}
	}
	items, last, more := s.pageLocked(at, after, hasAfter, opts.Limit)
	out.Items = items
	out.ResourceVersion = source.FormatRevision(at)
	if more {
		out.Continue = encodeContinue(at, last)
	}
	return out, nil
}

// override is the state of a key at an older revision.
type override[T any] struct {
	obj    T
	exists bool
}

// pageLocked returns up to limit (0: all) objects with keys after `after`
// (all keys when !hasAfter) as they were at revision at, which must be
// within the history. It reports the last key returned and whether more
// objects follow.
func (s *Source[T]) pageLocked(at int64, after string, hasAfter bool, limit int64) (out []T, last string, more bool) {
	// The state at `at` is the current state with every key written
	// since then put back as it was before its first later write.
	var (
		ov     map[string]override[T]
		ovKeys []string
	)
	if at < s.rev {
		ov = make(map[string]override[T])
		for r := at + 1; r <= s.rev; r++ {
			rec := s.hist.at(int(r - s.compacted - 1))
			if _, seen := ov[rec.key]; seen {
				continue
			}
			obj, ok := rec.before()
			ov[rec.key] = override[T]{obj: obj, exists: ok}
			if !hasAfter || rec.key > after {
				ovKeys = append(ovKeys, rec.key)
			}
		}
		slices.Sort(ovKeys)
	}

	size := s.items.Len() + len(ovKeys)
	if limit > 0 && int64(size) > limit {
		size = int(limit)
	}
	out = make([]T, 0, size)
	add := func(key string, obj T) bool {
		if limit > 0 && int64(len(out)) == limit {
			more = true
			return false
		}
		out = append(out, obj)
		last = key
		return true
	}
	j := 0
	// flush adds the older-state keys before bound (all when !bounded).
	flush := func(bound string, bounded bool) bool {
		for ; j < len(ovKeys) && (!bounded || ovKeys[j] < bound); j++ {
			if o := ov[ovKeys[j]]; o.exists && !add(ovKeys[j], o.obj) {
				return false
			}
		}
		return true
	}
	going := true
	s.items.AscendGreaterOrEqual(item[T]{key: after}, func(it item[T]) bool {
		if hasAfter && it.key == after {
			return true
		}
		if going = flush(it.key, true); !going {
			return false
		}
		obj := it.obj
		if o, ok := ov[it.key]; ok {
			j++ // flush stopped at it.key, which is in ovKeys
			if !o.exists {
				return true
			}
			obj = o.obj
		}
		going = add(it.key, obj)
		return going
	})
	if going {
		flush("", false)
	}
	return out, last, more
}

// A continue token is base64url("<revision>/<last key>").
func encodeContinue(at int64, last string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at, 10) + "/" + last))
}

func decodeContinue(tok string) (int64, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		if rv, key, ok := strings.Cut(string(raw), "/"); ok && key != "" {
			if at, err := source.ParseRevision(rv); err == nil {
				return at, key, nil
			}
		}
	}
	return 0, "", fmt.Errorf("malformed continue token %q: %w", tok, source.ErrBadContinue)
}
