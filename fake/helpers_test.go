package fake_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// pod is the test object; the source stamps RV.
type pod struct {
	Name  string
	Phase string
	RV    string
}

func (p *pod) SetResourceVersion(rv string) { p.RV = rv }
func (p *pod) GetResourceVersion() string   { return p.RV }

func podKey(p *pod) string { return p.Name }

type event = source.Event[*pod]

func newSource(t testing.TB, opts fake.Options[*pod]) *fake.Source[*pod] {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := fake.NewSource(podKey, opts)
	require.NoError(t, err)
	return s
}

// must returns a function that checks a write's error and returns its
// version: must(t)(s.Create(ctx, obj)).
func must(t testing.TB) func(rv string, err error) string {
	return func(rv string, err error) string {
		t.Helper()
		require.NoError(t, err)
		return rv
	}
}

// recv receives one event, failing after a minute (virtual in bubbles).
func recv(t testing.TB, ch <-chan event) (event, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(time.Minute):
		t.Fatal("no event within a minute")
		return event{}, false
	}
}

// short is one event reduced to what the tests compare.
type short struct {
	Type  source.EventType
	Name  string
	Phase string
	RV    string
}

func shorten(ev event) short {
	s := short{Type: ev.Type, RV: ev.ResourceVersion}
	if ev.Object != nil {
		s.Name, s.Phase = ev.Object.Name, ev.Object.Phase
	}
	return s
}

// recvN receives n events.
func recvN(t testing.TB, ch <-chan event, n int) []short {
	t.Helper()
	var out []short
	for range n {
		ev, ok := recv(t, ch)
		require.True(t, ok, "channel closed after %d of %d events: %v", len(out), n, out)
		out = append(out, shorten(ev))
	}
	return out
}

// requireIdle checks, in a bubble, that nothing is pending on ch.
func requireIdle(t testing.TB, ch <-chan event) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		t.Fatalf("unexpected event %+v (open %v)", shorten(ev), ok)
	default:
	}
}

// requireClosed receives until ch closes and returns what came before.
func requireClosed(t testing.TB, ch <-chan event) []event {
	t.Helper()
	var out []event
	for {
		ev, ok := recv(t, ch)
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

func watch(t testing.TB, ctx context.Context, s *fake.Source[*pod], opts source.WatchOptions) <-chan event {
	t.Helper()
	ch, err := s.Watch(ctx, opts)
	require.NoError(t, err)
	return ch
}
