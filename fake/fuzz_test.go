package fake_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// FuzzSourceMatchesModel applies a script of writes, compactions and
// missed events to a source with a small history, then checks every List
// (at every revision, in pages of every size) and every Watch replay
// against a model that remembers every state.
//
// Script bytes: the first sets the history size (1..8); each next byte b
// is an operation on key b/8%4: b%8 in 0..2 create, 3..4 update, 5 delete,
// 6 compact, 7 miss the next event.
func FuzzSourceMatchesModel(f *testing.F) {
	for _, seed := range []string{
		"\x03\x00\x08\x10\x03\x0b\x05\x00",
		"\x08\x00\x08\x10\x18\x03\x0b\x13\x1b\x05\x0d\x00\x06\x03\x07\x03\x0b",
		"\x01\x00\x03\x03\x05\x00\x07\x03",
		"\x05\x00\x08\x07\x0b\x07\x10\x06\x13\x15\x03\x00",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		if len(script) == 0 || len(script) > 200 {
			return
		}
		ctx := t.Context()
		history := int(script[0])%8 + 1
		s := newSource(t, fake.Options[*pod]{HistorySize: history})

		type change struct {
			ev     short
			hidden bool
		}
		states := []map[string]string{{}} // states[rev]: key -> phase
		var changes []change              // changes[rev-1]
		floor := 0                        // oldest revision still listable
		miss := 0
		for i, b := range script[1:] {
			key := fmt.Sprintf("k%d", b/8%4)
			cur := maps.Clone(states[len(states)-1])
			phase := strconv.Itoa(i)
			var (
				rv  string
				err error
				typ source.EventType
			)
			_, exists := cur[key]
			switch op := b % 8; {
			case op <= 2:
				rv, err = s.Create(ctx, &pod{Name: key, Phase: phase})
				typ, cur[key] = source.Added, phase
				if exists {
					requireErr(t, err, source.ErrAlreadyExists)
					continue
				}
			case op <= 5 && !exists:
				if op == 5 {
					_, err = s.Delete(ctx, key, "")
				} else {
					_, err = s.Update(ctx, &pod{Name: key, Phase: phase}, "")
				}
				requireErr(t, err, source.ErrNotFound)
				continue
			case op <= 4:
				rv, err = s.Update(ctx, &pod{Name: key, Phase: phase}, "")
				typ, cur[key] = source.Modified, phase
			case op == 5:
				rv, err = s.Delete(ctx, key, "")
				typ, phase = source.Deleted, cur[key]
				delete(cur, key)
			case op == 6:
				s.Compact()
				floor = len(states) - 1
				continue
			default:
				s.MissNextEvents(1)
				miss = 1
				continue
			}
			if err != nil {
				t.Fatalf("write %d on %s: %v", i, key, err)
			}
			if want := strconv.Itoa(len(states)); rv != want {
				t.Fatalf("write returned version %s, want %s", rv, want)
			}
			states = append(states, cur)
			changes = append(changes, change{short{typ, key, phase, rv}, miss > 0})
			miss = 0
			floor = max(floor, len(states)-1-history)
		}

		last := len(states) - 1
		for rev := range states {
			for _, limit := range []int64{0, 1, 2, 3} {
				items, rv, err := listPages(ctx, s, strconv.Itoa(rev), limit)
				if rev < floor {
					if !errors.Is(err, source.ErrExpired) {
						t.Fatalf("list at %d (floor %d): got %v, want ErrExpired", rev, floor, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("list at %d limit %d: %v", rev, limit, err)
				}
				got := make(map[string]string)
				for _, p := range items {
					got[p.Name] = p.Phase
				}
				if rv != strconv.Itoa(rev) || !maps.Equal(got, states[rev]) || !slices.IsSortedFunc(items, func(a, b *pod) int { return strings.Compare(a.Name, b.Name) }) {
					t.Fatalf("list at %d limit %d = %v at %s, want %v", rev, limit, got, rv, states[rev])
				}
			}
			if rev < floor {
				continue
			}
			var want []short
			for _, c := range changes[rev:] {
				if !c.hidden {
					want = append(want, c.ev)
				}
			}
			wctx, cancel := context.WithCancel(ctx)
			ch, err := s.Watch(wctx, source.WatchOptions{ResourceVersion: strconv.Itoa(rev)})
			if err != nil {
				t.Fatalf("watch from %d (floor %d, last %d): %v", rev, floor, last, err)
			}
			if got := recvN(t, ch, len(want)); !slices.Equal(got, want) {
				t.Fatalf("watch from %d:\n got  %v\n want %v", rev, got, want)
			}
			cancel()
			for range ch {
			}
		}
	})
}

func requireErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got error %v, want %v", err, want)
	}
}

// listPages lists everything at rv in pages of limit.
func listPages(ctx context.Context, s *fake.Source[*pod], rv string, limit int64) ([]*pod, string, error) {
	l, err := s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: rv, Limit: limit})
	if err != nil {
		return nil, "", err
	}
	items, at := l.Items, l.ResourceVersion
	for l.Continue != "" {
		if l, err = s.List(ctx, source.ListOptions{Continue: l.Continue, Limit: limit}); err != nil {
			return nil, "", err
		}
		if l.ResourceVersion != at {
			return nil, "", fmt.Errorf("page at %s, first page at %s", l.ResourceVersion, at)
		}
		items = append(items, l.Items...)
	}
	return items, at, nil
}
