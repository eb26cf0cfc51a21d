package deltafifo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// PopKey hands out the key each entry is filed under: the key func's for
// objects handed in, KnownObjects' for inferred deletes and Syncs.
func TestPopKeyHandsOutTheKey(t *testing.T) {
	known := newStore(o("gone", 1), o("kept", 1))
	f := newFIFO(t, Options[*obj]{KnownObjects: known})
	require.NoError(t, f.Add(o("a", 1), "1"))
	require.NoError(t, f.Update(o("a", 2), "2"))
	require.NoError(t, f.Replace([]*obj{o("a", 3), o("kept", 2)}, "3"))
	type popped struct {
		key   string
		types []DeltaType
	}
	var got []popped
	for f.Len() > 0 {
		require.NoError(t, f.PopKey(context.Background(), func(key string, ds Deltas[*obj], _ bool) error {
			p := popped{key: key}
			for _, d := range ds {
				require.Equal(t, key, keyOf(d.Object), "every delta's object is filed under the key")
				p.types = append(p.types, d.Type)
			}
			got = append(got, p)
			return nil
		}))
	}
	require.Equal(t, []popped{
		{"a", []DeltaType{Added, Updated, Replaced}},
		{"kept", []DeltaType{Replaced}},
		{"gone", []DeltaType{Deleted}},
	}, got)

	require.NoError(t, f.Resync())
	require.NoError(t, f.PopKey(context.Background(), func(key string, ds Deltas[*obj], _ bool) error {
		require.Len(t, ds, 1)
		require.Equal(t, Sync, ds[0].Type)
		require.Equal(t, keyOf(ds[0].Object), key)
		return nil
	}))
}

func TestPopKeyRejectsNilArguments(t *testing.T) {
	f := newFIFO(t, Options[*obj]{})
	var nilCtx context.Context
	require.ErrorIs(t, f.PopKey(nilCtx, func(string, Deltas[*obj], bool) error { return nil }), ErrNilContext)
	require.Error(t, f.PopKey(context.Background(), nil))
	require.Error(t, f.Pop(context.Background(), nil))
}
