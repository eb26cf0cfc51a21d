package workqueue

import (
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

func TestExponentialRateLimiterDoublesAndCaps(t *testing.T) {
	r := NewItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)
	for i, want := range []time.Duration{1, 2, 4, 8, 10, 10} {
		require.Equal(t, want*time.Millisecond, r.When("a"), "failure %d", i)
	}
	require.Equal(t, time.Millisecond, r.When("b"), "per item")
	require.Equal(t, 6, r.NumRequeues("a"))
	r.Forget("a")
	require.Zero(t, r.NumRequeues("a"))
	require.Equal(t, time.Millisecond, r.When("a"))
}

// TestExponentialRateLimiterOverflow: after 10,000 failures the delay is
// still exactly max: never negative, never wrapped.
func TestExponentialRateLimiterOverflow(t *testing.T) {
	for _, max := range []time.Duration{1000 * time.Second, math.MaxInt64} {
		r := NewItemExponentialFailureRateLimiter[int](5*time.Millisecond, max)
		var last time.Duration
		for i := range 10_000 {
			d := r.When(1)
			require.Positive(t, d, "failure %d", i)
			require.GreaterOrEqual(t, d, last, "failure %d", i)
			require.LessOrEqual(t, d, max)
			last = d
		}
		require.Equal(t, max, last)
		require.Equal(t, 10_000, r.NumRequeues(1))
	}
}

func TestBackoffArithmetic(t *testing.T) {
	for _, tc := range []struct {
		base, max time.Duration
		n         int
		want      time.Duration
	}{
		{5, 100, 0, 5},
		{5, 100, 4, 80},
		{5, 100, 5, 100},
		{5, math.MaxInt64, 62, math.MaxInt64}, // 5<<62 overflows
		{1, math.MaxInt64, 62, 1 << 62},
		{1, math.MaxInt64, 63, math.MaxInt64},
		{1, math.MaxInt64, math.MaxInt, math.MaxInt64},
		{0, 100, 1000, 0},
	} {
		require.Equal(t, tc.want, backoff(tc.base, tc.max, tc.n), "%+v", tc)
	}
}

func TestExponentialRateLimiterNormalisesArguments(t *testing.T) {
	r := NewItemExponentialFailureRateLimiter[int](-time.Second, -time.Second)
	require.Zero(t, r.When(1))
	r = NewItemExponentialFailureRateLimiter[int](time.Second, time.Millisecond)
	require.Equal(t, time.Second, r.When(1), "max below base counts as base")
	require.Equal(t, time.Second, r.When(1))
}

func TestFastSlowRateLimiter(t *testing.T) {
	r := NewItemFastSlowRateLimiter[string](time.Millisecond, time.Second, 2)
	require.Equal(t, time.Millisecond, r.When("a"))
	require.Equal(t, time.Millisecond, r.When("a"))
	require.Equal(t, time.Second, r.When("a"))
	require.Equal(t, time.Millisecond, r.When("b"))
	require.Equal(t, 3, r.NumRequeues("a"))
	r.Forget("a")
	require.Equal(t, time.Millisecond, r.When("a"))
	require.Zero(t, NewItemFastSlowRateLimiter[int](-1, -1, 0).When(1))
}

func TestBucketRateLimiterSpacesRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewBucketRateLimiter[string](rate.NewLimiter(10, 2), 0)
		require.Zero(t, r.When("a"))
		require.Zero(t, r.When("b"))
		require.Equal(t, 100*time.Millisecond, r.When("c"))
		require.Equal(t, 200*time.Millisecond, r.When("a"))
		time.Sleep(time.Second)
		require.Zero(t, r.When("a"), "refilled")
		require.Zero(t, r.NumRequeues("a"))
		r.Forget("a") // no per-item state
	})
}

// TestBucketRateLimiterMaxDelay: 10,000 failures never wait more than the
// cap, and the bucket's debt stays bounded: once the cap has passed the
// bucket grants tokens again.
func TestBucketRateLimiterMaxDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewBucketRateLimiter[int](rate.NewLimiter(10, 100), 5*time.Second)
		capped := 0
		for i := range 10_000 {
			d := r.When(i)
			require.LessOrEqual(t, d, 5*time.Second)
			if d == 5*time.Second {
				capped++
			}
		}
		require.Equal(t, 10_000-100-49, capped, "100 burst, then 49 below 5s at 10/s")
		time.Sleep(5 * time.Second)
		// The debt was at most the cap: 5s later the bucket is at zero
		// tokens, one interval from the next grant.
		require.Equal(t, 100*time.Millisecond, r.When(1))
		// Unbounded, like client-go's: 10,000 requests wait ~16 minutes.
		u := NewBucketRateLimiter[int](rate.NewLimiter(10, 100), 0)
		var d time.Duration
		for i := range 10_000 {
			d = u.When(i)
		}
		require.Equal(t, 990*time.Second, d)
	})
}

func TestBucketRateLimiterThatNeverGrants(t *testing.T) {
	require.Equal(t, time.Second, NewBucketRateLimiter[int](rate.NewLimiter(10, 0), time.Second).When(1))
	require.Equal(t, rate.InfDuration, NewBucketRateLimiter[int](rate.NewLimiter(10, 0), 0).When(1))
	require.Equal(t, time.Second, NewBucketRateLimiter[int](rate.NewLimiter(0, 0), time.Second).When(1))
	require.Zero(t, NewBucketRateLimiter[int](nil, 0).When(1), "nil limiter: unlimited")
}

func TestMaxOfRateLimiter(t *testing.T) {
	r := NewMaxOfRateLimiter(
		NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		NewItemFastSlowRateLimiter[string](5*time.Millisecond, 10*time.Second, 3),
		nil,
	)
	for _, want := range []time.Duration{5, 5, 5, 10000, 10000} {
		require.Equal(t, want*time.Millisecond, r.When("a"))
	}
	require.Equal(t, 5, r.NumRequeues("a"))
	r.Forget("a")
	require.Zero(t, r.NumRequeues("a"))
	require.Equal(t, 5*time.Millisecond, r.When("a"))
	require.Zero(t, NewMaxOfRateLimiter[int]().When(1))
}

func TestWithMaxWaitRateLimiter(t *testing.T) {
	r := NewWithMaxWaitRateLimiter(NewItemExponentialFailureRateLimiter[string](time.Second, time.Hour), 3*time.Second)
	for _, want := range []time.Duration{1, 2, 3, 3} {
		require.Equal(t, want*time.Second, r.When("a"))
	}
	require.Equal(t, 4, r.NumRequeues("a"))
	r.Forget("a")
	require.Zero(t, r.NumRequeues("a"))
	require.Zero(t, NewWithMaxWaitRateLimiter[int](nil, time.Second).When(1))
}

// TestDefaultControllerRateLimiter checks the documented arithmetic: the
// per-item backoff until the bucket's burst runs out, then the bucket,
// capped at a minute, and the per-item cap of 1000s.
func TestDefaultControllerRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := DefaultControllerRateLimiter[int]()
		require.Equal(t, 5*time.Millisecond, r.When(0))
		require.Equal(t, 10*time.Millisecond, r.When(0))
		for i := 1; i < 99; i++ {
			require.Equal(t, 5*time.Millisecond, r.When(i), "within the burst")
		}
		require.Equal(t, 100*time.Millisecond, r.When(100), "burst spent: 10/s")
		for i := range 1000 {
			require.LessOrEqual(t, r.When(1000+i), DefaultBucketMaxDelay)
		}
		require.Equal(t, DefaultBucketMaxDelay, r.When(5000))
		var d time.Duration
		for range 30 {
			d = r.When(-7)
		}
		require.Equal(t, DefaultMaxDelay, d)
		require.Equal(t, 30, r.NumRequeues(-7))
		r.Forget(-7)
		require.Zero(t, r.NumRequeues(-7))
	})
}

func TestRateLimitersAreSafeForConcurrentUse(t *testing.T) {
	r := DefaultControllerRateLimiter[int]()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				r.When(i % 10)
				if i%7 == g {
					r.Forget(i % 10)
				}
				r.NumRequeues(i % 10)
			}
		})
	}
	wg.Wait()
}

// TestTypedNilLimitersAndProviders: the queue's constructors cannot fail,
// so a nil pointer where an interface is expected counts as unset, as nil
// does, instead of panicking at its first use.
func TestTypedNilLimitersAndProviders(t *testing.T) {
	var rl *typedNilLimiter
	var mp *typedNilProvider
	q := New(Options[string]{RateLimiter: rl, Metrics: mp})
	q.AddRateLimited("a")
	require.Equal(t, 1, q.NumRequeues("a"), "the default limiter is used")
	q.Forget("a")
	q.ShutDown()

	m := NewMaxOfRateLimiter[string](rl, NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second))
	require.Equal(t, time.Millisecond, m.When("a"))
	w := NewWithMaxWaitRateLimiter[string](rl, time.Second)
	require.Zero(t, w.When("a"))
	require.Zero(t, w.NumRequeues("a"))
}

type typedNilLimiter struct{ RateLimiter[string] }

type typedNilProvider struct{ MetricsProvider }
