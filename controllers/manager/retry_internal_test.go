package manager

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRetryDelay(t *testing.T) {
	for _, tc := range []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, time.Second},
		{1, 0.5, 750 * time.Millisecond},
		{1, 1, 500 * time.Millisecond},
		{2, 0, 2 * time.Second},
		{3, 0, 4 * time.Second},
		{5, 0, 16 * time.Second},
		{6, 0, 30 * time.Second},
		{6, 1, 15 * time.Second},
		{1000, 0, 30 * time.Second},
		{0, 0, time.Second},
		{1, -3, time.Second},
		{1, 7, 500 * time.Millisecond},
	} {
		require.Equal(t, tc.want, retryDelay(tc.n, tc.jitter), "n=%d jitter=%v", tc.n, tc.jitter)
	}
}
