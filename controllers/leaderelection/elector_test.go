package leaderelection_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/leaderelection"
	"github.com/ctrlkit/ctrlkit/leader"
)

const leaseKey = "kube-system/test-lease"

// partition makes a client fail every call while it is cut.
type partition struct{ cut atomic.Bool }

var errCut = errors.New("test: partitioned")

func (p *partition) intercept(ctx context.Context, _ client.Call, next func(context.Context) error) error {
	if p.cut.Load() {
		return fmt.Errorf("%w: %w", errCut, client.ErrServerTimeout)
	}
	return next(ctx)
}

func newCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(t.Context(), cluster.Options{})
	require.NoError(t, err)
	return c
}

// candidate returns an Elector named id over c, its writes cut by p when
// p is not nil.
func candidate(t *testing.T, c client.Client, id string, p *partition) *leaderelection.Elector {
	t.Helper()
	if p != nil {
		c = client.Intercept(c, p.intercept)
	}
	leases, err := client.For[*api.Lease](c)
	require.NoError(t, err)
	e, err := leaderelection.New(leases, leaderelection.Options{
		Namespace: "kube-system", Name: "test-lease", Identity: id,
		Logger: slog.New(slog.DiscardHandler),
	})
	require.NoError(t, err)
	return e
}

func getLease(t *testing.T, c client.Client) *api.Lease {
	t.Helper()
	leases, err := client.For[*api.Lease](c)
	require.NoError(t, err)
	l, _, err := leases.Get(t.Context(), leaseKey)
	require.NoError(t, err)
	return l
}

func holder(l *api.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// campaign starts e.Campaign and returns a channel that receives its
// term.
func campaign(ctx context.Context, e *leaderelection.Elector) <-chan leader.Term {
	ch := make(chan leader.Term, 1)
	go func() {
		term, err := e.Campaign(ctx)
		if err == nil {
			ch <- term
		}
		close(ch)
	}()
	return ch
}

func TestNewValidates(t *testing.T) {
	c := newCluster(t)
	leases, err := client.For[*api.Lease](c)
	require.NoError(t, err)
	_, err = leaderelection.New(nil, leaderelection.Options{Namespace: "a", Name: "b"})
	require.Error(t, err)
	_, err = leaderelection.New(leases, leaderelection.Options{Name: "b"})
	require.ErrorContains(t, err, "namespace and a name")
	_, err = leaderelection.New(leases, leaderelection.Options{Namespace: "a", Name: "b", RenewDeadline: 20 * time.Second})
	require.ErrorContains(t, err, "want RetryPeriod")
	_, err = leaderelection.New(leases, leaderelection.Options{Namespace: "a", Name: "b", RetryPeriod: -time.Second})
	require.ErrorContains(t, err, "negative")
	e, err := leaderelection.New(leases, leaderelection.Options{Namespace: "a", Name: "b"})
	require.NoError(t, err)
	require.NotEmpty(t, e.Identity())
	o := e.Options()
	require.Equal(t, []time.Duration{15 * time.Second, 10 * time.Second, 2 * time.Second}, []time.Duration{o.LeaseDuration, o.RenewDeadline, o.RetryPeriod})
	//nolint:staticcheck // a nil context is the mistake under test
	_, err = e.Campaign(nil)
	require.ErrorContains(t, err, "context is nil")
}

// Of two candidates one leads and keeps the Lease (renewing it) as long
// as it runs; the other waits.
func TestOneLeads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, c, ta, chb := aLeadsBWaits(t, nil)
		first := getLease(t, c)
		require.Equal(t, "a", holder(first))
		require.EqualValues(t, 15, *first.Spec.LeaseDurationSeconds)
		require.EqualValues(t, 0, *first.Spec.LeaseTransitions)

		time.Sleep(time.Minute)
		synctest.Wait()
		select {
		case <-chb:
			t.Fatal("b leads while a renews")
		case <-ta.Done():
			t.Fatal("a's term ended")
		default:
		}
		l := getLease(t, c)
		require.Equal(t, "a", holder(l))
		require.True(t, l.Spec.RenewTime.After(first.Spec.RenewTime.Time), "a renews")
		require.Equal(t, first.Spec.AcquireTime.Time, l.Spec.AcquireTime.Time)
		require.EqualValues(t, 0, *l.Spec.LeaseTransitions)
		require.NoError(t, ta.Resign(ctx))
	})
}

// Resign releases the Lease: the waiting candidate takes it within one
// RetryPeriod, not after LeaseDuration, and the transition is counted.
func TestResignHandsOver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, c, ta, chb := aLeadsBWaits(t, nil)
		time.Sleep(5 * time.Second)
		start := time.Now()
		require.NoError(t, ta.Resign(ctx))
		require.NoError(t, ta.Resign(ctx), "Resign is idempotent")
		select {
		case <-ta.Done():
		default:
			t.Fatal("Resign did not end the term")
		}
		l := getLease(t, c)
		require.Equal(t, "", holder(l))
		tb := <-chb
		require.NotNil(t, tb)
		require.LessOrEqual(t, time.Since(start), leaderelection.DefaultRetryPeriod)
		l = getLease(t, c)
		require.Equal(t, "b", holder(l))
		require.EqualValues(t, 1, *l.Spec.LeaseTransitions)
		require.NoError(t, tb.Resign(ctx))
	})
}

// A leader that cannot write ends its term within RenewDeadline of its
// last renewal; the other candidate takes over only after LeaseDuration
// has passed since it saw that renewal — after the term ended.
func TestLeaderThatCannotRenewEndsBeforeTakeover(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var pa partition
		ctx, c, ta, chb := aLeadsBWaits(t, &pa)
		time.Sleep(7 * time.Second) // a few renewals
		synctest.Wait()
		lastRenew := getLease(t, c).Spec.RenewTime.Time
		pa.cut.Store(true)

		var ended, acquired time.Time
		var tb leader.Term
		for ended.IsZero() || acquired.IsZero() {
			select {
			case <-ta.Done():
				ended = time.Now()
				ta = neverDone{}
			case tb = <-chb:
				acquired = time.Now()
				chb = nil
			}
		}
		require.True(t, ended.Before(acquired), "a's term ended at %v, b acquired at %v", ended, acquired)
		require.LessOrEqual(t, ended.Sub(lastRenew), leaderelection.DefaultRenewDeadline)
		require.GreaterOrEqual(t, acquired.Sub(lastRenew), leaderelection.DefaultLeaseDuration, "takeover only after expiry")
		l := getLease(t, c)
		require.Equal(t, "b", holder(l))
		require.EqualValues(t, 1, *l.Spec.LeaseTransitions)
		require.Equal(t, acquired.UTC().Truncate(time.Microsecond), l.Spec.AcquireTime.UTC())

		require.NoError(t, tb.Resign(ctx))
	})
}

// neverDone is a term placeholder whose Done never fires.
type neverDone struct{ leader.Term }

func (neverDone) Done() <-chan struct{} { return nil }

// A lost leader's Resign does not clear the Lease of the candidate that
// took over (its write is conditional on its own last version).
func TestLostLeaderResignLeavesNewHolder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c := newCluster(t)
		var pa partition
		a, b := candidate(t, c, "a", &pa), candidate(t, c, "b", nil)
		ta := <-campaign(ctx, a)
		pa.cut.Store(true)
		<-ta.Done()
		tb := <-campaign(ctx, b)
		require.NotNil(t, tb)
		pa.cut.Store(false)
		require.NoError(t, ta.Resign(ctx))
		require.Equal(t, "b", holder(getLease(t, c)))
		require.NoError(t, tb.Resign(ctx))
		require.Equal(t, "", holder(getLease(t, c)))
	})
}

// Five candidates run leader.Run for ten virtual minutes; every read is
// slowed so that candidates read the same version and race to write it
// (conflicts happen), and leaders are cut off from the cluster at random
// for a while. At no instant do two run their work.
func TestNeverTwoLeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c := newCluster(t)
		var conflicts atomic.Int64
		slow := client.Intercept(c, func(ctx context.Context, call client.Call, next func(context.Context) error) error {
			err := next(ctx)
			if call.Verb == "get" {
				time.Sleep(10 * time.Millisecond) // others read the same version meanwhile
			}
			if client.IsConflict(err) || client.IsAlreadyExists(err) {
				conflicts.Add(1)
			}
			return err
		})
		const n = 5
		parts := make([]*partition, n)
		var mu sync.Mutex
		leading, terms := -1, 0
		var wg sync.WaitGroup
		for i := range n {
			parts[i] = new(partition)
			e := candidate(t, slow, fmt.Sprint("c", i), parts[i])
			wg.Go(func() {
				err := leader.Run(ctx, e, func(ctx context.Context) error {
					mu.Lock()
					if leading != -1 {
						mu.Unlock()
						t.Errorf("c%d leads while c%d does", i, leading)
						return nil
					}
					leading = i
					terms++
					mu.Unlock()
					<-ctx.Done()
					mu.Lock()
					leading = -1
					mu.Unlock()
					return nil
				})
				require.ErrorIs(t, err, context.Canceled)
			})
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 40 {
			time.Sleep(time.Duration(rng.IntN(10_000)) * time.Millisecond)
			mu.Lock()
			l := leading
			mu.Unlock()
			if l >= 0 && rng.IntN(2) == 0 {
				parts[l].cut.Store(true)
				time.Sleep(time.Duration(5+rng.IntN(15)) * time.Second)
				parts[l].cut.Store(false)
			}
		}
		cancel()
		wg.Wait()
		require.Greater(t, terms, 3, "leadership changed hands")
		require.Positive(t, conflicts.Load(), "candidates raced")
	})
}

// aLeadsBWaits starts two candidates on a new cluster, a (behind pa, if
// not nil) and b, and returns once a leads, with a's term and b's
// campaign, which the test's end stops.
func aLeadsBWaits(t *testing.T, pa *partition) (context.Context, client.Client, leader.Term, <-chan leader.Term) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	c := newCluster(t)
	a, b := candidate(t, c, "a", pa), candidate(t, c, "b", nil)
	ta := <-campaign(ctx, a)
	require.NotNil(t, ta)
	return ctx, c, ta, campaign(ctx, b)
}
