package workqueue

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// RateLimiter decides how long an item waits before it is retried.
// Implementations must be safe for concurrent use.
type RateLimiter[T comparable] interface {
	// When records one more failure of item and returns how long it
	// should wait before its next try.
	When(item T) time.Duration
	// Forget clears the failure history of item (call it on success).
	Forget(item T)
	// NumRequeues returns the failures recorded for item since it was
	// last forgotten.
	NumRequeues(item T) int
}

// timedLimiter is implemented by this package's limiters so that a queue
// reads the clock once per AddRateLimited and passes the time down.
type timedLimiter[T comparable] interface {
	whenAt(item T, now time.Time) time.Duration
}

func whenAt[T comparable](l RateLimiter[T], item T, now time.Time) time.Duration {
	if tl, ok := l.(timedLimiter[T]); ok {
		return tl.whenAt(item, now)
	}
	return l.When(item)
}

// Defaults of DefaultControllerRateLimiter.
const (
	// DefaultBaseDelay is the per-item backoff after the first failure.
	DefaultBaseDelay = 5 * time.Millisecond
	// DefaultMaxDelay caps the per-item backoff.
	DefaultMaxDelay = 1000 * time.Second
	// DefaultQPS and DefaultBurst shape the overall retry bucket.
	DefaultQPS = 10
	// DefaultBurst is the overall retry bucket's burst.
	DefaultBurst = 100
	// DefaultBucketMaxDelay caps the delay the overall bucket imposes.
	DefaultBucketMaxDelay = time.Minute
)

// DefaultControllerRateLimiter returns the limiter a controller uses
// unless told otherwise: the maximum of a per-item exponential backoff
// from DefaultBaseDelay (5ms) doubling up to DefaultMaxDelay (1000s), and
// an overall token bucket of DefaultQPS (10/s) with DefaultBurst (100)
// whose delay is capped at DefaultBucketMaxDelay (1 minute). The bucket
// spreads a mass failure over time; its cap keeps a burst of thousands of
// failures from pushing retries a quarter of an hour out.
func DefaultControllerRateLimiter[T comparable]() RateLimiter[T] {
	return NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[T](DefaultBaseDelay, DefaultMaxDelay),
		NewBucketRateLimiter[T](rate.NewLimiter(DefaultQPS, DefaultBurst), DefaultBucketMaxDelay),
	)
}

// failures is a concurrency-safe failure counter per item.
type failures[T comparable] struct {
	mu sync.Mutex
	n  map[T]int
}

func (f *failures[T]) inc(item T) int {
	f.mu.Lock()
	if f.n == nil {
		f.n = make(map[T]int)
	}
	n := f.n[item]
	if n < math.MaxInt {
		f.n[item] = n + 1
	}
	f.mu.Unlock()
	return n
}

func (f *failures[T]) forget(item T) {
	f.mu.Lock()
	delete(f.n, item)
	f.mu.Unlock()
}

func (f *failures[T]) get(item T) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n[item]
}

type exponential[T comparable] struct {
	base, max time.Duration
	f         failures[T]
}

// NewItemExponentialFailureRateLimiter returns a limiter whose When
// returns base·2^n for an item with n earlier failures since Forget,
// capped at max. It never overflows: any number of failures yields at most
// max. A negative base counts as zero; a max below base counts as base.
func NewItemExponentialFailureRateLimiter[T comparable](base, max time.Duration) RateLimiter[T] {
	base = clampDuration(base, 0)
	return &exponential[T]{base: base, max: clampDuration(max, base)}
}

func (r *exponential[T]) When(item T) time.Duration {
	return backoff(r.base, r.max, r.f.inc(item))
}

func (r *exponential[T]) whenAt(item T, _ time.Time) time.Duration { return r.When(item) }

func (r *exponential[T]) Forget(item T) { r.f.forget(item) }

func (r *exponential[T]) NumRequeues(item T) int { return r.f.get(item) }

// backoff is min(base·2^n, max) without overflow, for base, max >= 0.
func backoff(base, max time.Duration, n int) time.Duration {
	if base == 0 {
		return 0
	}
	if n >= 63 || base > max>>uint(n) {
		return max
	}
	return base << uint(n)
}

func clampDuration(d, lo time.Duration) time.Duration {
	if d < lo {
		return lo
	}
	return d
}

type fastSlow[T comparable] struct {
	fast, slow time.Duration
	maxFast    int
	f          failures[T]
}

// NewItemFastSlowRateLimiter returns a limiter whose When returns fast for
// the first maxFast failures of an item and slow after that. Negative
// durations count as zero.
func NewItemFastSlowRateLimiter[T comparable](fast, slow time.Duration, maxFast int) RateLimiter[T] {
	return &fastSlow[T]{fast: clampDuration(fast, 0), slow: clampDuration(slow, 0), maxFast: maxFast}
}

func (r *fastSlow[T]) When(item T) time.Duration {
	if r.f.inc(item) < r.maxFast {
		return r.fast
	}
	return r.slow
}

func (r *fastSlow[T]) whenAt(item T, _ time.Time) time.Duration { return r.When(item) }

func (r *fastSlow[T]) Forget(item T) { r.f.forget(item) }

func (r *fastSlow[T]) NumRequeues(item T) int { return r.f.get(item) }

type bucket[T comparable] struct {
	lim      *rate.Limiter
	maxDelay time.Duration
}

// NewBucketRateLimiter returns a limiter over all items: each When takes
// one token from lim and returns how long until that token is available.
// It keeps no per-item state (Forget does nothing, NumRequeues is 0).
//
// When maxDelay > 0, When never returns more than maxDelay: a request
// that would wait longer waits exactly maxDelay and takes no token, so
// the bucket's debt stays bounded and a burst of failures cannot push
// retries arbitrarily far out (client-go's bucket has no bound). With
// maxDelay <= 0 the delay is unbounded. A lim that can never grant a
// token (burst 0) yields maxDelay, or rate.InfDuration without one.
func NewBucketRateLimiter[T comparable](lim *rate.Limiter, maxDelay time.Duration) RateLimiter[T] {
	if lim == nil {
		lim = rate.NewLimiter(rate.Inf, 0)
	}
	return &bucket[T]{lim: lim, maxDelay: maxDelay}
}

func (r *bucket[T]) When(item T) time.Duration { return r.whenAt(item, time.Now()) }

func (r *bucket[T]) whenAt(_ T, now time.Time) time.Duration {
	if r.maxDelay > 0 {
		// Overloaded: do not reserve what would be cancelled anyway.
		if tokens := r.lim.TokensAt(now); tokens < 1 {
			limit := float64(r.lim.Limit())
			if limit <= 0 || (1-tokens)/limit > r.maxDelay.Seconds() {
				return r.maxDelay
			}
		}
	}
	res := r.lim.ReserveN(now, 1)
	if !res.OK() {
		if r.maxDelay > 0 {
			return r.maxDelay
		}
		return rate.InfDuration
	}
	d := res.DelayFrom(now)
	if r.maxDelay > 0 && d > r.maxDelay {
		res.CancelAt(now)
		return r.maxDelay
	}
	return d
}

func (r *bucket[T]) Forget(T) {}

func (r *bucket[T]) NumRequeues(T) int { return 0 }

type maxOf[T comparable] struct {
	ls []RateLimiter[T]
}

// NewMaxOfRateLimiter returns a limiter whose When is the longest of the
// limiters' delays (every limiter records the failure), whose Forget
// forgets in all of them and whose NumRequeues is the largest count. Nil
// limiters (and nil pointers) are skipped; with none, When returns 0.
func NewMaxOfRateLimiter[T comparable](limiters ...RateLimiter[T]) RateLimiter[T] {
	ls := make([]RateLimiter[T], 0, len(limiters))
	for _, l := range limiters {
		if !isNil(l) {
			ls = append(ls, l)
		}
	}
	return &maxOf[T]{ls: ls}
}

func (r *maxOf[T]) When(item T) time.Duration { return r.whenAt(item, time.Now()) }

func (r *maxOf[T]) whenAt(item T, now time.Time) time.Duration {
	var d time.Duration
	for _, l := range r.ls {
		d = max(d, whenAt(l, item, now))
	}
	return d
}

func (r *maxOf[T]) Forget(item T) {
	for _, l := range r.ls {
		l.Forget(item)
	}
}

func (r *maxOf[T]) NumRequeues(item T) int {
	n := 0
	for _, l := range r.ls {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

type withMaxWait[T comparable] struct {
	l       RateLimiter[T]
	maxWait time.Duration
}

// NewWithMaxWaitRateLimiter returns l with every delay capped at maxWait
// (a negative maxWait counts as zero). Forget and NumRequeues are l's.
// A nil l (or a nil pointer) behaves as a limiter that never delays.
func NewWithMaxWaitRateLimiter[T comparable](l RateLimiter[T], maxWait time.Duration) RateLimiter[T] {
	if isNil(l) {
		l = NewMaxOfRateLimiter[T]()
	}
	return &withMaxWait[T]{l: l, maxWait: clampDuration(maxWait, 0)}
}

func (r *withMaxWait[T]) When(item T) time.Duration { return r.whenAt(item, time.Now()) }

func (r *withMaxWait[T]) whenAt(item T, now time.Time) time.Duration {
	return min(whenAt(r.l, item, now), r.maxWait)
}

func (r *withMaxWait[T]) Forget(item T) { r.l.Forget(item) }

func (r *withMaxWait[T]) NumRequeues(item T) int { return r.l.NumRequeues(item) }
