package reconcile_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/stretchr/testify/require"
)

var _ reconcile.EventSource[*obj] = (*informer.Informer[*obj])(nil)

func TestNoWorkerStartsBeforeSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, &obj{Name: "x"}, &obj{Name: "y"})
		src.DelayLists(5 * time.Second)
		inf := newInformer(t, src, informer.Options[*obj]{})
		var log callLog
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("sync", r, reconcile.Options[string]{Workers: 4, Logger: quiet})
		require.NoError(t, err)
		reg, err := reconcile.Watch(ctl, inf, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
		require.NoError(t, err)
		ctl.Enqueue("manual") // queued before Run: waits for the sync too

		log.reset()
		stopInf := runInformer(inf)
		stop := running(ctl)
		time.Sleep(5*time.Second - time.Nanosecond)
		synctest.Wait()
		require.False(t, reg.HasSynced())
		require.Empty(t, log.requests(), "no worker before the registration synced")

		time.Sleep(time.Second)
		synctest.Wait()
		require.True(t, reg.HasSynced())
		require.ElementsMatch(t, []string{"manual", "x", "y"}, log.requests())
		for _, at := range log.times() {
			require.GreaterOrEqual(t, at, 5*time.Second)
		}
		require.NoError(t, ignoreCanceled(stop()))
		stopInf()
	})
}

func TestCacheSyncTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t, &obj{Name: "x"})
		src.DelayLists(time.Hour)
		inf := newInformer(t, src, informer.Options[*obj]{})
		called := false
		r := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) {
			called = true
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("slow-cache", r, reconcile.Options[string]{CacheSyncTimeout: time.Minute, Logger: quiet})
		require.NoError(t, err)
		_, err = reconcile.Watch(ctl, inf, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
		require.NoError(t, err)
		require.NoError(t, ctl.AddSyncCheck(func() bool { return true }))
		ctl.Enqueue("manual")
		stopInf := runInformer(inf)

		start := time.Now()
		err = ctl.Run(context.Background())
		require.ErrorIs(t, err, reconcile.ErrCacheSyncTimeout)
		require.ErrorContains(t, err, `controller "slow-cache": 1 of 2 caches not synced after 1m0s`)
		require.Equal(t, time.Minute, time.Since(start))
		synctest.Wait()
		require.False(t, called)
		stopInf()
	})
}

func TestRunCancelledWhileWaitingForSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) { return reconcile.Result{}, nil })
		ctl, err := reconcile.New("cancelled", r, reconcile.Options[string]{Logger: quiet})
		require.NoError(t, err)
		require.NoError(t, ctl.AddSyncCheck(func() bool { return false }))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		require.ErrorIs(t, ctl.Run(ctx), context.DeadlineExceeded)
	})
}

func TestInitialEventsYieldToLiveOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const initial = 20
		var objs []*obj
		for i := range initial {
			objs = append(objs, &obj{Name: fmt.Sprintf("init-%02d", i)})
		}
		src := newSource(t, objs...)
		inf := newInformer(t, src, informer.Options[*obj]{})
		release := make(chan struct{})
		var once sync.Once
		var log callLog
		r := reconcile.Func[string](func(_ context.Context, req string) (reconcile.Result, error) {
			log.add(req)
			once.Do(func() { <-release }) // hold the only worker on the first request
			return reconcile.Result{}, nil
		})
		ctl, err := reconcile.New("priority", r, reconcile.Options[string]{Workers: 1, Logger: quiet})
		require.NoError(t, err)
		_, err = reconcile.Watch(ctl, inf, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
		require.NoError(t, err)
		stopInf := runInformer(inf)
		stop := running(ctl)
		time.Sleep(time.Second) // Run polls the registration's HasSynced
		synctest.Wait()
		require.Len(t, log.requests(), 1, "the worker holds the first initial request")

		ctx := context.Background()
		_, err = src.Create(ctx, &obj{Name: "live"})
		require.NoError(t, err)
		_, rv, err := src.Get(ctx, "init-15")
		require.NoError(t, err)
		_, err = src.Update(ctx, &obj{Name: "init-15", Val: 1}, rv)
		require.NoError(t, err)
		synctest.Wait() // the informer has enqueued both at the default priority
		close(release)
		synctest.Wait()

		got := log.requests()
		require.Len(t, got, initial+1, "the update of a pending initial request did not duplicate it")
		require.Equal(t, []string{"live", "init-15"}, got[1:3], "live changes overtook the initial list")
		require.NoError(t, ignoreCanceled(stop()))
		stopInf()
	})
}

func TestWatchValidation(t *testing.T) {
	r := reconcile.Func[string](func(context.Context, string) (reconcile.Result, error) { return reconcile.Result{}, nil })
	ctl, err := reconcile.New("v", r, reconcile.Options[string]{Logger: quiet})
	require.NoError(t, err)
	src := newSource(t)
	inf := newInformer(t, src, informer.Options[*obj]{})

	_, err = reconcile.Watch[*obj, string](nil, inf, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
	require.ErrorContains(t, err, "controller is nil")
	_, err = reconcile.Watch[*obj](ctl, nil, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
	require.ErrorContains(t, err, "event source is nil")
	_, err = reconcile.Watch(ctl, inf, nil, reconcile.WatchOptions{})
	require.ErrorContains(t, err, "map function is nil")

	// A stopped informer refuses the registration.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, inf.Run(ctx), context.Canceled)
	_, err = reconcile.Watch(ctl, inf, reconcile.ByKey(keyOf), reconcile.WatchOptions{})
	require.ErrorIs(t, err, informer.ErrStopped)
	require.ErrorContains(t, err, `reconcile: Watch (controller "v")`)
}

func TestByOwner(t *testing.T) {
	shared := []string{"", "rs-a", "", "rs-b"}
	m := reconcile.ByOwner(func(o *obj) []string { return shared })
	require.Equal(t, []string{"rs-a", "rs-b"}, m(&obj{}))
	require.Equal(t, []string{"", "rs-a", "", "rs-b"}, shared, "the owners' slice is not modified")
	none := reconcile.ByOwner(func(o *obj) []string { return nil })
	require.Empty(t, none(&obj{}))
	require.Equal(t, []string{"x"}, reconcile.ByKey(keyOf)(&obj{Name: "x"}))
}
