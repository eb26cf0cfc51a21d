package controlplane_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/controlplane"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/leader"
	"github.com/ctrlkit/ctrlkit/source"
)

// sharedBackend keeps every resource in one fake.Source of raw objects,
// the same for every cluster opened over it (two replicas of a control
// plane over one store), and lets a test inject faults into it.
type sharedBackend struct {
	mu      sync.Mutex
	sources map[string]*fake.Source[*cluster.RawObject]
}

func (b *sharedBackend) Open(r cluster.Resource) (cluster.RawStorage, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.sources[r.Name]; ok {
		return s, nil
	}
	s, err := fake.NewSource(func(o *cluster.RawObject) string { return o.Key }, fake.Options[*cluster.RawObject]{
		Copy: func(o *cluster.RawObject) *cluster.RawObject { c := *o; return &c },
	})
	if err != nil {
		return nil, err
	}
	if b.sources == nil {
		b.sources = map[string]*fake.Source[*cluster.RawObject]{}
	}
	b.sources[r.Name] = s
	return s, nil
}

func (b *sharedBackend) source(resource string) *fake.Source[*cluster.RawObject] {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sources[resource]
}

// faultingElector is a leader.Memory whose first term comes with
// injected List failures, just before the new leader's catch-up.
type faultingElector struct {
	*leader.Memory
	inject func()
	mu     sync.Mutex
	terms  int
}

func (e *faultingElector) Campaign(ctx context.Context) (leader.Term, error) {
	t, err := e.Memory.Campaign(ctx)
	if err != nil {
		return t, err
	}
	e.mu.Lock()
	e.terms++
	first := e.terms == 1
	e.mu.Unlock()
	if first {
		e.inject()
	}
	return t, nil
}

func (e *faultingElector) granted() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.terms
}

// A control plane and a standby replica (ManagerOnly) over one store and
// one election. The leader is deposed in the middle of a rollout, and
// the standby's catch-up fails as it takes over (one List or several in
// a row, of one resource). The standby resigns, campaigns again and
// leads; the rollout completes with the surge and fit invariants holding
// at every write; Settle, on either replica, returns only then. Over
// seeds: how many Lists fail, of which resource, and when the leader is
// deposed.
func TestHandoverWithFailingCatchUp(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 28))
		failures := 1 + rng.IntN(4)
		resource := []string{"replicasets", "pods", "deployments"}[rng.IntN(3)]
		after := time.Duration(1+rng.IntN(4)) * time.Second
		t.Run(fmt.Sprintf("seed=%d/failures=%d/%s/after=%v", seed, failures, resource, after), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				var mu sync.Mutex
				var broken []controlplane.Violation
				invariants := func() []controlplane.Invariant {
					surge, fit := controlplane.DeploymentSurge(), controlplane.NodeNotOvercommitted()
					fail := func(v controlplane.Violation) { mu.Lock(); broken = append(broken, v); mu.Unlock() }
					surge.OnViolation, fit.OnViolation = fail, fail
					return []controlplane.Invariant{surge, fit}
				}
				b := &sharedBackend{}
				memory := leader.NewMemory()
				cp, err := controlplane.Start(ctx, controlplane.Options{Nodes: 2, Cluster: cluster.Options{Backend: b},
					Manager: manager.Options{Elector: memory}, Invariants: invariants()})
				require.NoError(t, err)
				require.NoError(t, cp.Apply(ctx, webDeployment(4)))
				require.NoError(t, cp.Settle(ctx, 0))
				synctest.Wait()
				require.True(t, cp.Manager.Leading())

				e := &faultingElector{Memory: memory, inject: func() { b.source(resource).FailLists(failures, nil) }}
				standby, err := controlplane.Start(ctx, controlplane.Options{ManagerOnly: true, Cluster: cluster.Options{Backend: b},
					Manager: manager.Options{Elector: e}, Invariants: invariants()})
				require.NoError(t, err)
				time.Sleep(time.Second)
				synctest.Wait()
				require.True(t, standby.Manager.Synced())
				require.False(t, standby.Manager.Leading())

				d, _, err := cp.Cluster.Deployments().Get(ctx, "default/web")
				require.NoError(t, err)
				d = d.DeepCopy()
				d.Spec.Template.Spec.Containers[0].Image = "nginx:1.28"
				_, err = cp.Cluster.Deployments().Update(ctx, d, "")
				require.NoError(t, err)
				time.Sleep(after) // the rollout is under way
				synctest.Wait()
				require.True(t, memory.Depose())
				synctest.Wait()
				require.False(t, cp.Manager.Leading())

				// Settle, on the replica that lost leadership and on the
				// one that has it, returns once the rollout is done.
				sctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
				defer cancel()
				require.NoError(t, cp.Settle(sctx, 0), "the deposed replica settles")
				require.NoError(t, standby.Settle(sctx, 0), "the standby settles")
				synctest.Wait()
				require.True(t, standby.Manager.Leading())
				// The first catch-up fails; Settle's own Lists may take some
				// of the later failures (and retry).
				require.GreaterOrEqual(t, e.granted(), 2, "the first catch-up failed, and leadership was taken again")
				require.LessOrEqual(t, e.granted(), failures+1)
				l, err := cp.Cluster.Pods().List(ctx, source.ListOptions{})
				require.NoError(t, err)
				require.Len(t, l.Items, 4)
				for _, p := range l.Items {
					require.Equal(t, "nginx:1.28", p.Spec.Containers[0].Image)
					require.True(t, api.IsPodReady(p))
				}
				d, _, err = cp.Cluster.Deployments().Get(ctx, "default/web")
				require.NoError(t, err)
				require.EqualValues(t, 4, d.Status.UpdatedReplicas)
				require.EqualValues(t, 4, d.Status.AvailableReplicas)

				require.NoError(t, standby.Stop())
				require.ErrorIs(t, cp.Stop(), manager.ErrLeadershipLost, "the deposed manager ends as kcm does")
				mu.Lock()
				defer mu.Unlock()
				require.Empty(t, broken)
			})
		})
	}
}
