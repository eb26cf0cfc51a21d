package workqueue

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

type fakeMetrics struct {
	mu       sync.Mutex
	name     string
	inFlight func() InFlight
	depth    float64
	adds     int
	retries  int
	queue    []float64
	work     []float64
}

type fakeMetric struct {
	m *fakeMetrics
	f func(m *fakeMetrics, v float64)
}

func (f fakeMetric) Set(v float64)     { f.m.mu.Lock(); f.f(f.m, v); f.m.mu.Unlock() }
func (f fakeMetric) Inc()              { f.m.mu.Lock(); f.f(f.m, 1); f.m.mu.Unlock() }
func (f fakeMetric) Observe(v float64) { f.m.mu.Lock(); f.f(f.m, v); f.m.mu.Unlock() }

func (m *fakeMetrics) QueueMetrics(name string, inFlight func() InFlight) QueueMetrics {
	m.name, m.inFlight = name, inFlight
	return QueueMetrics{
		Depth:         fakeMetric{m, func(m *fakeMetrics, v float64) { m.depth = v }},
		Adds:          fakeMetric{m, func(m *fakeMetrics, v float64) { m.adds++ }},
		QueueDuration: fakeMetric{m, func(m *fakeMetrics, v float64) { m.queue = append(m.queue, v) }},
		WorkDuration:  fakeMetric{m, func(m *fakeMetrics, v float64) { m.work = append(m.work, v) }},
		Retries:       fakeMetric{m, func(m *fakeMetrics, v float64) { m.retries++ }},
	}
}

func (m *fakeMetrics) snapshot() fakeMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fakeMetrics{depth: m.depth, adds: m.adds, retries: m.retries,
		queue: append([]float64(nil), m.queue...), work: append([]float64(nil), m.work...)}
}

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &fakeMetrics{}
		q := New(Options[string]{Name: "pods", Metrics: m})
		require.Equal(t, "pods", m.name)

		q.Add("a")
		q.Add("b")
		q.Add("a") // dedup: not an add
		s := m.snapshot()
		require.Equal(t, 2, s.adds)
		require.Equal(t, 2.0, s.depth)

		time.Sleep(time.Second)
		a := mustGet(t, q)
		s = m.snapshot()
		require.Equal(t, 1.0, s.depth)
		require.Equal(t, []float64{1}, s.queue)

		time.Sleep(2 * time.Second)
		b := mustGet(t, q)
		time.Sleep(time.Second)
		require.Equal(t, InFlight{Count: 2, Unfinished: 3*time.Second + time.Second, Longest: 3 * time.Second}, m.inFlight())

		q.Add("a") // while processing: an add
		q.Done(a)
		q.Done(b)
		s = m.snapshot()
		require.Equal(t, 3, s.adds)
		require.Equal(t, []float64{3, 1}, s.work)
		require.Equal(t, 1.0, s.depth)
		require.Equal(t, InFlight{}, m.inFlight())

		q.AddRateLimited("c")
		q.AddWithOptions("d", AddOptions{RateLimited: true})
		require.Equal(t, 2, m.snapshot().retries)
		require.Equal(t, 3, m.snapshot().adds, "delayed items count when they come due")
		time.Sleep(time.Second)
		synctest.Wait()
		require.Equal(t, 5, m.snapshot().adds)
		require.Equal(t, 3.0, m.snapshot().depth)
		q.ShutDown()
	})
}

type partialMetrics struct{ adds int }

func (p *partialMetrics) QueueMetrics(string, func() InFlight) QueueMetrics {
	return QueueMetrics{Adds: fakeCounter{&p.adds}}
}

type fakeCounter struct{ n *int }

func (c fakeCounter) Inc() { *c.n++ }

func TestMetricsWithNilFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := &partialMetrics{}
		q := New(Options[int]{Metrics: p})
		q.Add(1)
		q.AddRateLimited(2)
		q.Done(mustGet(t, q))
		require.Equal(t, 1, p.adds)
		q.ShutDown()
	})
}

// TestUnmeteredQueueDoesNotReadTheClock: without metrics, with strict
// priorities or with only one priority so far, Add/Get/Done never read
// the clock.
func TestUnmeteredQueueDoesNotReadTheClock(t *testing.T) {
	for _, tc := range []struct {
		name  string
		aging time.Duration
		prio  int
	}{{"strict", -1, 3}, {"one priority", 0, 0}} {
		t.Run(tc.name, func(t *testing.T) {
			q := New(Options[int]{AgingInterval: tc.aging})
			q.c.now = func() int64 { t.Fatal("clock read"); return 0 }
			q.Add(1)
			q.AddWithOptions(2, AddOptions{Priority: tc.prio})
			q.Add(1)
			item, _ := q.Get()
			q.Add(item)
			q.Done(item)
			require.Equal(t, 2, q.Len())
			require.False(t, q.c.clockedHint.Load())
			q.ShutDown()
		})
	}
}
