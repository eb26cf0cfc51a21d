package nodelifecycle

import (
	"slices"
	"time"

	"golang.org/x/time/rate"
)

// taintQueue is one zone's queue of nodes waiting for a NoExecute taint,
// drained at a limited rate (kcm's RateLimitedTimedQueue over a token
// bucket of burst 1). Time is passed in; the controller's loop owns it.
type taintQueue struct {
	items []queued // by processAt, then by order of addition
	// done holds the nodes handled successfully; they stay out of the
	// queue until removed (kcm's UniqueQueue keeps them in its set), so a
	// node tainted once is not tainted again on every pass.
	done    map[string]bool
	limiter *rate.Limiter // nil rejects everything (rate 0)
	qps     float64
}

type queued struct {
	node      string
	uid       string
	processAt time.Time
}

func newTaintQueue(qps float64) *taintQueue {
	q := &taintQueue{qps: qps, done: map[string]bool{}}
	if qps > 0 {
		q.limiter = rate.NewLimiter(rate.Limit(qps), 1)
	}
	return q
}

// add queues node unless it is queued or done already, and reports
// whether it added it.
func (q *taintQueue) add(node, uid string, now time.Time) bool {
	if q.has(node) || q.done[node] {
		return false
	}
	q.insert(queued{node: node, uid: uid, processAt: now})
	return true
}

func (q *taintQueue) insert(v queued) {
	i, _ := slices.BinarySearchFunc(q.items, v.processAt, func(e queued, t time.Time) int {
		if e.processAt.After(t) {
			return 1
		}
		return -1 // equal times keep the order of addition
	})
	q.items = slices.Insert(q.items, i, v)
}

func (q *taintQueue) has(node string) bool {
	return slices.ContainsFunc(q.items, func(e queued) bool { return e.node == node })
}

// remove drops node from the queue and from the done set, and reports
// whether it was in either.
func (q *taintQueue) remove(node string) bool {
	wasDone := q.done[node]
	delete(q.done, node)
	n := len(q.items)
	q.items = slices.DeleteFunc(q.items, func(e queued) bool { return e.node == node })
	return len(q.items) != n || wasDone
}

// try hands the due nodes to fn in order while the limiter allows (each
// attempt takes a token, as kcm's Try does even when the head is not due);
// fn returns whether it is done with the node, else after how long to
// retry it.
func (q *taintQueue) try(now time.Time, fn func(node, uid string) (bool, time.Duration)) {
	for len(q.items) > 0 {
		if q.limiter == nil || !q.limiter.AllowN(now, 1) {
			return
		}
		head := q.items[0]
		if now.Before(head.processAt) {
			return
		}
		q.items = q.items[1:]
		if done, wait := fn(head.node, head.uid); !done {
			head.processAt = now.Add(wait + 1)
			q.insert(head)
		} else {
			q.done[head.node] = true
		}
	}
}

// setRate replaces the limiter when the rate changes (kcm's SwapLimiter):
// if the old one has no token left, the new one starts without one too.
func (q *taintQueue) setRate(qps float64, now time.Time) {
	if qps == q.qps {
		return
	}
	var l *rate.Limiter
	if qps > 0 {
		l = rate.NewLimiter(rate.Limit(qps), 1)
		if q.limiter == nil || !q.limiter.AllowN(now, 1) {
			l.AllowN(now, 1)
		}
	}
	q.limiter, q.qps = l, qps
}
