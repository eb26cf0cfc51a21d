package harness_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/harness"
	"github.com/stretchr/testify/require"
)

// creator creates ConfigMaps a, b and c once each, at start, and keeps
// the error of each create.
type creator struct {
	c    client.Client
	mu   *sync.Mutex
	errs map[string]error
}

func (r *creator) Run(ctx context.Context) error {
	cms, err := client.For[*api.ConfigMap](r.c)
	if err != nil {
		return err
	}
	for _, name := range []string{"a", "b", "c"} {
		_, err := cms.Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name}})
		r.mu.Lock()
		if _, seen := r.errs[name]; !seen { // the first incarnation's
			r.errs[name] = err
		}
		r.mu.Unlock()
	}
	<-ctx.Done()
	return nil
}

// Each fault at the second write: what the controller gets, and whether
// the write happened.
func TestFaults(t *testing.T) {
	for _, tc := range []struct {
		fault   harness.Fault
		is      func(error) bool
		written bool
	}{
		{harness.Crash, func(err error) bool { return err == nil }, true},
		{harness.Conflict, client.IsConflict, false},
		{harness.Throttle, func(err error) bool {
			d, ok := client.RetryAfter(err)
			return client.IsTooManyRequests(err) && ok && d == time.Second
		}, false},
		{harness.Internal, func(err error) bool { return errors.Is(err, harness.ErrInternal) }, false},
		{harness.TimeoutWritten, client.IsServerTimeout, true},
		{harness.TimeoutLost, client.IsServerTimeout, false},
	} {
		t.Run(string(tc.fault), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				errs := map[string]error{}
				ctl := func(c client.Client) (harness.Runner, error) { return &creator{c: c, mu: &mu, errs: errs}, nil }
				s := harness.Scenario{Kinds: []harness.Kind{harness.KindOf[*api.ConfigMap]()}}
				o, err := harness.Replay(t.Context(), s, ctl, nil, []harness.Perturbation{{Write: 2, Fault: tc.fault}})
				require.NoError(t, err)
				require.Empty(t, o.Problems)
				mu.Lock()
				defer mu.Unlock()
				require.NoError(t, errs["a"])
				require.True(t, tc.is(errs["b"]), "%v", errs["b"])
				var names []string
				for _, obj := range o.End {
					names = append(names, obj.Name)
				}
				if tc.fault == harness.Crash {
					// The restarted incarnation creates all three again:
					// AlreadyExists for a and b, and c.
					require.Equal(t, []string{"a", "b", "c"}, names)
					require.Equal(t, 5, o.Writes)
					require.Equal(t, 1, o.Timeline[2].Incarnation)
					require.Contains(t, o.Timeline[3].Result, "already exists")
					return
				}
				require.Equal(t, 3, o.Writes)
				require.Equal(t, tc.fault, o.Timeline[1].Fault)
				if tc.written {
					require.Equal(t, []string{"a", "b", "c"}, names)
				} else {
					require.Equal(t, []string{"a", "c"}, names)
				}
			})
		})
	}
}

// flapper writes forever: the run never settles.
type flapper struct{ c client.Client }

func (r *flapper) Run(ctx context.Context) error {
	cms, err := client.For[*api.ConfigMap](r.c)
	if err != nil {
		return err
	}
	cm := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: "flap"}, Data: map[string]string{"n": "0"}}
	if _, err := cms.Create(ctx, cm); err != nil {
		return err
	}
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
		cm.Data["n"] = time.Now().String()
		if _, err := cms.Update(ctx, cm, ""); err != nil && ctx.Err() == nil {
			return err
		}
	}
}

// quitter returns at once.
type quitter struct{}

func (quitter) Run(context.Context) error { return errors.New("done already") }

func TestConvergenceAndExitAreProblems(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := harness.Scenario{Converge: 2 * time.Minute, Kinds: []harness.Kind{harness.KindOf[*api.ConfigMap]()}}
		o, err := harness.Replay(t.Context(), s, func(c client.Client) (harness.Runner, error) { return &flapper{c: c}, nil }, nil, nil)
		require.NoError(t, err)
		require.Len(t, o.Problems, 1)
		require.Contains(t, o.Problems[0], "no convergence within 2m0s after applying the objects")
		require.Greater(t, o.Writes, 100)
		require.Len(t, o.Timeline, o.Writes)

		// A timeline is bounded; the count is not.
		long := s
		long.Converge = 20 * time.Minute
		o, err = harness.Replay(t.Context(), long, func(c client.Client) (harness.Runner, error) { return &flapper{c: c}, nil }, nil, nil)
		require.NoError(t, err)
		require.Greater(t, o.Writes, harness.MaxTimeline)
		require.Len(t, o.Timeline, harness.MaxTimeline)

		o, err = harness.Replay(t.Context(), s, func(client.Client) (harness.Runner, error) { return quitter{}, nil }, nil, nil)
		require.NoError(t, err)
		require.Equal(t, []string{"controller incarnation 0 stopped by itself: done already"}, o.Problems)
	})
}
