package workqueue

import (
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// MetricsProvider creates the metrics of one queue. It is set per queue
// in Options.Metrics; there is no global provider.
//
// The names below are those of client-go's workqueue metrics, so that a
// Prometheus adapter maps each to one collector with a "name" label:
//
//	QueueMetrics.Depth         gauge      workqueue_depth
//	QueueMetrics.Adds          counter    workqueue_adds_total
//	QueueMetrics.QueueDuration histogram  workqueue_queue_duration_seconds
//	QueueMetrics.WorkDuration  histogram  workqueue_work_duration_seconds
//	QueueMetrics.Retries       counter    workqueue_retries_total
//	InFlight.Unfinished        gauge      workqueue_unfinished_work_seconds
//	InFlight.Longest           gauge      workqueue_longest_running_processor_seconds
//
// The last two are read, not pushed: the queue starts no ticker to
// refresh them. An adapter registers them as functions of inFlight, which
// it may call at any time (for example at scrape), from any goroutine.
type MetricsProvider interface {
	// QueueMetrics is called once, by New, for a queue named name.
	QueueMetrics(name string, inFlight func() InFlight) QueueMetrics
}

// QueueMetrics are the push metrics of one queue. A nil field is not
// recorded. The queue calls them with its lock held: they must be fast
// and must not call back into the queue.
type QueueMetrics struct {
	// Depth is set to the number of ready items whenever it changes.
	Depth metrics.Gauge
	// Adds counts the times an item became pending: entered the ready
	// queue, got marked to run again while being processed, or came out
	// of a delay. Adds of an item already pending are not counted.
	Adds metrics.Counter
	// QueueDuration observes, at Get, the seconds an item waited in the
	// ready queue.
	QueueDuration metrics.Histogram
	// WorkDuration observes, at Done, the seconds between Get and Done.
	WorkDuration metrics.Histogram
	// Retries counts calls of AddRateLimited (and AddWithOptions with
	// RateLimited set).
	Retries metrics.Counter
}

// InFlight describes the items being processed (handed out by Get and not
// yet Done) at one instant.
type InFlight struct {
	// Count is the number of items being processed.
	Count int
	// Unfinished is the sum of the time each of them has been processed
	// so far.
	Unfinished time.Duration
	// Longest is the time the longest-running of them has been processed.
	Longest time.Duration
}

// fill replaces nil fields with no-ops, so that the hot path needs no nil
// checks once a queue is metered at all.
func (m *QueueMetrics) fill() {
	m.Depth = metrics.Or(m.Depth)
	m.Adds = metrics.Or(m.Adds)
	m.QueueDuration = metrics.Or(m.QueueDuration)
	m.WorkDuration = metrics.Or(m.WorkDuration)
	m.Retries = metrics.Or(m.Retries)
}

// inFlight computes InFlight at time now. It walks the items: O(n), called
// at scrape time only.
func (c *core[T]) inFlight(now int64) InFlight {
	var f InFlight
	for _, e := range c.items {
		if e.state&stProcessing == 0 {
			continue
		}
		d := time.Duration(now - e.stamp)
		f.Count++
		f.Unfinished += d
		f.Longest = max(f.Longest, d)
	}
	return f
}
