package reconcile_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

type nilReconciler struct{}

func (*nilReconciler) Reconcile(context.Context, string) (reconcile.Result, error) {
	return reconcile.Result{}, nil
}

// TestBadInputIsAnError: a nil context and typed-nil interface arguments
// are errors, never panics.
func TestBadInputIsAnError(t *testing.T) {
	ok := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) { return reconcile.Result{}, nil })
	ctl, err := reconcile.New("bad", ok, reconcile.Options[string]{Logger: quiet})
	require.NoError(t, err)

	t.Run("nil context in Run", func(t *testing.T) {
		//nolint:staticcheck // a nil context is the mistake under test
		require.EqualError(t, ctl.Run(nil), `reconcile: controller "bad": Run: context is nil`)
		require.False(t, ctl.Queue().ShuttingDown(), "Run did nothing")
	})
	t.Run("typed-nil informer in Watch", func(t *testing.T) {
		var inf *informer.Informer[*obj]
		_, err := reconcile.Watch(ctl, reconcile.EventSource[*obj](inf), reconcile.ByKey(keyOf), reconcile.WatchOptions{})
		require.EqualError(t, err, `reconcile: Watch (controller "bad"): event source is nil`)
	})
	t.Run("typed-nil reconciler", func(t *testing.T) {
		var r *nilReconciler
		_, err := reconcile.New[string]("bad", r, reconcile.Options[string]{})
		require.EqualError(t, err, `reconcile: New "bad": reconciler is nil`)
		var f reconcile.Func[string]
		_, err = reconcile.New[string]("bad", f, reconcile.Options[string]{})
		require.EqualError(t, err, `reconcile: New "bad": reconciler is nil`)
	})
	t.Run("typed-nil options", func(t *testing.T) {
		var rl *nilLimiter
		var m *metricsRec
		var qm *nilQueueMetrics
		_, err := reconcile.New("bad", ok, reconcile.Options[string]{RateLimiter: rl, Metrics: m, QueueMetrics: qm})
		require.ErrorContains(t, err, "reconcile: Options.RateLimiter holds a nil pointer")
		require.ErrorContains(t, err, "reconcile: Options.Metrics holds a nil pointer")
		require.ErrorContains(t, err, "reconcile: Options.QueueMetrics holds a nil pointer")
	})
	t.Run("typed-nil consistency arguments", func(t *testing.T) {
		var inf *informer.Informer[*obj]
		src := newSource(t)
		_, err := reconcile.NewConsistency[string](inf, src)
		require.EqualError(t, err, "reconcile: NewConsistency: cache is nil")
		inf2 := newInformer(t, src, informer.Options[*obj]{})
		_, err = reconcile.NewConsistency[string](inf2, (*nilComparer)(nil))
		require.EqualError(t, err, "reconcile: NewConsistency: comparer is nil")
	})
}

type nilLimiter struct{ workqueue.RateLimiter[string] }

type nilQueueMetrics struct{ workqueue.MetricsProvider }

type nilComparer struct{}

func (*nilComparer) CompareResourceVersions(a, b string) (int, error) { return 0, nil }
