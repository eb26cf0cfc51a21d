package informer

import (
	"context"
	"time"
)

// Polling bounds of WaitForCacheSync: it checks at once, then after
// syncPollMin, doubling up to syncPollMax.
const (
	syncPollMin = time.Millisecond
	syncPollMax = 100 * time.Millisecond
)

// WaitForCacheSync waits until every one of synced returns true (typically
// Informer.HasSynced and Registration.HasSynced) and reports true, or
// returns false as soon as ctx ends. It waits on a timer and ctx.Done, so
// it never spins and it works in virtual time (testing/synctest); it
// checks at once, then at intervals that grow from 1ms to 100ms. A nil
// function never reports synced; a nil ctx reports false at once.
func WaitForCacheSync(ctx context.Context, synced ...func() bool) bool {
	if ctx == nil {
		return false
	}
	interval := syncPollMin
	var timer *time.Timer
	for {
		if ctx.Err() != nil {
			return false
		}
		if allSynced(synced) {
			return true
		}
		if timer == nil {
			timer = time.NewTimer(interval)
			defer timer.Stop()
		} else {
			timer.Reset(interval)
		}
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
		}
		interval = min(2*interval, syncPollMax)
	}
}

func allSynced(synced []func() bool) bool {
	for _, f := range synced {
		if f == nil || !f() {
			return false
		}
	}
	return true
}
