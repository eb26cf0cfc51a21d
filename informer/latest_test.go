package informer

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"
)

// WaitForLatest returns only once the cache holds every write the source
// had made when it was called, for one informer and for a factory's.
func TestWaitForLatest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		src := newSource(t)
		f := NewFactory(FactoryOptions{Logger: quiet})
		inf, err := Shared(f, "objs", src, keyOf, Options[*obj]{Logger: quiet})
		require.NoError(t, err)
		f.Start(ctx)
		defer f.Shutdown()
		require.True(t, f.WaitForCacheSync(ctx))
		for round := range 3 {
			for i := range 50 {
				_, err := src.Create(ctx, &obj{Key: fmt.Sprintf("r%d-%d", round, i)})
				require.NoError(t, err)
			}
			if round%2 == 0 {
				require.NoError(t, inf.WaitForLatest(ctx))
			} else {
				require.NoError(t, f.WaitForLatest(ctx))
			}
			require.Len(t, inf.Lister().List(nil), 50*(round+1), "no synctest.Wait: the wait alone guarantees it")
		}
		var nilCtx context.Context
		require.ErrorIs(t, inf.WaitForLatest(nilCtx), ErrNilContext)
	})
}
