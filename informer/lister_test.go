package informer_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
)

type nsObj struct {
	NS, Name string
	Tier     string
}

func nsKey(o *nsObj) string { return o.NS + "/" + o.Name }

// Issue 14.5: the namespaced view of client-go's generated listers.
func TestNamespaceLister(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		src, err := fake.NewSource(nsKey, fake.Options[*nsObj]{})
		require.NoError(t, err)
		for _, o := range []*nsObj{
			{"default", "a", "web"}, {"default", "b", "db"}, {"default-x", "c", "web"}, {"kube-system", "d", "web"},
		} {
			_, err := src.Create(ctx, o)
			require.NoError(t, err)
		}
		inf, err := informer.New(src, nsKey, informer.Options[*nsObj]{})
		require.NoError(t, err)
		go func() { _ = inf.Run(ctx) }()
		synctest.Wait()

		def := inf.Lister().Namespace("default")
		got, ok := def.Get("a")
		require.True(t, ok)
		require.Equal(t, "web", got.Tier)
		_, ok = def.Get("c")
		require.False(t, ok, "c is in default-x, not default")
		names := func(objs []*nsObj) (out []string) {
			for _, o := range objs {
				out = append(out, o.Name)
			}
			return out
		}
		require.Equal(t, []string{"a", "b"}, names(def.List(nil)), "a prefix of another namespace is not this one")
		require.Equal(t, []string{"a"}, names(def.List(func(o *nsObj) bool { return o.Tier == "web" })))
		all := inf.Lister().Namespace("")
		require.Len(t, all.List(nil), 4)
		_, ok = all.Get("kube-system/d")
		require.True(t, ok)
		require.Empty(t, inf.Lister().Namespace("nope").List(nil))
	})
}
