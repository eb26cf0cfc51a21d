package manager

import (
	"sync"
	"sync/atomic"

	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Stats is what the manager counts of one controller's work queues, for a
// status view such as the ctrlkit command's: the queues' depth now and the
// items they have handed out and taken back so far. Rates are differences
// of two Stats taken some time apart.
type Stats struct {
	// Name is the controller's name (its Descriptor's).
	Name string
	// Depth is the number of items ready in the controller's queues
	// (workqueue_depth summed over them).
	Depth int64
	// Processed counts the items the workers finished (each a reconcile,
	// whatever its result).
	Processed uint64
	// Retries counts the items put back with backoff after an error
	// (workqueue_retries_total).
	Retries uint64
}

// Stats returns the counts of every controller the manager runs, in the
// order of Names. A controller that reports through no work queue (the
// node lifecycle and taint eviction controllers, podgc: loops on timers)
// stays at zero.
func (m *Manager) Stats() []Stats {
	out := make([]Stats, len(m.stats))
	for i, s := range m.stats {
		out[i] = s.read()
	}
	return out
}

// controllerStats counts the work of one controller's queues and passes
// every instrument on to the user's providers.
type controllerStats struct {
	name      string
	queue     workqueue.MetricsProvider
	mu        sync.Mutex
	depths    []*atomic.Int64 // one per queue
	processed atomic.Uint64
	retries   atomic.Uint64
}

func (s *controllerStats) read() Stats {
	st := Stats{Name: s.name, Processed: s.processed.Load(), Retries: s.retries.Load()}
	s.mu.Lock()
	for _, d := range s.depths {
		st.Depth += d.Load()
	}
	s.mu.Unlock()
	return st
}

// QueueMetrics counts depth, finished items and retries of one of the
// controller's queues, then forwards to the user's provider.
func (s *controllerStats) QueueMetrics(name string, inFlight func() workqueue.InFlight) workqueue.QueueMetrics {
	var user workqueue.QueueMetrics
	if s.queue != nil {
		user = s.queue.QueueMetrics(name, inFlight)
	}
	depth := new(atomic.Int64)
	s.mu.Lock()
	s.depths = append(s.depths, depth)
	s.mu.Unlock()
	return workqueue.QueueMetrics{
		Depth:         gaugeTee{depth, metrics.Or(user.Depth)},
		Adds:          user.Adds,
		QueueDuration: user.QueueDuration,
		WorkDuration:  histogramCount{&s.processed, metrics.Or(user.WorkDuration)},
		Retries:       counterTee{&s.retries, metrics.Or(user.Retries)},
	}
}

type gaugeTee struct {
	v    *atomic.Int64
	next metrics.Gauge
}

func (g gaugeTee) Set(v float64) { g.v.Store(int64(v)); g.next.Set(v) }

type histogramCount struct {
	n    *atomic.Uint64
	next metrics.Histogram
}

func (h histogramCount) Observe(v float64) { h.n.Add(1); h.next.Observe(v) }

type counterTee struct {
	n    *atomic.Uint64
	next metrics.Counter
}

func (c counterTee) Inc() { c.n.Add(1); c.next.Inc() }
