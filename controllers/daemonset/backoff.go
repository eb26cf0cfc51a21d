package daemonset

import (
	"sync"
	"time"
)

// The failed-pod back-off of kcm's DaemonSet controller
// (flowcontrol.NewBackOff(1s, 15min)).
const (
	// FailedPodsBackoffInitial is the first wait between deleting two
	// failed daemon pods of one set on one node.
	FailedPodsBackoffInitial = time.Second
	// FailedPodsBackoffMax caps the wait, which doubles on every failure.
	FailedPodsBackoffMax = 15 * time.Minute
)

// backoff is client-go's flowcontrol.Backoff as the DaemonSet controller
// uses it, keyed by "<set uid>/<node>": the first failure passes at once
// and starts a 1 s wait; a failure while waiting is held until the wait
// ends; each failure after the wait doubles it, up to 15 min; an entry
// not stepped for twice the maximum starts over (and is collected by
// gc). Safe for concurrent use.
type backoff struct {
	initial, max time.Duration

	mu      sync.Mutex
	entries map[string]backoffEntry // guarded by mu
}

type backoffEntry struct {
	delay      time.Duration
	lastUpdate time.Time
}

func newBackoff(initial, max time.Duration) *backoff {
	return &backoff{initial: initial, max: max, entries: map[string]backoffEntry{}}
}

// waiting reports whether key is within its wait at now, and the wait
// (IsInBackOffSinceUpdate and Get).
func (b *backoff) waiting(key string, now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok {
		return 0, false
	}
	return e.delay, now.Sub(e.lastUpdate) < e.delay
}

// next steps key's back-off at now (Next).
func (b *backoff) next(key string, now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e, ok := b.entries[key]
	if !ok || now.Sub(e.lastUpdate) > 2*b.max {
		b.entries[key] = backoffEntry{delay: b.initial, lastUpdate: now}
		return
	}
	b.entries[key] = backoffEntry{delay: min(2*e.delay, b.max), lastUpdate: now}
}

// gc drops the entries not stepped for twice the maximum (GC).
func (b *backoff) gc(now time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, e := range b.entries {
		if now.Sub(e.lastUpdate) > 2*b.max {
			delete(b.entries, k)
		}
	}
}

// len returns the number of entries.
func (b *backoff) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.entries)
}
