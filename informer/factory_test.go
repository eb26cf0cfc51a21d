package informer

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
)

type other struct{ Name string }

func TestFactorySharesAndShutsDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		f := NewFactory(FactoryOptions{Logger: quiet})
		opts := Options[*obj]{Logger: quiet}
		first, err := Shared(f, "objs", src, keyOf, opts)
		require.NoError(t, err)
		again, err := Shared(f, "objs", src, keyOf, opts)
		require.NoError(t, err)
		require.Same(t, first, again, "one informer per (name, type)")
		distinct, err := Shared(f, "objs-b", src, keyOf, opts)
		require.NoError(t, err)
		require.NotSame(t, first, distinct)

		otherSrc := newOtherSource(t)
		sameNameOtherType, err := Shared(f, "objs", otherSrc, func(o *other) string { return o.Name }, Options[*other]{Logger: quiet})
		require.NoError(t, err)
		require.NotNil(t, sameNameOtherType)

		_, err = Shared(f, "", src, keyOf, opts)
		require.Error(t, err)
		_, err = Shared[*obj](f, "bad", nil, keyOf, opts)
		require.ErrorContains(t, err, "ListWatcher is nil")

		ctx := context.Background()
		f.Start(ctx)
		require.True(t, f.WaitForCacheSync(ctx))
		require.True(t, first.HasSynced())
		require.True(t, distinct.HasSynced())
		f.Start(ctx) // nothing new to start: no second Run

		// An informer created after Start runs from the next Start.
		late, err := Shared(f, "late", src, keyOf, opts)
		require.NoError(t, err)
		synctest.Wait()
		require.False(t, late.HasSynced())
		f.Start(ctx)
		require.True(t, f.WaitForCacheSync(ctx))
		require.True(t, late.HasSynced())

		f.Shutdown()
		for _, inf := range []*Informer[*obj]{first, distinct, late} {
			select {
			case <-inf.Done():
			default:
				t.Fatal("Shutdown returned before an informer stopped")
			}
		}
		f.Shutdown() // idempotent
		_, err = Shared(f, "objs", src, keyOf, opts)
		require.ErrorIs(t, err, ErrStopped)
		f.Start(ctx) // does nothing after Shutdown
	})
}

func TestFactoryStartStopsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := NewFactory(FactoryOptions{})
		inf, err := Shared(f, "objs", newSource(t), keyOf, Options[*obj]{Logger: quiet})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		f.Start(ctx)
		require.True(t, f.WaitForCacheSync(ctx))
		cancel()
		<-inf.Done()
		ctx2, cancel2 := context.WithTimeout(context.Background(), time.Second)
		defer cancel2()
		require.True(t, f.WaitForCacheSync(ctx2), "a stopped informer stays synced")
		f.Shutdown()
	})
}

func newOtherSource(t *testing.T) *fake.Source[*other] {
	src, err := fake.NewSource(func(o *other) string { return o.Name }, fake.Options[*other]{Logger: quiet})
	require.NoError(t, err)
	return src
}
