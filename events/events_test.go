package events_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/source"
)

var pod = events.Ref{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-0", UID: "u1"}

// sink records what a Broadcaster wrote.
type sink struct {
	mu      sync.Mutex
	created []events.Event
	updated []events.Event
	fail    error
}

func (s *sink) Create(_ context.Context, ev events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	s.created = append(s.created, ev)
	return nil
}

func (s *sink) Update(_ context.Context, ev events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.updated = append(s.updated, ev)
	return nil
}

type count struct{ atomic.Int64 }

func (c *count) Inc() { c.Add(1) }

type counts struct{ written, dropped count }

func (c *counts) EventsMetrics(string) events.Metrics {
	return events.Metrics{Written: &c.written, Dropped: &c.dropped}
}

var _ metrics.Counter = (*count)(nil)

func start(t *testing.T, s *sink, opts events.Options) (*events.Broadcaster, *counts) {
	t.Helper()
	m := &counts{}
	opts.Metrics = m
	opts.Logger = slog.New(slog.DiscardHandler)
	if opts.Component == "" {
		opts.Component = "test-controller"
	}
	b, err := events.NewBroadcaster(s, opts)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
	})
	return b, m
}

// A repeated event bumps the count of the one written first, as
// client-go's correlator does.
func TestRepeatedEventsAreCounted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{}
		b, m := start(t, s, events.Options{})
		t0 := time.Now()
		for range 3 {
			b.Event(pod, events.Warning, "BackOff", "restarting failed container")
			synctest.Wait()
			time.Sleep(time.Second)
		}
		b.Eventf(pod, events.Normal, "Pulled", "image %q pulled", "nginx")
		synctest.Wait()
		require.Len(t, s.created, 2)
		first := s.created[0]
		require.Equal(t, fmt.Sprintf("web-0.%x", t0.UnixNano()), first.Name)
		require.Equal(t, "default", first.Namespace)
		require.Equal(t, "test-controller", first.Component)
		require.Equal(t, `Normal Pulled image "nginx" pulled`, s.created[1].String())
		require.Len(t, s.updated, 2)
		last := s.updated[1]
		require.Equal(t, first.Name, last.Name, "updates name the event first written")
		require.Equal(t, 3, last.Count)
		require.Equal(t, t0, last.First)
		require.Equal(t, t0.Add(2*time.Second), last.Last)
		require.EqualValues(t, 4, m.written.Load())
	})
}

// Events about one object are rate-limited: a burst, then one per
// refill.
func TestBurstsAreRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{}
		b, m := start(t, s, events.Options{Burst: 5, Refill: time.Minute})
		for i := range 8 {
			b.Eventf(pod, events.Normal, "Scaled", "step %d", i)
		}
		other := pod
		other.Name = "web-1"
		b.Event(other, events.Normal, "Scaled", "another object has its own bucket")
		synctest.Wait()
		require.Len(t, s.created, 6)
		require.EqualValues(t, 3, m.dropped.Load())
		time.Sleep(time.Minute)
		b.Event(pod, events.Normal, "Scaled", "after a refill")
		b.Event(pod, events.Normal, "Scaled", "one too many")
		synctest.Wait()
		require.Len(t, s.created, 7)
		require.Equal(t, "after a refill", s.created[6].Message)
	})
}

// Recording never blocks: a full queue drops, and so does a sink error.
func TestNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{}
		m := &counts{}
		b, err := events.NewBroadcaster(s, events.Options{Component: "c", QueueSize: 2, Metrics: m})
		require.NoError(t, err)
		for i := range 5 { // Run has not started: the queue fills
			b.Eventf(pod, events.Normal, "R", "%d", i)
		}
		require.EqualValues(t, 3, m.dropped.Load())

		s.fail = errors.New("store down")
		b2, m2 := start(t, s, events.Options{})
		b2.Event(pod, events.Normal, "R", "x")
		synctest.Wait()
		require.EqualValues(t, 1, m2.dropped.Load())
		require.Empty(t, s.created)
	})
}

func TestBadOptions(t *testing.T) {
	_, err := events.NewBroadcaster(nil, events.Options{QueueSize: -1})
	require.ErrorContains(t, err, "events: Sink is nil")
	require.ErrorContains(t, err, "Options.Component is empty")
	require.ErrorContains(t, err, "Options.QueueSize is negative")
	b, err := events.NewBroadcaster(&sink{}, events.Options{Component: "c"})
	require.NoError(t, err)
	//lint:ignore SA1012 a nil context is the input under test
	require.ErrorContains(t, b.Run(nil), "events: context is nil") //nolint:staticcheck
}

func TestMemoryAndLog(t *testing.T) {
	m := events.NewMemory()
	m.Event(pod, events.Normal, "Created", "created web-0")
	m.Eventf(pod, events.Warning, "Failed", "exit %d", 1)
	require.Equal(t, []string{"Normal Created created web-0", "Warning Failed exit 1"}, m.Strings())
	require.Equal(t, pod, m.Events()[1].Regarding)

	var buf bytes.Buffer
	l := events.NewLog(slog.New(slog.NewTextHandler(&buf, nil)), "kubelet")
	l.Eventf(pod, events.Warning, "BackOff", "restarting %s", "nginx")
	require.Contains(t, buf.String(), `level=WARN msg="events: BackOff: restarting nginx" component=kubelet type=Warning kind=Pod namespace=default name=web-0`)
}

// What one recorder names never depends on another: two recorders in one
// process each name their first event about an object after the instant
// it happened (a process-wide clamp once gave the second one the next
// nanosecond, and made names depend on what earlier tests recorded).
func TestRecordersNameIndependently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		now := time.Now()
		want := fmt.Sprintf("web-0.%x", now.UnixNano())
		a, b := events.NewMemory(), events.NewMemory()
		a.Event(pod, events.Normal, "Pulled", "pulled")
		a.Event(pod, events.Normal, "Created", "created")
		b.Event(pod, events.Normal, "Started", "started")
		ea, eb := a.Events(), b.Events()
		require.Equal(t, want, ea[0].Name)
		require.Equal(t, fmt.Sprintf("web-0.%x", now.UnixNano()+1), ea[1].Name,
			"one recorder's names are distinct even when time stands still")
		require.Equal(t, want, eb[0].Name)
	})
}

// uniqueSink refuses a name it has, as the cluster store does.
type uniqueSink struct {
	mu    sync.Mutex
	names map[string]events.Event
}

func (s *uniqueSink) Create(_ context.Context, ev events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.names[ev.Name]; ok {
		return fmt.Errorf("event %q: %w", ev.Name, source.ErrAlreadyExists)
	}
	s.names[ev.Name] = ev
	return nil
}

func (s *uniqueSink) Update(_ context.Context, ev events.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.names[ev.Name]; !ok {
		return source.ErrNotFound
	}
	s.names[ev.Name] = ev
	return nil
}

// Two broadcasters writing to one sink about one object at one instant
// both get their events written: the second, finding the name taken,
// takes the next one. Its repeats then update the event it wrote.
func TestBroadcastersShareASink(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &uniqueSink{names: map[string]events.Event{}}
		var bs []*events.Broadcaster
		for _, component := range []string{"default-scheduler", "kubelet"} {
			b, err := events.NewBroadcaster(s, events.Options{Component: component, Logger: slog.New(slog.DiscardHandler)})
			require.NoError(t, err)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- b.Run(ctx) }()
			t.Cleanup(func() { cancel(); <-done })
			bs = append(bs, b)
		}
		bs[0].Event(pod, events.Normal, "Scheduled", "assigned default/web-0 to node-1")
		synctest.Wait()
		bs[1].Event(pod, events.Normal, "Pulled", "image pulled")
		synctest.Wait()
		bs[1].Event(pod, events.Normal, "Pulled", "image pulled")
		synctest.Wait()
		now := time.Now().UnixNano()
		require.Len(t, s.names, 2)
		first, second := s.names[fmt.Sprintf("web-0.%x", now)], s.names[fmt.Sprintf("web-0.%x", now+1)]
		require.Equal(t, "Scheduled", first.Reason)
		require.Equal(t, "Pulled", second.Reason)
		require.Equal(t, 2, second.Count, "the repeat updated the event under the name it was written with")
	})
}

// Issue 31: a Broadcaster built with a Host puts it on every event (the
// kubelet's events carry their node, as client-go's EventSource.Host).
func TestHostOnEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{}
		b, _ := start(t, s, events.Options{Component: "kubelet", Host: "node-1"})
		b.Event(pod, events.Normal, "Started", "Started container web")
		synctest.Wait()
		require.Len(t, s.created, 1)
		require.Equal(t, "kubelet", s.created[0].Component)
		require.Equal(t, "node-1", s.created[0].Host)
	})
}

// ForHost shares one Broadcaster between instances of a component, each
// event carrying its instance's host; the same event from two hosts is
// two events, not one counted twice.
func TestForHost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{}
		b, _ := start(t, s, events.Options{Component: "kubelet"})
		n1, n2 := b.ForHost("node-1"), b.ForHost("node-2")
		n1.Event(pod, events.Normal, "Killing", "Stopping container web")
		n2.Eventf(pod, events.Normal, "Killing", "Stopping container %s", "web")
		n1.Event(pod, events.Normal, "Killing", "Stopping container web")
		synctest.Wait()
		require.Len(t, s.created, 2)
		require.Equal(t, "node-1", s.created[0].Host)
		require.Equal(t, "node-2", s.created[1].Host)
		require.Len(t, s.updated, 1)
		require.Equal(t, "node-1", s.updated[0].Host)
		require.Equal(t, 2, s.updated[0].Count)
	})
}

// The Broadcaster remembers Options.CacheSize events and as many objects'
// buckets, forgetting the least recently used: a forgotten event is
// written anew when it comes back, a remembered one counted; a forgotten
// object's bucket is full again.
func TestCacheForgetsTheOldest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sink{}
		b, m := start(t, s, events.Options{CacheSize: 2, Burst: 1, Refill: time.Hour})
		web := func(i int) events.Ref {
			r := pod
			r.Name = fmt.Sprintf("web-%d", i)
			return r
		}
		// Events a, b, c about three objects: a's event and bucket are
		// forgotten, c's are remembered.
		for i := range 3 {
			b.Event(web(i), events.Normal, "Pulled", "pulled")
		}
		synctest.Wait()
		require.Len(t, s.created, 3)
		b.Event(web(2), events.Normal, "Pulled", "pulled") // its bucket is spent
		b.Event(web(0), events.Normal, "Pulled", "pulled") // a new bucket, a new event
		synctest.Wait()
		require.EqualValues(t, 1, m.dropped.Load())
		require.Len(t, s.created, 4)
		require.Empty(t, s.updated)
		require.Equal(t, "web-0", s.created[3].Regarding.Name)
		require.NotEqual(t, s.created[0].Name, s.created[3].Name)

		// Counting: one object, bucket refilled an hour later.
		time.Sleep(time.Hour)
		b.Event(web(0), events.Warning, "BackOff", "back-off") // created; remembers web-0's Pulled and BackOff
		synctest.Wait()
		time.Sleep(time.Hour)
		b.Event(web(0), events.Normal, "Pulled", "pulled") // counted
		synctest.Wait()
		require.Len(t, s.created, 5)
		require.Len(t, s.updated, 1)
		up, first := s.updated[0], s.created[3]
		require.Equal(t, 2, up.Count)
		require.Equal(t, first.First.Add(2*time.Hour), up.Last)
		up.Count, up.Last = first.Count, first.Last
		require.Equal(t, first, up, "an update carries the event as created but for its count and last time")
	})
}
