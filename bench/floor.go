package bench

import "sync"

// FloorQueue is the floor of the queue workloads: the least a work queue
// with client-go's semantics (dedup, one worker per item, re-queue of
// items added while processing) can do — a mutex, a slice, two maps and a
// sync.Cond, no delays, priorities, metrics or shutdown drain.
type FloorQueue struct {
	mu         sync.Mutex
	cond       sync.Cond
	queue      []string
	dirty      map[string]struct{}
	processing map[string]struct{}
	shutdown   bool
}

// NewFloorQueue returns an empty FloorQueue.
func NewFloorQueue() *FloorQueue {
	q := &FloorQueue{
		dirty:      map[string]struct{}{},
		processing: map[string]struct{}{},
	}
	q.cond.L = &q.mu
	return q
}

// Add queues item unless it is queued already; an item being processed
// is queued again at Done.
func (q *FloorQueue) Add(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shutdown {
		return
	}
	if _, ok := q.dirty[item]; ok {
		return
	}
	q.dirty[item] = struct{}{}
	if _, ok := q.processing[item]; ok {
		return
	}
	q.queue = append(q.queue, item)
	q.cond.Signal()
}

// Get blocks until an item is queued or the queue is shut down and empty.
func (q *FloorQueue) Get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.queue) == 0 && !q.shutdown {
		q.cond.Wait()
	}
	if len(q.queue) == 0 {
		return "", true
	}
	item := q.queue[0]
	q.queue[0] = ""
	q.queue = q.queue[1:]
	q.processing[item] = struct{}{}
	delete(q.dirty, item)
	return item, false
}

// Done ends the processing of item.
func (q *FloorQueue) Done(item string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.processing, item)
	if _, ok := q.dirty[item]; ok {
		q.queue = append(q.queue, item)
		q.cond.Signal()
	}
}

// ShutDown makes Get return shutdown once the queue is empty.
func (q *FloorQueue) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shutdown = true
	q.cond.Broadcast()
}

// Len returns the number of queued items.
func (q *FloorQueue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue)
}
