package informer

import (
	"context"
	"fmt"
	"time"

	"github.com/ctrlkit/ctrlkit/deltafifo"
	"github.com/ctrlkit/ctrlkit/source"
)

// process applies one key's popped deltas to the cache and queues the
// resulting notifications. It never fails: a delta the cache rejects is
// logged, counted and skipped.
// The key func runs on every delta's object.
func (inf *Informer[T]) process(ds deltafifo.Deltas[T], isInInitialList bool) error {
	return inf.processKey("", ds, isInInitialList)
}

// processKey is process for the deltas of one key, the FIFO's (see
// deltafifo.PopKey): the cache files them under it without running the
// key func again. An empty key makes it process.
func (inf *Informer[T]) processKey(key string, ds deltafifo.Deltas[T], isInInitialList bool) error {
	for _, err := range inf.applyAll(key, ds, isInInitialList) {
		inf.reportBad(err)
	}
	return nil
}

// applyAll applies ds under mu and returns the cache rejections to report;
// key is their key, or "" to compute it for each.
func (inf *Informer[T]) applyAll(key string, ds deltafifo.Deltas[T], isInInitialList bool) []error {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	for i := range ds {
		inf.applyLocked(key, &ds[i], isInInitialList)
	}
	rejected := inf.rejected
	inf.rejected = nil
	return rejected
}

// quarantined is the FIFO's OnBadObject: an object whose key func or
// Transform failed was left out (the FIFO has logged it).
func (inf *Informer[T]) quarantined(b *deltafifo.BadObjectError) {
	inf.metrics.Quarantined.Inc()
	inf.reportBad(b)
}

// reportBad hands err to Options.OnBadObject, recovering a panic.
func (inf *Informer[T]) reportBad(err error) {
	if inf.onBad == nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			inf.metrics.CallbackPanics.Inc()
			inf.logger.Error("informer: OnBadObject panicked", "panic", fmt.Sprint(r), "err", err)
		}
	}()
	inf.onBad(err)
}

// applyLocked applies one delta: the cache first, then the notification.
//
//   - Deleted: remove the cached object; OnDelete(delta object,
//     FinalStateUnknown), or with the cached object if the delta's is
//     older. A key that is not cached was never notified, so its delete
//     is not either.
//   - Added, Updated, Replaced, Sync of a key not cached: add; OnAdd.
//   - Sync of a cached key: nothing (periodic resync is the informer's
//     own, per handler; see resyncDueLocked).
//   - Added, Updated, Replaced of a cached key: when both objects carry
//     the same resourceVersion nothing changed (a relist or a repeated
//     event); when the new one is older (the source orders versions) it
//     is stale and dropped; otherwise update; OnUpdate(cached, new) to
//     every handler.
func (inf *Informer[T]) applyLocked(key string, d *deltafifo.Delta[T], isInInitialList bool) {
	if key == "" {
		k, err := inf.key(d.Object)
		if err != nil {
			inf.cacheErrorLocked(d, "", err)
			return
		}
		key = k
	}
	if d.Type == deltafifo.Deleted {
		inf.deleteLocked(key, d)
		return
	}
	// One lookup: the version check runs on the cached object inside the
	// cache's write.
	var order versionOrder
	r, err := inf.idx.UpsertKeyFunc(key, d.Object, func(old T, cached bool) bool {
		if !cached {
			return true
		}
		if d.Type == deltafifo.Sync {
			return false
		}
		order = inf.compareObjects(old, d.Object)
		return order != versionSame && order != versionOlder
	})
	key = r.Key // the stored key string, shared
	if err != nil {
		inf.cacheErrorLocked(d, key, err)
		return
	}
	if !r.Written {
		if order == versionOlder {
			inf.metrics.StaleDeltas.Inc()
			inf.logger.Warn("informer: dropping a delta older than the cached object",
				"key", key, "type", d.Type.String(), "resourceVersion", d.ResourceVersion)
		}
		return
	}
	if inf.mutations != nil {
		inf.mutations.record(key, d.Object)
	}
	if !r.Existed {
		inf.notifyLocked(key, notification[T]{kind: kindAdd, flag: isInInitialList, obj: d.Object})
		return
	}
	inf.notifyLocked(key, notification[T]{kind: kindUpdate, old: r.Old, obj: d.Object})
}

// deleteLocked applies a Deleted delta.
func (inf *Informer[T]) deleteLocked(key string, d *deltafifo.Delta[T]) {
	old, cached := inf.idx.DeleteKey(key)
	if !cached {
		inf.logger.Debug("informer: delete of a key that is not cached", "key", key)
		return
	}
	if inf.mutations != nil {
		inf.mutations.forget(key)
	}
	last := d.Object
	if inf.compareObjects(old, last) == versionOlder {
		// Never hand out a final state older than one already told.
		last = old
	}
	inf.notifyLocked(key, notification[T]{kind: kindDelete, flag: d.FinalStateUnknown, obj: last})
}

// key runs the key func, turning a panic or an empty key into an error.
func (inf *Informer[T]) key(obj T) (key string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("informer: key func panicked: %v", r)
		}
	}()
	key = inf.keyFunc(obj)
	if key == "" {
		return "", fmt.Errorf("informer: key func returned an empty key")
	}
	return key, nil
}

// cacheErrorLocked logs and counts a delta the cache rejected, and keeps
// it for process to hand to OnBadObject once mu is released.
func (inf *Informer[T]) cacheErrorLocked(d *deltafifo.Delta[T], key string, err error) {
	inf.metrics.CacheErrors.Inc()
	inf.logger.Error("informer: cache rejected a delta; handlers are not notified",
		"key", key, "type", d.Type.String(), "resourceVersion", d.ResourceVersion, "err", err)
	if inf.onBad != nil {
		inf.rejected = append(inf.rejected, fmt.Errorf("informer: cache rejected a delta: %w",
			&deltafifo.BadObjectError{Key: key, ResourceVersion: d.ResourceVersion, Type: d.Type, Err: err}))
	}
}

// notifyLocked queues n for every handler.
func (inf *Informer[T]) notifyLocked(key string, n notification[T]) {
	for _, l := range inf.listeners {
		l.push(key, n)
	}
}

type versionOrder uint8

const (
	versionUnknown versionOrder = iota // not comparable: treat as a change
	versionSame
	versionOlder
	versionNewer
)

// compareObjects orders the new object against the cached one by their
// source.Versioned resourceVersions.
func (inf *Informer[T]) compareObjects(cached, obj T) versionOrder {
	if !inf.versioned {
		return versionUnknown
	}
	a, ok1 := resourceVersionOf(cached)
	b, ok2 := resourceVersionOf(obj)
	if !ok1 || !ok2 || a == "" || b == "" {
		return versionUnknown
	}
	if a == b {
		return versionSame
	}
	if inf.cmp == nil {
		return versionUnknown
	}
	c, err := inf.cmp.CompareResourceVersions(b, a)
	switch {
	case err != nil:
		return versionUnknown
	case c < 0:
		return versionOlder
	case c > 0:
		return versionNewer
	}
	return versionSame
}

// resourceVersionOf returns obj's resourceVersion if it implements
// source.Versioned, recovering from a nil pointer receiver that panics.
func resourceVersionOf[T any](obj T) (rv string, ok bool) {
	v, ok := any(obj).(source.Versioned)
	if !ok {
		return "", false
	}
	defer func() {
		if recover() != nil {
			rv, ok = "", false
		}
	}()
	return v.GetResourceVersion(), true
}

// kickResync wakes the resync loop to recompute its deadline.
func (inf *Informer[T]) kickResync() {
	select {
	case inf.resyncKick <- struct{}{}:
	default:
	}
}

// resyncLoop sleeps until the earliest handler resync is due, runs every
// due resync, and repeats until ctx ends. One timer, no ticker.
func (inf *Informer[T]) resyncLoop(ctx context.Context) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		inf.mu.Lock()
		next := inf.nextResyncLocked()
		inf.mu.Unlock()
		var fire <-chan time.Time
		if !next.IsZero() {
			timer.Reset(time.Until(next))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return
		case <-inf.resyncKick:
			timer.Stop()
		case now := <-fire:
			inf.mu.Lock()
			inf.resyncDueLocked(now)
			inf.mu.Unlock()
		}
	}
}

// nextResyncLocked returns the earliest resync deadline of a running
// handler, or the zero time if none has one.
func (inf *Informer[T]) nextResyncLocked() time.Time {
	var next time.Time
	for _, l := range inf.listeners {
		if l.resync > 0 && !l.nextResync.IsZero() && (next.IsZero() || l.nextResync.Before(next)) {
			next = l.nextResync
		}
	}
	return next
}

// resyncDueLocked gives every handler whose resync is due at now an
// OnUpdate(obj, obj) for every cached object, in one pass over the cache,
// and schedules its next resync.
func (inf *Informer[T]) resyncDueLocked(now time.Time) {
	var due []*listener[T]
	for _, l := range inf.listeners {
		if l.resync > 0 && !l.nextResync.IsZero() && !l.nextResync.After(now) {
			due = append(due, l)
			for !l.nextResync.After(now) {
				l.nextResync = l.nextResync.Add(l.resync)
			}
		}
	}
	if len(due) == 0 {
		return
	}
	for key, obj := range inf.idx.All() {
		n := notification[T]{kind: kindUpdate, old: obj, obj: obj}
		for _, l := range due {
			l.push(key, n)
		}
	}
}
