package deltafifo

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// obj is the test object: a key and a value.
type obj struct {
	Key string
	Val int
}

func keyOf(o *obj) string { return o.Key }

func o(key string, val int) *obj { return &obj{Key: key, Val: val} }

// store is a map-backed KnownObjects, the test double of an indexer.
type store struct {
	mu sync.Mutex
	m  map[string]*obj
	// ghosts are keys ListKeys reports but Get does not find, as when a
	// key vanishes between the two calls.
	ghosts []string
}

func newStore(objs ...*obj) *store {
	s := &store{m: make(map[string]*obj)}
	for _, x := range objs {
		s.m[x.Key] = x
	}
	return s
}

func (s *store) Get(key string) (*obj, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	x, ok := s.m[key]
	return x, ok
}

func (s *store) ListKeys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.m)+len(s.ghosts))
	for k := range s.m {
		keys = append(keys, k)
	}
	keys = append(keys, s.ghosts...)
	slices.Sort(keys)
	return keys
}

// apply applies deltas the way an informer applies them to its cache.
func (s *store) apply(ds Deltas[*obj]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range ds {
		if d.Type == Deleted {
			delete(s.m, d.Object.Key)
		} else {
			s.m[d.Object.Key] = d.Object
		}
	}
}

// fmtDelta renders a delta as "Type:key=val@rv", with "!" appended for
// FinalStateUnknown.
func fmtDelta(d Delta[*obj]) string {
	s := fmt.Sprintf("%s:%s=%d@%s", d.Type, d.Object.Key, d.Object.Val, d.ResourceVersion)
	if d.FinalStateUnknown {
		s += "!"
	}
	return s
}

func fmtDeltas(ds Deltas[*obj]) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtDelta(d)
	}
	return strings.Join(parts, " ")
}

// quiet discards logs (bad objects are logged at error level).
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newFIFO(t testing.TB, opts Options[*obj]) *DeltaFIFO[*obj] {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	f, err := New(keyOf, opts)
	require.NoError(t, err)
	return f
}

// popOne pops one key (which must be ready), applies it to s when s is
// not nil, and returns its rendered deltas with "*" prefixed when it is
// in the initial list.
func popOne(t testing.TB, f *DeltaFIFO[*obj], s *store) string {
	t.Helper()
	var got string
	err := f.Pop(context.Background(), func(ds Deltas[*obj], initial bool) error {
		got = fmtDeltas(ds)
		if initial {
			got = "*" + got
		}
		if s != nil {
			s.apply(ds)
		}
		return nil
	})
	require.NoError(t, err)
	return got
}

// popAll pops every queued key and returns the rendered deltas per pop.
func popAll(t testing.TB, f *DeltaFIFO[*obj], s *store) []string {
	t.Helper()
	var out []string
	for f.Len() > 0 {
		out = append(out, popOne(t, f, s))
	}
	return out
}
