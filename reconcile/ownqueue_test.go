package reconcile_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// WatchOptions.NoSyncWait: the workers start at once, before the
// watched informer has listed; its events still enqueue once it has.
func TestNoSyncWaitStartsWorkersBeforeTheList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, &obj{Name: "x"})
		src.DelayLists(5 * time.Second)
		inf := newInformer(t, src, informer.Options[*obj]{})
		var log callLog
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("eager", r, reconcile.Options[string]{Logger: quiet})
		require.NoError(t, err)
		reg, err := reconcile.Watch(ctl, inf, reconcile.ByKey(keyOf), reconcile.WatchOptions{NoSyncWait: true})
		require.NoError(t, err)
		ctl.Enqueue("manual")

		log.reset()
		stopInf := runInformer(inf)
		stop := running(ctl)
		synctest.Wait()
		require.False(t, reg.HasSynced())
		require.Equal(t, []string{"manual"}, log.requests(), "the worker ran before the list")
		require.Equal(t, []time.Duration{0}, log.times())

		time.Sleep(5 * time.Second)
		synctest.Wait()
		require.Equal(t, []string{"manual", "x"}, log.requests())
		require.NoError(t, ignoreCanceled(stop()))
		stopInf()
	})
}

// Options.Queue: the controller takes its requests from the queue it is
// given — here one with strict priorities, which a controller's own
// queue does not have (it ages) — and Run shuts it down.
func TestOptionsQueueIsTheControllersQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.New(workqueue.Options[string]{Name: "strict", AgingInterval: -1})
		var log callLog
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("own-queue", r, reconcile.Options[string]{Queue: q, Logger: quiet})
		require.NoError(t, err)
		require.Same(t, q, ctl.Queue())
		q.AddWithOptions("low", workqueue.AddOptions{Priority: 1})
		time.Sleep(time.Hour) // with aging, "low" would now outrank "high"
		q.AddWithOptions("high", workqueue.AddOptions{Priority: 100})

		log.reset()
		stop := running(ctl)
		synctest.Wait()
		require.Equal(t, []string{"high", "low"}, log.requests())
		require.NoError(t, ignoreCanceled(stop()))
		require.True(t, q.ShuttingDown(), "Run shut the queue down")

		_, err = reconcile.New("x", r, reconcile.Options[string]{Queue: q, RateLimiter: workqueue.DefaultControllerRateLimiter[string]()})
		require.ErrorContains(t, err, "reconcile: Options.RateLimiter and QueueMetrics are the Queue's own")
	})
}
