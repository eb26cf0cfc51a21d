package metrics_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/metrics"
)

func TestOr(t *testing.T) {
	var c metrics.Counter
	var g metrics.Gauge
	var h metrics.Histogram
	require.Equal(t, metrics.Nop{}, metrics.Or(c))
	require.Equal(t, metrics.Nop{}, metrics.Or(g))
	require.Equal(t, metrics.Nop{}, metrics.Or(h))
	set := &count{}
	require.Same(t, set, metrics.Or[metrics.Counter](set))
	// A type Nop does not implement is returned unchanged.
	var s interface{ String() string }
	require.Nil(t, metrics.Or(s))
}
