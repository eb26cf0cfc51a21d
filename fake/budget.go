package fake

import "time"

// The dispatch budget, as kube-apiserver's cacher keeps it
// (staging/src/k8s.io/apiserver/pkg/storage/cacher/time_budget.go): a
// writer that finds watchers with a full buffer waits for their readers
// at most the budget available, which refills by dispatchRefill per
// second of wall time up to dispatchMaxBudget, and gets back what it
// did not use. (Unlike the cacher's, which starts empty, a new Source
// starts with the whole budget.)
const (
	dispatchRefill    = 50 * time.Millisecond
	dispatchMaxBudget = 100 * time.Millisecond
)

// timeBudget is the time writers may spend waiting for slow watchers.
// Guarded by Source.dispatchMu.
type timeBudget struct {
	budget time.Duration
	// last is when the budget was last taken.
	last time.Time
}

// newTimeBudget returns a full budget.
func newTimeBudget(now time.Time) timeBudget {
	return timeBudget{budget: dispatchMaxBudget, last: now}
}

// take returns the whole budget available now, leaving it empty.
func (b *timeBudget) take(now time.Time) time.Duration {
	// Past fill the budget is full whatever it was (and the product
	// below cannot overflow).
	const fill = dispatchMaxBudget * time.Second / dispatchRefill
	switch elapsed := now.Sub(b.last); {
	case elapsed >= fill:
		b.budget = dispatchMaxBudget
	case elapsed > 0:
		b.budget = min(b.budget+elapsed*dispatchRefill/time.Second, dispatchMaxBudget)
	}
	b.last = now
	d := b.budget
	b.budget = 0
	return d
}

// giveBack returns the part of a taken budget that was not used.
func (b *timeBudget) giveBack(unused time.Duration) {
	if unused > 0 {
		b.budget = min(b.budget+unused, dispatchMaxBudget)
	}
}
