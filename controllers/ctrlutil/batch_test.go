package ctrlutil_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/ctrlutil"
)

// The batches double (1, 2, 4, …) and the first batch with a failure is
// the last, as kube-controller-manager's slowStartBatch.
func TestSlowStartBatch(t *testing.T) {
	for _, tc := range []struct {
		name      string
		count     int
		failAfter int32 // calls that succeed before every later one fails; -1: none fail
		wantOK    int
		wantCalls int32
	}{
		{"all succeed", 10, -1, 10, 10},
		{"nothing to do", 0, -1, 0, 0},
		{"first call fails", 10, 0, 0, 1},
		{"fails in the batch of 4", 10, 4, 4, 7},  // 1 + 2 + 4
		{"fails in the last batch", 10, 8, 8, 10}, // 1 + 2 + 4 + 3
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			ok, err := ctrlutil.SlowStartBatch(tc.count, 1, func() error {
				if n := calls.Add(1); tc.failAfter >= 0 && n > tc.failAfter {
					return errors.New("quota exceeded")
				}
				return nil
			})
			require.Equal(t, tc.wantOK, ok)
			require.Equal(t, tc.wantCalls, calls.Load())
			if tc.wantOK < tc.count {
				require.ErrorContains(t, err, "quota exceeded")
			} else {
				require.NoError(t, err)
			}
		})
	}
}
