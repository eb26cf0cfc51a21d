package manager_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/manager"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// counter is a metrics.Counter, Gauge and Histogram that counts calls.
type counter struct{ n atomic.Int64 }

func (c *counter) Inc()            { c.n.Add(1) }
func (c *counter) Set(float64)     { c.n.Add(1) }
func (c *counter) Observe(float64) { c.n.Add(1) }

// provider hands out counters per name, for both interfaces.
type provider struct {
	mu         sync.Mutex
	adds, done map[string]*counter
	success    map[string]*counter
}

func (p *provider) QueueMetrics(name string, _ func() workqueue.InFlight) workqueue.QueueMetrics {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.adds[name], p.done[name] = new(counter), new(counter)
	return workqueue.QueueMetrics{Adds: p.adds[name], WorkDuration: p.done[name]}
}

func (p *provider) ControllerMetrics(name string) reconcile.Metrics {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.success[name] = new(counter)
	return reconcile.Metrics{TotalSuccess: p.success[name]}
}

// The manager counts each controller's queue for Stats and passes the
// instruments on to the providers given.
func TestStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		c, err := cluster.New(ctx, cluster.Options{})
		require.NoError(t, err)
		p := &provider{adds: map[string]*counter{}, done: map[string]*counter{}, success: map[string]*counter{}}
		m, err := manager.New(c, manager.Options{Controllers: []string{"replicaset", "podgc"}, ReconcileMetrics: p, QueueMetrics: p})
		require.NoError(t, err)
		var wg sync.WaitGroup
		defer wg.Wait()
		defer cancel()
		wg.Go(func() { _ = m.Run(ctx) })
		time.Sleep(time.Second)
		synctest.Wait()
		_, err = c.ReplicaSets().Create(ctx, replicaSet(2))
		require.NoError(t, err)
		time.Sleep(time.Second)
		synctest.Wait()

		st := m.Stats()
		require.Len(t, st, 2)
		require.Equal(t, manager.ReplicaSetController, st[0].Name)
		require.Zero(t, st[0].Depth, "the queue is drained")
		require.GreaterOrEqual(t, st[0].Processed, uint64(1))
		require.Equal(t, manager.Stats{Name: manager.PodGarbageCollectorController}, st[1], "podgc has no queue")

		p.mu.Lock()
		defer p.mu.Unlock()
		require.Len(t, p.adds, 1, "one queue: the replica set controller's")
		for name, done := range p.done {
			require.Equal(t, int64(st[0].Processed), done.n.Load(), "the user's WorkDuration saw every item (%s)", name)
			require.GreaterOrEqual(t, p.adds[name].n.Load(), int64(1))
		}
		require.Len(t, p.success, 1)
		for _, s := range p.success {
			require.GreaterOrEqual(t, s.n.Load(), int64(1))
		}
	})
}
