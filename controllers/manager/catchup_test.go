package manager_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/source"
)

// faultyBackend keeps every resource of a cluster in a fake.Source of raw
// objects, so that a test can inject faults into the store's Lists.
type faultyBackend struct {
	mu      sync.Mutex
	sources map[string]*fake.Source[*cluster.RawObject]
}

func (b *faultyBackend) Open(r cluster.Resource) (cluster.RawStorage, error) {
	s, err := fake.NewSource(func(o *cluster.RawObject) string { return o.Key }, fake.Options[*cluster.RawObject]{
		Copy: func(o *cluster.RawObject) *cluster.RawObject { c := *o; return &c },
	})
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sources == nil {
		b.sources = map[string]*fake.Source[*cluster.RawObject]{}
	}
	b.sources[r.Name] = s
	return s, nil
}

func (b *faultyBackend) source(resource string) *fake.Source[*cluster.RawObject] {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sources[resource]
}

// hookElector counts the terms its Elector grants and calls onTerm with
// the count before handing each over (the catch-up comes right after).
type hookElector struct {
	leader.Elector
	onTerm func(n int, t leader.Term)
	mu     sync.Mutex
	terms  int
}

func (e *hookElector) Campaign(ctx context.Context) (leader.Term, error) {
	t, err := e.Elector.Campaign(ctx)
	if err != nil {
		return t, err
	}
	e.mu.Lock()
	e.terms++
	n := e.terms
	e.mu.Unlock()
	if e.onTerm != nil {
		e.onTerm(n, t)
	}
	return t, nil
}

func (e *hookElector) granted() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.terms
}

// The catch-up of a new leader fails: one List of the store, or several
// in a row, fail just as it begins to lead. It resigns, campaigns again
// after a back-off and leads; the ReplicaSet created while nobody led
// gets its pods, created once. Over seeds: how many Lists fail, of which
// resource, and whether the replica that fails is a standby taking over
// from a deposed leader or a manager alone.
func TestCatchUpFailureCampaignsAgain(t *testing.T) {
	for seed := range uint64(8) {
		rng := rand.New(rand.NewPCG(seed, 28))
		failures := 1 + rng.IntN(4)
		resource := []string{"replicasets", "pods"}[rng.IntN(2)]
		alone := rng.IntN(2) == 0
		t.Run(fmt.Sprintf("seed=%d/failures=%d/%s/alone=%t", seed, failures, resource, alone), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				var mu sync.Mutex
				creates := map[string]int{}
				count := func(_ context.Context, a cluster.Attributes) error {
					if a.Resource == "pods" && a.Operation == cluster.OperationCreate {
						mu.Lock()
						creates[a.Object.GetObjectMeta().Name]++
						mu.Unlock()
					}
					return nil
				}
				b := &faultyBackend{}
				c, err := cluster.New(ctx, cluster.Options{Backend: b, Admission: []cluster.AdmissionFunc{count}})
				require.NoError(t, err)
				memory := leader.NewMemory()
				fail := func(n int, _ leader.Term) {
					if n == 1 {
						b.source(resource).FailLists(failures, nil)
					}
				}
				errs := make(chan error, 2)
				var m1 *manager.Manager
				if !alone {
					m1, err = manager.New(c, manager.Options{Controllers: []string{"replicaset"}, Elector: memory})
					require.NoError(t, err)
					go func() { errs <- m1.Run(ctx) }()
					time.Sleep(time.Second)
					synctest.Wait()
					require.True(t, m1.Leading())
				}
				e := &hookElector{Elector: memory, onTerm: fail}
				m2, err := manager.New(c, manager.Options{Controllers: []string{"replicaset"}, Elector: e})
				require.NoError(t, err)
				go func() { errs <- m2.Run(ctx) }()
				time.Sleep(time.Second)
				synctest.Wait()
				if !alone {
					require.False(t, m2.Leading())
					require.True(t, memory.Depose())
					synctest.Wait()
					require.ErrorIs(t, <-errs, manager.ErrLeadershipLost)
				}
				_, err = c.ReplicaSets().Create(ctx, replicaSet(3))
				require.NoError(t, err)

				// The back-offs add up to less than 1+2+4+8 s.
				time.Sleep(time.Minute)
				synctest.Wait()
				select {
				case err := <-errs:
					t.Fatalf("Run returned while ctx lives: %v", err)
				default:
				}
				require.True(t, m2.Leading(), "leadership is taken again")
				require.Equal(t, failures+1, e.granted(), "one term per failed catch-up, then the one that leads")
				pods, err := c.Pods().List(ctx, source.ListOptions{})
				require.NoError(t, err)
				require.Len(t, pods.Items, 3, "the controllers run")
				mu.Lock()
				defer mu.Unlock()
				for name, n := range creates {
					require.Equal(t, 1, n, "pod %s created once", name)
				}
			})
		})
	}
}

// flakyElector fails its first n Campaigns.
type flakyElector struct {
	leader.Elector
	mu sync.Mutex
	n  int
}

func (e *flakyElector) Campaign(ctx context.Context) (leader.Term, error) {
	e.mu.Lock()
	fail := e.n > 0
	e.n--
	e.mu.Unlock()
	if fail {
		return nil, errors.New("backend unreachable")
	}
	return e.Elector.Campaign(ctx)
}

// An elector that returns errors (the contract asks it to retry itself,
// but not every one does) does not leave the process leaderless: the
// manager campaigns again with a back-off, as client-go's leader
// election retries forever.
func TestCampaignErrorsCampaignAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		m, err := manager.New(c, manager.Options{Controllers: []string{"replicaset"}, Elector: &flakyElector{Elector: leader.NewMemory(), n: 5}})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		start := time.Now()
		_, err = c.ReplicaSets().Create(ctx, replicaSet(2))
		require.NoError(t, err)
		for !m.Leading() {
			time.Sleep(100 * time.Millisecond)
			require.Less(t, time.Since(start), time.Minute, "the manager leads again")
		}
		// Five back-offs: 1, 2, 4, 8, 16 s, each less up to half.
		require.Greater(t, time.Since(start), 15*time.Second)
		time.Sleep(time.Second)
		synctest.Wait()
		pods, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, pods.Items, 2)
		cancel()
		require.NoError(t, <-done)
	})
}

// A term that ends before the controllers start (deposed during its
// catch-up) is not lost leadership: nothing acted, so the manager
// campaigns again and leads, rather than returning ErrLeadershipLost.
func TestTermLostDuringCatchUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		b := &faultyBackend{}
		c, err := cluster.New(ctx, cluster.Options{Backend: b})
		require.NoError(t, err)
		memory := leader.NewMemory()
		e := &hookElector{Elector: memory, onTerm: func(n int, _ leader.Term) {
			if n == 1 {
				b.source("pods").DelayLists(10 * time.Second)
				// Lift the delay before deposing: the deposed replica
				// campaigns again at once, and its next List must not
				// race the lifting (the List in flight keeps its delay
				// and ends with the term's context).
				time.AfterFunc(time.Second, func() { b.source("pods").DelayLists(0); memory.Depose() })
			}
		}}
		m, err := manager.New(c, manager.Options{Controllers: []string{"replicaset"}, Elector: e})
		require.NoError(t, err)
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		time.Sleep(2 * time.Second)
		synctest.Wait()
		require.True(t, m.Leading())
		require.Equal(t, 2, e.granted())
		_, err = c.ReplicaSets().Create(ctx, replicaSet(2))
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()
		pods, err := c.Pods().List(ctx, source.ListOptions{})
		require.NoError(t, err)
		require.Len(t, pods.Items, 2)
		cancel()
		require.NoError(t, <-done)
	})
}
