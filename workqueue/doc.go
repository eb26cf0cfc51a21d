// Package workqueue provides Queue, the work queue between a controller's
// event handlers and its workers: dedup, one worker per item at a time,
// delays, rate-limited retries and priorities that cannot starve, generic
// over the item type. It keeps client-go's vocabulary (Add, Get, Done,
// AddAfter, AddRateLimited, Forget, ShutDownWithDrain, ...), so code ports
// by changing imports.
//
// # Usage
//
//	q := workqueue.New(workqueue.Options[string]{Name: "pods"})
//	// producers (event handlers):
//	q.Add("default/web-0")
//	// each worker:
//	for {
//		key, shutdown := q.Get()
//		if shutdown {
//			return
//		}
//		if err := reconcile(key); err != nil {
//			q.AddRateLimited(key) // retry with backoff
//		} else {
//			q.Forget(key) // reset the backoff
//		}
//		q.Done(key)
//	}
//	// on exit:
//	q.ShutDownWithDrain()
//
// # The invariant
//
// An item is in at most one of these roles at a time, plus "dirty":
// queued (ready, waiting for Get), waiting (for a delay), processing
// (handed out by Get, Done not yet called).
//
//   - An item is never handed to two workers at once.
//   - Add of a queued item does nothing (dedup).
//   - Add of an item being processed marks it dirty: it is queued again,
//     once, when Done is called.
//   - Done of an item that is not being processed does nothing.
//
// # Order
//
// Get hands out the ready item with the highest effective priority;
// among equal effective priorities, the one that became ready first.
// Items added with Add have priority 0, so a queue that never sees
// another priority is plain FIFO.
//
// Aging: a ready item's effective priority is
//
//	priority + waited / AgingInterval
//
// (fractional; waited is the time since it entered the ready queue), so
// each AgingInterval (default 1s) of waiting is worth one priority point.
// Equivalently, items are served in order of enqueue time − priority ×
// AgingInterval, which never changes while an item waits — the order is
// computed once, at enqueue. An item of priority p is therefore served
// before every item of priority q that became ready more than
// (q − p) × AgingInterval after it: however steady a stream of
// higher-priority items, it cannot starve. A LowPriority (−100) item is
// overtaken only by priority-0 items that arrive within 100 seconds of
// it. A negative AgingInterval disables aging (strict priorities).
//
// Reading the clock is the most expensive step of an Add, so a queue that
// has only ever seen one priority does not: its order is plain FIFO and
// nothing ages. When a second priority first shows up, the items already
// queued count as enqueued at that moment, and from then on every item is
// stamped when it enters the ready queue.
//
// An item pending with several priorities keeps the highest, and with
// several ready times the earliest. Raising the priority of a queued item
// never makes it wait longer than it would have: it keeps the better of
// its current place and the place of a fresh item of the new priority.
//
// # Delays and rate limiting
//
// AddAfter(item, d) makes item ready after d. The queue keeps waiting items
// in a heap by ready time and arms a single timer for the earliest; when
// it fires, every due item moves to the ready queue at once. No goroutine
// runs while nothing is due, no ticker ever runs, and ShutDown stops the
// timer (items still waiting are dropped).
//
// AddRateLimited(item) is AddAfter(item, RateLimiter.When(item)). Forget
// resets the item's failure history (not its place in the queue);
// NumRequeues reports it. The limiters: NewItemExponentialFailureRateLimiter,
// NewItemFastSlowRateLimiter, NewBucketRateLimiter (with an optional
// maximum delay), NewMaxOfRateLimiter, NewWithMaxWaitRateLimiter, and
// DefaultControllerRateLimiter.
//
// # What blocks
//
// Only Get (until an item is ready or the queue is shut down and empty)
// and ShutDownWithDrain / ShutDownWithDrainContext (until every item that
// was queued or processing has been Done, a ShutDown ends the wait, or —
// for the latter — its ctx ends). A worker that never calls Done holds
// ShutDownWithDrain hostage until a ShutDown. Everything else takes the
// queue's mutex briefly; Add and AddWithOptions, when they queue an item
// while more than 256 are ready (not when the item was queued already),
// also yield the processor (runtime.Gosched) so that workers catch up
// instead of the backlog outgrowing the CPU caches. A parked Get is
// woken through its own channel with its item already assigned, so an Add
// wakes exactly one worker. All methods are safe for concurrent use.
//
// # Shutdown
//
// After ShutDown, adds are ignored, queued items are still handed out, and
// Get returns shutdown == true once none is left. ShutDownWithDrain
// additionally waits until all of them — and the items being processed,
// and the items marked dirty meanwhile — are Done (client-go waits for
// the processing ones only). As in client-go, a ShutDown while drains
// wait ends them at once (a second SIGTERM forces the shutdown);
// ShutDownWithDrainContext then returns ErrDrainAborted. Both are
// idempotent and safe from several goroutines.
//
// # Bad input
//
// A nil context is an error, never a panic, in every call that takes one
// (ShutDownWithDrainContext, ParallelizeUntil): the call then does
// nothing. The constructors cannot fail, so a nil interface argument or
// Options field — or one holding a nil pointer — counts as unset (see
// each one's doc) instead of panicking at its first use.
//
// # Goroutines
//
// New starts nothing, and a queue needs no Run: the only goroutine it
// ever runs is its delay timer's callback, briefly, when a delayed item
// comes due. After ShutDown none runs again.
//
// # Memory
//
// A queue holds one small entry per item that is queued, waiting or
// processing, recycled through a free list, so steady-state operations do
// not allocate. A queue that never delays items keeps nothing after Done:
// the item is no longer referenced and can be garbage collected. A queue
// that delays items (retries, requeue-after) also remembers, after Done,
// up to about as many idle items as it held at once when it delayed them,
// because such items come back: re-adding one is then a single map
// lookup. Those are forgotten in batches, and once a batch passes with no
// delay the queue again keeps nothing after Done.
//
// # Metrics
//
// Options.Metrics takes a MetricsProvider; without one nothing is
// recorded and the hot path pays one predictable branch. See
// MetricsProvider for the Prometheus names.
//
// ParallelizeUntil fans a fixed number of pieces of work out over a few
// goroutines.
package workqueue
