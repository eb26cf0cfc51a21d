package fake

import "time"

// timeBudget is the time writers may spend waiting for slow watchers,
// as kube-apiserver's cacher keeps it
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/time_budget.go): a
// writer that finds watchers with a full buffer waits for their readers
// at most the budget available, which refills by half its maximum per
// second of wall time (the cacher's: 50 ms of 100 ms), and gets back
// what it did not use. Unlike the cacher's, which starts empty, a new
// Source starts with the whole budget. Guarded by Source.dispatchMu.
type timeBudget struct {
	budget, max time.Duration
	// last is when the budget was last taken.
	last time.Time
}

// newTimeBudget returns a full budget of max.
func newTimeBudget(now time.Time, max time.Duration) timeBudget {
	return timeBudget{budget: max, max: max, last: now}
}

// take returns the whole budget available now, leaving it empty.
func (b *timeBudget) take(now time.Time) time.Duration {
	// Two seconds refill the budget from empty (and keep the product
	// below from overflowing).
	switch elapsed := now.Sub(b.last); {
	case elapsed >= 2*time.Second:
		b.budget = b.max
	case elapsed > 0:
		b.budget = min(b.budget+elapsed*(b.max/2)/time.Second, b.max)
	}
	b.last = now
	d := b.budget
	b.budget = 0
	return d
}

// giveBack returns the part of a taken budget that was not used.
func (b *timeBudget) giveBack(unused time.Duration) {
	if unused > 0 {
		b.budget = min(b.budget+unused, b.max)
	}
}
