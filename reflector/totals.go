package reflector

import "sync/atomic"

// Totals are counts summed over every Reflector of the process since it
// started: what a benchmark or a scale test reads before and after a run
// to assert that the run made its clients relist no more than it should.
// Options.Metrics counts the same per reflector.
type Totals struct {
	// Relists counts the syncs (a List, or a watch-list) that reflectors
	// started after they had completed one: each is a full list of the
	// source, the cost a watch that ends with an error brings on.
	Relists int64
	// Expired counts source.ErrExpired reported by sources (a watch
	// ended with 410 Gone, or a list at a version no longer served), as
	// Metrics.Expired does per reflector.
	Expired int64
}

var totals struct {
	relists, expired atomic.Int64
}

// ProcessTotals returns the Totals of the process now. The counts only
// grow; subtract two readings to count what happened between them.
func ProcessTotals() Totals {
	return Totals{Relists: totals.relists.Load(), Expired: totals.expired.Load()}
}
