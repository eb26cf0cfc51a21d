package source_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/source"
)

func TestRevisions(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1", "2", -1}, {"2", "1", 1}, {"7", "7", 0}, {"0", "10", -1}, {"9", "10", -1},
	} {
		got, err := source.CompareRevisions(tc.a, tc.b)
		require.NoError(t, err)
		require.Equal(t, tc.want, got, "%s vs %s", tc.a, tc.b)
	}
	for _, bad := range []string{"", "-1", "x", "1.5", " 1"} {
		_, err := source.ParseRevision(bad)
		require.ErrorContains(t, err, "source: malformed resource version", bad)
		_, err = source.CompareRevisions("1", bad)
		require.Error(t, err, bad)
	}
	n, err := source.ParseRevision(source.FormatRevision(42))
	require.NoError(t, err)
	require.EqualValues(t, 42, n)
}
