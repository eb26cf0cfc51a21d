package informer

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// mutationDetector remembers a fingerprint of every object the informer
// caches and reports cached objects whose fingerprint changed: somebody
// mutated an object shared with the cache.
type mutationDetector[T any] struct {
	fingerprint func(T) ([]byte, error)
	onMutation  func(key string)
	period      time.Duration
	logger      *slog.Logger
	mutations   metrics.Counter
	panics      metrics.Counter // OnMutation panicked
	seed        maphash.Seed

	mu   sync.Mutex
	sums map[string]tracked[T] // guarded by mu
}

type tracked[T any] struct {
	obj T
	sum uint64
}

func newMutationDetector[T any](c *MutationCheck[T], logger *slog.Logger, m, panics metrics.Counter) *mutationDetector[T] {
	fp := c.Fingerprint
	if fp == nil {
		fp = func(obj T) ([]byte, error) { return json.Marshal(obj) }
	}
	return &mutationDetector[T]{
		fingerprint: fp,
		onMutation:  c.OnMutation,
		period:      c.Period,
		logger:      logger,
		mutations:   m,
		panics:      panics,
		seed:        maphash.MakeSeed(),
		sums:        make(map[string]tracked[T]),
	}
}

// sum fingerprints obj; ok is false if the fingerprint func failed or
// panicked (such objects are not tracked).
func (d *mutationDetector[T]) sum(obj T) (s uint64, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			ok = false
		}
	}()
	b, err := d.fingerprint(obj)
	if err != nil {
		return 0, false
	}
	return maphash.Bytes(d.seed, b), true
}

// record starts tracking obj under key, first checking the object it
// replaces.
func (d *mutationDetector[T]) record(key string, obj T) {
	s, ok := d.sum(obj)
	d.mu.Lock()
	prev, had := d.sums[key]
	if ok {
		d.sums[key] = tracked[T]{obj: obj, sum: s}
	} else {
		delete(d.sums, key)
	}
	d.mu.Unlock()
	if had {
		d.check(key, prev)
	}
}

// forget stops tracking key, first checking its object.
func (d *mutationDetector[T]) forget(key string) {
	d.mu.Lock()
	prev, had := d.sums[key]
	delete(d.sums, key)
	d.mu.Unlock()
	if had {
		d.check(key, prev)
	}
}

// check reports whether t's object changed since it was fingerprinted,
// and reports the mutation if so.
func (d *mutationDetector[T]) check(key string, t tracked[T]) bool {
	s, ok := d.sum(t.obj)
	if !ok || s == t.sum {
		return false
	}
	d.mutations.Inc()
	d.logger.Error("informer: a cached object was mutated; objects from the cache are shared and must not be changed",
		"key", key)
	d.callOnMutation(key)
	return true
}

// callOnMutation calls OnMutation, recovering (logging and counting) a
// panic: a broken callback must not crash the informer, which sometimes
// calls it with its lock held.
func (d *mutationDetector[T]) callOnMutation(key string) {
	if d.onMutation == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			d.panics.Inc()
			d.logger.Error("informer: MutationCheck.OnMutation panicked", "key", key, "panic", fmt.Sprint(r))
		}
	}()
	d.onMutation(key)
}

// checkAll checks every tracked object; a mutated one is reported once
// and then tracked with its new fingerprint.
func (d *mutationDetector[T]) checkAll() {
	d.mu.Lock()
	snapshot := make(map[string]tracked[T], len(d.sums))
	for k, t := range d.sums {
		snapshot[k] = t
	}
	d.mu.Unlock()
	for key, t := range snapshot {
		if !d.check(key, t) {
			continue
		}
		if s, ok := d.sum(t.obj); ok {
			d.mu.Lock()
			if cur, still := d.sums[key]; still && cur.sum == t.sum {
				d.sums[key] = tracked[T]{obj: t.obj, sum: s}
			}
			d.mu.Unlock()
		}
	}
}

// run checks every tracked object every period until ctx ends.
func (d *mutationDetector[T]) run(ctx context.Context) {
	timer := time.NewTimer(d.period)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			d.checkAll()
			timer.Reset(d.period)
		}
	}
}
