package informer

import (
	"context"
	"log/slog"
	"maps"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
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

// TestSharedRejectsConflictingOptions: a later caller whose options the
// shared informer would not honour gets ErrOptionsConflict, not an
// informer that silently ignores them; options that only shape the one
// informer's list, watch and logs do not conflict.
func TestSharedRejectsConflictingOptions(t *testing.T) {
	src := newSource(t)
	f := NewFactory(FactoryOptions{Logger: quiet})
	defer f.Shutdown()
	first, err := Shared(f, "objs", src, keyOf, Options[*obj]{
		Logger:       quiet,
		ResyncPeriod: time.Minute,
		Indexers:     indexer.Indexers[*obj]{"node": byNode, "val": byVal},
		Transform:    func(o *obj) (*obj, error) { return o, nil },
	})
	require.NoError(t, err)
	same := Options[*obj]{
		ResyncPeriod: time.Minute,
		Indexers:     indexer.Indexers[*obj]{"node": byNode},
		Transform:    func(o *obj) (*obj, error) { return o, nil },
	}
	for name, tc := range map[string]struct {
		change   func(o *Options[*obj])
		conflict string
	}{
		"same":            {change: func(*Options[*obj]) {}},
		"other logger":    {change: func(o *Options[*obj]) { o.Logger = slog.Default() }},
		"other page size": {change: func(o *Options[*obj]) { o.PageSize = 10; o.UseWatchList = true }},
		"other name":      {change: func(o *Options[*obj]) { o.Name = "mine" }},
		"fewer indexers":  {change: func(o *Options[*obj]) { o.Indexers = nil }},
		"other resync":    {change: func(o *Options[*obj]) { o.ResyncPeriod = 0 }, conflict: "ResyncPeriod 0s, informer has 1m0s"},
		"missing indexer": {change: func(o *Options[*obj]) { o.Indexers["zone"] = byNode }, conflict: `Indexers ["zone"] missing`},
		"no transform":    {change: func(o *Options[*obj]) { o.Transform = nil }, conflict: "Transform set false, informer's set true"},
		"on bad object":   {change: func(o *Options[*obj]) { o.OnBadObject = func(error) {} }, conflict: "OnBadObject"},
		"watch errors":    {change: func(o *Options[*obj]) { o.WatchErrorHandler = func(error) {} }, conflict: "WatchErrorHandler"},
		"mutation check":  {change: func(o *Options[*obj]) { o.MutationCheck = &MutationCheck[*obj]{} }, conflict: "MutationCheck"},
		"several at once": {change: func(o *Options[*obj]) { o.ResyncPeriod = time.Second; o.Transform = nil }, conflict: "ResyncPeriod 1s, informer has 1m0s; Transform set false"},
	} {
		t.Run(name, func(t *testing.T) {
			opts := same
			opts.Indexers = maps.Clone(same.Indexers)
			tc.change(&opts)
			got, err := Shared(f, "objs", src, keyOf, opts)
			if tc.conflict == "" {
				require.NoError(t, err)
				require.Same(t, first, got)
				return
			}
			require.ErrorIs(t, err, ErrOptionsConflict)
			require.ErrorContains(t, err, tc.conflict)
			require.Nil(t, got)
		})
	}
}

func byVal(o *obj) ([]string, error) { return []string{strconv.Itoa(o.Val)}, nil }

// AddIndexers on a running shared informer indexes what it already
// caches and what comes after; the name taken yields ErrIndexExists, and a
// later Shared call asking for the added index is not a conflict.
func TestAddIndexersWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newSource(t)
		create(t, src, "a", 1)
		create(t, src, "b", 2)
		f := NewFactory(FactoryOptions{Logger: quiet})
		defer f.Shutdown()
		inf, err := Shared(f, "objs", src, keyOf, Options[*obj]{Logger: quiet})
		require.NoError(t, err)
		ctx := context.Background()
		f.Start(ctx)
		require.True(t, f.WaitForCacheSync(ctx))

		_, err = inf.Lister().ByIndex("val", "1")
		require.ErrorIs(t, err, indexer.ErrUnknownIndex)
		require.NoError(t, inf.AddIndexers(indexer.Indexers[*obj]{"val": byVal}))
		got, err := inf.Lister().ByIndex("val", "2")
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, "b", got[0].Key)

		create(t, src, "c", 2)
		require.NoError(t, inf.WaitForLatest(ctx))
		keys, err := inf.Lister().IndexKeys("val", "2")
		require.NoError(t, err)
		require.Equal(t, []string{"b", "c"}, keys)

		require.ErrorIs(t, inf.AddIndexers(indexer.Indexers[*obj]{"val": byVal}), indexer.ErrIndexExists)
		again, err := Shared(f, "objs", src, keyOf, Options[*obj]{Indexers: indexer.Indexers[*obj]{"val": byVal}})
		require.NoError(t, err, "an index added since is the informer's")
		require.Same(t, inf, again)
		_, err = Shared(f, "objs", src, keyOf, Options[*obj]{Indexers: indexer.Indexers[*obj]{"node": byNode}})
		require.ErrorIs(t, err, ErrOptionsConflict)
	})
}
