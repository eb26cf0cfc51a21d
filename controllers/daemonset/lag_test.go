package daemonset_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/daemonset"
	"github.com/ctrlkit/ctrlkit/source"
)

// laggingLW delays every watch event by lag.
type laggingLW struct {
	inner *cluster.Store[*api.Pod]
	lag   time.Duration
}

func (l *laggingLW) List(ctx context.Context, opts source.ListOptions) (source.List[*api.Pod], error) {
	return l.inner.List(ctx, opts)
}

func (l *laggingLW) CompareResourceVersions(a, b string) (int, error) {
	return l.inner.CompareResourceVersions(a, b)
}

func (l *laggingLW) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*api.Pod], error) {
	ctx, cancel := context.WithCancel(ctx)
	in, err := l.inner.Watch(ctx, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	type timed struct {
		ev source.Event[*api.Pod]
		at time.Time
	}
	buf := make(chan timed, 4096)
	out := make(chan source.Event[*api.Pod])
	go func() {
		defer close(buf)
		for ev := range in {
			select {
			case buf <- timed{ev, time.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		defer close(out)
		defer cancel()
		for te := range buf {
			select {
			case <-time.After(time.Until(te.at.Add(l.lag))):
			case <-ctx.Done():
				return
			}
			select {
			case out <- te.ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// Never twice: with the controller's pod cache 10 s behind the store,
// the syncs that its own writes and the nodes' heartbeats trigger
// neither create a second pod for a node nor delete one — the
// expectations and the read-your-writes gate hold them until the cache
// shows the pods they made.
func TestLaggingCacheNeverTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startLagging(t, 10*time.Second)
		for i := range 20 {
			_, err := e.c.Nodes().Create(e.ctx, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("node-%02d", i)}})
			require.NoError(t, err)
		}
		_, err := e.c.CreateObject(e.ctx, logDaemon(nil))
		require.NoError(t, err)
		for range 6 {
			e.settle(5 * time.Second)
			// Poke the set: every update enqueues it.
			ds, rv, err := e.c.DaemonSets().Get(e.ctx, "default/log")
			require.NoError(t, err)
			ds.Annotations = map[string]string{"poke": time.Now().String()}
			_, err = e.c.DaemonSets().Update(e.ctx, ds, rv)
			require.NoError(t, err)
		}
		e.settle(time.Minute)
		require.Len(t, e.pods(), 20)
		perNode := map[string]int{}
		for _, p := range e.pods() {
			n := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields[0].Values[0]
			perNode[n]++
		}
		require.Len(t, perNode, 20)
		for _, ev := range e.rec.Events() {
			require.NotEqual(t, daemonset.ReasonSuccessfulDelete, ev.Reason, "nothing was deleted")
		}
		ds, _, err := e.c.DaemonSets().Get(e.ctx, "default/log")
		require.NoError(t, err)
		require.EqualValues(t, 20, ds.Status.CurrentNumberScheduled)
	})
}
