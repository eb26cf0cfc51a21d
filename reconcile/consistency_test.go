package reconcile_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/source"
)

var _ reconcile.Cache = (*informer.Informer[*obj])(nil)

// laggingLW relays a source's watch events only once released: the
// informer over it lags behind the source's writes until then.
type laggingLW struct {
	src     *fake.Source[*obj]
	release chan struct{}
}

func (l *laggingLW) List(ctx context.Context, opts source.ListOptions) (source.List[*obj], error) {
	return l.src.List(ctx, opts)
}

func (l *laggingLW) CompareResourceVersions(a, b string) (int, error) {
	return l.src.CompareResourceVersions(a, b)
}

func (l *laggingLW) Watch(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[*obj], error) {
	up, err := l.src.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan source.Event[*obj])
	go func() {
		defer close(out)
		for ev := range up {
			select {
			case <-l.release:
			case <-ctx.Done():
				return
			}
			select {
			case out <- ev:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

func TestConsistencyGateDelaysReconcileUntilTheCacheHasTheWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		lw := &laggingLW{src: src, release: make(chan struct{})}
		inf := newInformer(t, lw, informer.Options[*obj]{})
		gate, err := reconcile.NewConsistency[string](inf, src)
		require.NoError(t, err)

		var mu sync.Mutex
		var log callLog
		var sawChild []bool // whether each reconcile found its child in the cache
		var ctl *reconcile.Controller[string]
		r := reconcile.Func[string](func(ctx context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			_, found := inf.Lister().Get(req + "-child")
			mu.Lock()
			sawChild = append(sawChild, found)
			mu.Unlock()
			if found {
				return reconcile.Result{}, nil
			}
			rv, err := src.Create(ctx, &obj{Name: req + "-child", Owner: req})
			if err != nil {
				return reconcile.Result{}, err
			}
			if err := gate.WroteAt(req, rv); err != nil {
				return reconcile.Result{}, err
			}
			ctl.Enqueue(req) // as the child's event would
			return reconcile.Result{}, nil
		})
		m := newMetricsRec()
		ctl, err = reconcile.New("gated", r, reconcile.Options[string]{
			Logger:      quiet,
			Metrics:     m,
			Consistency: []*reconcile.Consistency[string]{gate},
		})
		require.NoError(t, err)
		require.NoError(t, ctl.AddSyncCheck(inf.HasSynced))
		stopInf := runInformer(inf)
		log.reset()
		stop := running(ctl)
		ctl.Enqueue("owner")

		time.Sleep(3 * time.Second)
		synctest.Wait()
		require.Len(t, log.requests(), 1, "the second reconcile waits for the cache")
		rv, ok := gate.Pending("owner")
		require.True(t, ok)
		require.Equal(t, "1", rv)
		deferred := m.count(`reconcile_total{result="requeue"}`)
		require.Greater(t, deferred, 3, "deferred repeatedly, with backoff")
		require.Less(t, deferred, 20, "the backoff grows")
		require.Positive(t, ctl.Queue().NumRequeues("owner"))

		close(lw.release)
		time.Sleep(time.Minute)
		synctest.Wait()
		require.Len(t, log.requests(), 2)
		require.Greater(t, log.times()[1], 3*time.Second)
		require.Equal(t, []bool{false, true}, sawChild, "the second reconcile read its write")
		require.Zero(t, gate.Len(), "the record is cleared once the cache caught up")
		require.Zero(t, ctl.Queue().NumRequeues("owner"), "success forgets the backoff")
		require.Equal(t, 2, m.count(`reconcile_total{result="success"}`))
		require.NoError(t, ignoreCanceled(stop()))
		stopInf()
	})
}

// versionFunc is a Cache for the tests of the gate's edge cases.
type versionFunc func(ctx context.Context, rv string) error

func (f versionFunc) WaitForResourceVersion(ctx context.Context, rv string) error { return f(ctx, rv) }

func TestConsistencyRecords(t *testing.T) {
	src := newSource(t)
	cache := versionFunc(func(context.Context, string) error { return nil })
	_, err := reconcile.NewConsistency[string](nil, src)
	require.ErrorContains(t, err, "cache is nil")
	_, err = reconcile.NewConsistency[string](cache, nil)
	require.ErrorContains(t, err, "comparer is nil")

	g, err := reconcile.NewConsistency[string](cache, src)
	require.NoError(t, err)
	require.ErrorContains(t, g.WroteAt("a", ""), "resourceVersion is empty")
	require.ErrorContains(t, g.WroteAt("a", "x1"), "reconcile: Consistency.WroteAt")
	require.Zero(t, g.Len())

	// Concurrent writes may be recorded out of order: the newest counts.
	require.NoError(t, g.WroteAt("a", "12"))
	require.NoError(t, g.WroteAt("a", "9"))
	rv, ok := g.Pending("a")
	require.True(t, ok)
	require.Equal(t, "12", rv)
	require.NoError(t, g.WroteAt("a", "100"))
	rv, _ = g.Pending("a")
	require.Equal(t, "100", rv)
	require.NoError(t, g.WroteAt("b", "3"))
	require.Equal(t, 2, g.Len())
	g.Forget("a")
	_, ok = g.Pending("a")
	require.False(t, ok)
	require.Equal(t, 1, g.Len())
}

func TestConsistencyCacheThatCannotAnswerLetsReconcilesThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		unsupported := versionFunc(func(context.Context, string) error {
			return fmt.Errorf("informer: WaitForResourceVersion: %w", source.ErrUnsupported)
		})
		gate, err := reconcile.NewConsistency[string](unsupported, src)
		require.NoError(t, err)
		require.NoError(t, gate.WroteAt("a", "5"))
		var logs logBuffer
		calls := 0
		r := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) {
			calls++
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("unsupported", r, reconcile.Options[string]{
			Logger:      logs.logger(),
			Consistency: []*reconcile.Consistency[string]{gate},
		})
		require.NoError(t, err)
		ctl.Enqueue("a")
		stop := running(ctl)
		synctest.Wait()
		require.Equal(t, 1, calls)
		require.Zero(t, gate.Len())
		require.Contains(t, logs.String(), "consistency check failed")
		require.Contains(t, logs.String(), source.ErrUnsupported.Error())
		require.NoError(t, ignoreCanceled(stop()))
	})
}

func TestTerminal(t *testing.T) {
	require.NoError(t, reconcile.Terminal(nil))
	err := fmt.Errorf("reconcile default/web: %w", reconcile.Terminal(errBadSpec))
	require.ErrorIs(t, err, reconcile.ErrTerminal)
	require.ErrorIs(t, err, errBadSpec)
	require.Equal(t, "reconcile default/web: terminal error: spec.replicas is negative", err.Error())
	var pe *fakePathError
	require.ErrorAs(t, fmt.Errorf("wrap: %w", reconcile.Terminal(&fakePathError{"p"})), &pe)
	require.Equal(t, "p", pe.path)
	require.NotErrorIs(t, errBadSpec, reconcile.ErrTerminal)
	require.NotErrorIs(t, errors.New("terminal error"), reconcile.ErrTerminal)
	require.True(t, reconcile.Result{}.IsZero())
	require.False(t, reconcile.Result{RequeueAfter: 1}.IsZero())
}

type fakePathError struct{ path string }

func (e *fakePathError) Error() string { return "bad path " + e.path }
