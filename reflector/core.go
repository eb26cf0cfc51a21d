package reflector

import (
	"fmt"
	"math"
	"time"

	"github.com/ctrlkit/ctrlkit/source"
)

// This file is the reflector's pure core: decisions that take the time
// and the random numbers they need as arguments, so they are table-tested
// without goroutines or clocks.

// backoff is the state of the exponential backoff. Not safe for
// concurrent use; Run's loop owns it.
type backoff struct {
	cfg Backoff
	// failures is the number of consecutive failures the next delay is
	// computed from; it stops growing once the delay reaches cfg.Cap.
	failures int
	// retryAt is when the last backoff wait ended (zero: never).
	retryAt time.Time
}

// next records a failure at now and returns how long to wait before the
// retry; r in [0, 1) is the random draw for the jitter.
func (b *backoff) next(now time.Time, r float64) time.Duration {
	if !b.retryAt.IsZero() && now.Sub(b.retryAt) >= b.cfg.ResetAfter {
		b.failures = 0
	}
	d := b.cfg.Cap
	if f := float64(b.cfg.Initial) * math.Pow(b.cfg.Factor, float64(b.failures)); f < float64(b.cfg.Cap) {
		d = time.Duration(f)
		b.failures++
	}
	d -= time.Duration(b.cfg.Jitter * r * float64(d))
	b.retryAt = now.Add(d)
	return d
}

// watchLifetime picks a lifetime in [lo, hi] from the draw r in [0, 1).
func watchLifetime(lo, hi time.Duration, r float64) time.Duration {
	return lo + time.Duration(r*float64(hi-lo))
}

// earliest returns the earlier of two deadlines, where the zero time means
// "none".
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

// due reports whether the deadline at (zero: none) has come at now.
func due(at, now time.Time) bool {
	return !at.IsZero() && !now.Before(at)
}

// checkEvent validates a change or bookmark event against the
// resourceVersion last synced (lastRV, "" if none). cmp is the source's
// VersionComparer or nil. The error wraps ErrBadSource.
func checkEvent[T any](ev *source.Event[T], lastRV string, cmp source.VersionComparer) error {
	switch ev.Type {
	case source.Added, source.Modified, source.Deleted, source.Bookmark:
	case source.Error:
		if ev.Err == nil {
			return fmt.Errorf("%w: Error event without Err", ErrBadSource)
		}
		return nil
	default:
		return fmt.Errorf("%w: event of unknown type %v", ErrBadSource, ev.Type)
	}
	if ev.ResourceVersion == "" {
		return fmt.Errorf("%w: %v event without resourceVersion", ErrBadSource, ev.Type)
	}
	return checkOrder(cmp, ev.ResourceVersion, lastRV, "event")
}

// checkOrder returns an error wrapping ErrBadSource if cmp can tell that
// rv is older than floor. It accepts everything when cmp is nil or floor
// is "".
func checkOrder(cmp source.VersionComparer, rv, floor, what string) error {
	if cmp == nil || floor == "" {
		return nil
	}
	c, err := cmp.CompareResourceVersions(rv, floor)
	if err != nil {
		return fmt.Errorf("%w: %s at resourceVersion %q: %w", ErrBadSource, what, rv, err)
	}
	if c < 0 {
		return fmt.Errorf("%w: %s at resourceVersion %q is older than %q", ErrBadSource, what, rv, floor)
	}
	return nil
}

// deadlineTimer is one time.Timer re-armed for the next deadline of the
// select loop. It only resets the underlying timer when the deadline
// changes, so a stream of events costs no timer operations.
type deadlineTimer struct {
	t  *time.Timer
	at time.Time // the deadline t is armed for; zero when disarmed
}

func newDeadlineTimer() *deadlineTimer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &deadlineTimer{t: t}
}

// arm sets the deadline; the zero time disarms the timer.
func (d *deadlineTimer) arm(at time.Time) {
	if at.Equal(d.at) {
		return
	}
	d.at = at
	if at.IsZero() {
		d.t.Stop()
		return
	}
	d.t.Reset(time.Until(at))
}

// fired must be called after a value was received from C.
func (d *deadlineTimer) fired() { d.at = time.Time{} }

// C is the timer's channel.
func (d *deadlineTimer) C() <-chan time.Time { return d.t.C }

func (d *deadlineTimer) stop() { d.t.Stop() }
