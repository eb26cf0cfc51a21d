package indexer

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// UpsertKeyFunc and DeleteKey are UpsertFunc and Delete for a caller that
// holds the key: the same store and index changes, without the key func.
func TestUpsertKeyFuncAndDeleteKey(t *testing.T) {
	x := newTest(t, o("ns1", "a", 1, "x"))
	r, err := x.UpsertKeyFunc("ns1/a", o("ns1", "a", 2, "y"), func(old *obj, cached bool) bool {
		require.True(t, cached)
		require.Equal(t, 1, old.Ver)
		return true
	})
	require.NoError(t, err)
	require.True(t, r.Existed && r.Written)
	require.Equal(t, "ns1/a", r.Key)
	keys, err := x.IndexKeys("label", "y")
	require.NoError(t, err)
	require.Equal(t, []string{"ns1/a"}, keys)
	keys, err = x.IndexKeys("label", "x")
	require.NoError(t, err)
	require.Empty(t, keys)

	r, err = x.UpsertKeyFunc("ns2/b", o("ns2", "b", 1), func(*obj, bool) bool { return false })
	require.NoError(t, err)
	require.False(t, r.Existed || r.Written)
	require.Equal(t, 1, x.Len())

	_, err = x.UpsertKeyFunc("", o("ns2", "b", 1), nil)
	require.ErrorIs(t, err, ErrKeyFunc)
	_, err = x.UpsertKeyFunc("ns2/b", o("ns2", "b", 1, "ERR"), nil)
	require.ErrorIs(t, err, ErrIndexFunc)
	require.Equal(t, 1, x.Len(), "a failing index func writes nothing")

	old, ok := x.DeleteKey("ns1/a")
	require.True(t, ok)
	require.Equal(t, 2, old.Ver)
	_, ok = x.DeleteKey("ns1/a")
	require.False(t, ok)
	require.Equal(t, 0, x.Len())
	keys, err = x.IndexKeys("ns", "ns1")
	require.NoError(t, err)
	require.Empty(t, keys)
}
