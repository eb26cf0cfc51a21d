package informer

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
)

// Informer.Resync gives every handler, periodic or not, OnUpdate(obj,
// obj) for each cached object; before Run and after it, nothing.
func TestResyncOnDemand(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		inf := newInformer(t, src, Options[*obj]{})
		require.Equal(t, 0, inf.Resync(), "not running yet")
		r1, r2 := &recorder{t: t}, &recorder{t: t}
		_, err := inf.AddEventHandler(r1, HandlerOptions{})
		require.NoError(t, err)
		_, err = inf.AddEventHandler(r2, HandlerOptions{})
		require.NoError(t, err)
		stop := start(t, inf)
		synctest.Wait()
		require.ElementsMatch(t, []string{"add a 1 true", "add b 2 true"}, r1.take())
		r2.take()

		require.Equal(t, 2, inf.Resync())
		synctest.Wait()
		want := []string{"update a 1->1", "update b 2->2"}
		require.ElementsMatch(t, want, r1.take())
		require.ElementsMatch(t, want, r2.take())

		stop()
		require.Equal(t, 0, inf.Resync(), "stopped")
	})
}

// Resyncs reaches the informers run under a context carrying it, a
// Factory's included, and only while they run.
func TestResyncsThroughContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		var rs Resyncs
		require.Equal(t, 0, rs.Resync())

		f := NewFactory(FactoryOptions{Logger: quiet})
		shared, err := Shared(f, "objs", src, keyOf, Options[*obj]{Logger: quiet})
		require.NoError(t, err)
		own := newInformer(t, src, Options[*obj]{})
		outside := newInformer(t, src, Options[*obj]{})
		recs := []*recorder{{t: t}, {t: t}, {t: t}}
		for i, inf := range []*Informer[*obj]{shared, own, outside} {
			_, err := inf.AddEventHandler(recs[i], HandlerOptions{})
			require.NoError(t, err)
		}
		ctx, cancel := context.WithCancel(WithResyncs(context.Background(), &rs))
		f.Start(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { _ = own.Run(ctx) })
		start(t, outside) // not under ctx
		synctest.Wait()
		for _, r := range recs {
			r.take()
		}

		require.Equal(t, 2, rs.Resync())
		synctest.Wait()
		require.Equal(t, []string{"update a 1->1"}, recs[0].take())
		require.Equal(t, []string{"update a 1->1"}, recs[1].take())
		require.Empty(t, recs[2].take(), "an informer not run under the context")

		require.Equal(t, 1, f.Resync())
		synctest.Wait()
		require.Equal(t, []string{"update a 1->1"}, recs[0].take())

		cancel()
		wg.Wait()
		f.Shutdown()
		require.Equal(t, 0, rs.Resync(), "informers unregister when Run returns")
	})
}
