package ctrlutil

import (
	"errors"
	"sync"
)

// SlowStartBatch calls fn count times, in batches that double in size —
// initial, 2×initial, 4×initial, … — running each batch's calls
// concurrently, and stops after the first batch in which a call fails. It
// returns how many calls succeeded and the errors of the failed batch
// joined. This is how kube-controller-manager creates pods: a controller
// whose creates all fail (a quota, a webhook) makes one call, not
// hundreds, before it backs off.
func SlowStartBatch(count, initial int, fn func() error) (int, error) {
	if initial < 1 {
		initial = 1
	}
	done := 0
	for batch := min(count, initial); batch > 0; batch = min(2*batch, count-done) {
		errs := make([]error, batch)
		var wg sync.WaitGroup
		for i := range batch {
			wg.Go(func() { errs[i] = fn() })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			}
		}
		done += ok
		if ok < batch {
			return done, errors.Join(errs...)
		}
	}
	return done, nil
}
