package reflector

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/source"
)

func defaultBackoff(t *testing.T) Backoff {
	b, err := Backoff{}.validate()
	require.NoError(t, err)
	return b
}

func TestOptionsDefaults(t *testing.T) {
	o, err := Options{}.validate("T")
	require.NoError(t, err)
	assert.Equal(t, "reflector[T]", o.Name)
	assert.NotNil(t, o.Logger)
	assert.Equal(t, time.Minute, o.WatchListTimeout)
	assert.Equal(t, 5*time.Minute, o.MinWatchTimeout)
	assert.Equal(t, 10*time.Minute, o.MaxWatchTimeout)
	assert.Equal(t, Backoff{Initial: 800 * time.Millisecond, Factor: 2, Cap: 30 * time.Second,
		Jitter: 0.5, ResetAfter: 2 * time.Minute}, o.Backoff)
	assert.Zero(t, o.PageSize)
	assert.Zero(t, o.ResyncPeriod)

	o, err = Options{MinWatchTimeout: time.Minute}.validate("T")
	require.NoError(t, err)
	assert.Equal(t, 2*time.Minute, o.MaxWatchTimeout, "Max defaults to 2×Min")

	b, err := Backoff{Initial: time.Minute, Jitter: -1}.validate()
	require.NoError(t, err)
	assert.Equal(t, time.Minute, b.Cap, "default cap never below Initial")
	assert.Zero(t, b.Jitter)
}

// The backoff core over explicit instants and random draws.
func TestBackoffNext(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	type step struct {
		at   time.Duration // since t0
		r    float64
		want time.Duration
	}
	cases := map[string]struct {
		cfg   Backoff
		steps []step
	}{
		"doubles to the cap": {Backoff{Initial: 800 * ms, Factor: 2, Cap: 30 * time.Second, ResetAfter: 2 * time.Minute}, []step{
			{0, 0, 800 * ms}, {1 * time.Second, 0, 1600 * ms}, {3 * time.Second, 0, 3200 * ms},
			{7 * time.Second, 0, 6400 * ms}, {14 * time.Second, 0, 12800 * ms}, {27 * time.Second, 0, 25600 * ms},
			{53 * time.Second, 0, 30 * time.Second}, {84 * time.Second, 0, 30 * time.Second},
		}},
		"jitter takes off up to its fraction": {Backoff{Initial: time.Second, Factor: 2, Cap: time.Minute, Jitter: 0.5, ResetAfter: time.Hour}, []step{
			{0, 0, time.Second}, {0, 0.5, 1500 * ms}, {0, 0.75, 2500 * ms}, {0, 1.0 / 3, 6666666667},
		}},
		"jitter applies at the cap": {Backoff{Initial: time.Second, Factor: 10, Cap: 5 * time.Second, Jitter: 1, ResetAfter: time.Hour}, []step{
			{0, 0, time.Second}, {0, 0.5, 2500 * ms}, {0, 0.75, 1250 * ms},
		}},
		"resets after a healthy period since the last retry": {Backoff{Initial: time.Second, Factor: 2, Cap: time.Minute, ResetAfter: time.Minute}, []step{
			{0, 0, time.Second}, {2 * time.Second, 0, 2 * time.Second},
			// The last retry was at 4s; 59s later is not yet healthy long enough.
			{63 * time.Second, 0, 4 * time.Second},
			// Last retry at 67s; a failure at 127s is 60s later: reset.
			{127 * time.Second, 0, time.Second},
		}},
		"factor one is constant": {Backoff{Initial: time.Second, Factor: 1, Cap: time.Second, ResetAfter: time.Hour}, []step{
			{0, 0, time.Second}, {0, 0, time.Second}, {0, 0, time.Second},
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := backoff{cfg: c.cfg}
			for i, s := range c.steps {
				got := b.next(t0.Add(s.at), s.r)
				assert.Equal(t, s.want, got, "step %d", i)
				assert.Equal(t, t0.Add(s.at+got), b.retryAt)
			}
		})
	}
}

func TestBackoffNeverOverflows(t *testing.T) {
	b := backoff{cfg: defaultBackoff(t)}
	t0 := time.Now()
	for i := range 10000 {
		d := b.next(t0, 0)
		require.Positive(t, d, "failure %d", i)
		require.LessOrEqual(t, d, 30*time.Second)
	}
	assert.Less(t, b.failures, 10, "the failure count stops at the cap")
}

func TestWatchLifetime(t *testing.T) {
	lo, hi := 5*time.Minute, 10*time.Minute
	assert.Equal(t, lo, watchLifetime(lo, hi, 0))
	assert.Equal(t, 7*time.Minute+30*time.Second, watchLifetime(lo, hi, 0.5))
	assert.Less(t, watchLifetime(lo, hi, 0.9999999), hi+1)
	assert.Equal(t, lo, watchLifetime(lo, lo, 0.7))
}

func TestDeadlines(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	var none time.Time
	assert.Equal(t, t0, earliest(t0, t1))
	assert.Equal(t, t0, earliest(t1, t0))
	assert.Equal(t, t0, earliest(none, t0))
	assert.Equal(t, t0, earliest(t0, none))
	assert.True(t, earliest(none, none).IsZero())
	assert.False(t, due(none, t1))
	assert.True(t, due(t0, t0))
	assert.True(t, due(t0, t1))
	assert.False(t, due(t1, t0))
}

type intCmp struct{}

func (intCmp) CompareResourceVersions(a, b string) (int, error) {
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	switch {
	case x < y:
		return -1, nil
	case x > y:
		return 1, nil
	}
	return 0, nil
}

func TestCheckEvent(t *testing.T) {
	boom := errors.New("boom")
	cases := []struct {
		name   string
		ev     source.Event[int]
		lastRV string
		cmp    source.VersionComparer
		bad    bool
	}{
		{"added", source.Event[int]{Type: source.Added, ResourceVersion: "5"}, "4", intCmp{}, false},
		{"equal rv", source.Event[int]{Type: source.Modified, ResourceVersion: "4"}, "4", intCmp{}, false},
		{"older rv", source.Event[int]{Type: source.Deleted, ResourceVersion: "3"}, "4", intCmp{}, true},
		{"older rv without comparer", source.Event[int]{Type: source.Deleted, ResourceVersion: "3"}, "4", nil, false},
		{"older bookmark", source.Event[int]{Type: source.Bookmark, ResourceVersion: "3"}, "4", intCmp{}, true},
		{"no last rv", source.Event[int]{Type: source.Added, ResourceVersion: "3"}, "", intCmp{}, false},
		{"malformed rv", source.Event[int]{Type: source.Added, ResourceVersion: "x"}, "4", intCmp{}, true},
		{"empty rv", source.Event[int]{Type: source.Added}, "4", nil, true},
		{"error with err", source.Event[int]{Type: source.Error, Err: boom}, "4", intCmp{}, false},
		{"error without err", source.Event[int]{Type: source.Error}, "4", nil, true},
		{"zero type", source.Event[int]{ResourceVersion: "5"}, "4", nil, true},
		{"unknown type", source.Event[int]{Type: 99, ResourceVersion: "5"}, "4", nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkEvent(&c.ev, c.lastRV, c.cmp)
			if c.bad {
				assert.ErrorIs(t, err, ErrBadSource)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}
