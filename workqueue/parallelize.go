package workqueue

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// ErrPanicked is wrapped by the error ParallelizeUntil returns when fn
// panicked.
var ErrPanicked = errors.New("workqueue: piece panicked")

// ParallelizeUntil calls fn(piece) for every piece in [0, pieces) from at
// most workers goroutines, handing out pieces in increasing order, and
// returns when all calls have returned. It stops handing out pieces when
// ctx ends or a call panics.
//
// It returns nil if every piece ran; ctx.Err() if ctx ended before every
// piece was handed out; an error wrapping ErrPanicked (with the piece and
// the panic value) if fn panicked, in which case pieces not yet started
// do not run. workers < 1 or pieces < 0 is an error; nothing runs.
func ParallelizeUntil(ctx context.Context, workers, pieces int, fn func(piece int)) error {
	switch {
	case ctx == nil:
		return errors.New("workqueue: ParallelizeUntil: context is nil")
	case fn == nil:
		return errors.New("workqueue: ParallelizeUntil: nil fn")
	case workers < 1:
		return fmt.Errorf("workqueue: ParallelizeUntil: workers must be at least 1, got %d", workers)
	case pieces < 0:
		return fmt.Errorf("workqueue: ParallelizeUntil: pieces must not be negative, got %d", pieces)
	case pieces == 0:
		return nil
	}
	var (
		next    atomic.Int64
		stop    atomic.Bool
		errOnce sync.Once
		perr    error
		wg      sync.WaitGroup
	)
	done := ctx.Done()
	work := func() {
		for !stop.Load() {
			select {
			case <-done:
				return
			default:
			}
			i := int(next.Add(1) - 1)
			if i >= pieces {
				return
			}
			if err := runPiece(fn, i); err != nil {
				stop.Store(true)
				errOnce.Do(func() { perr = err })
				return
			}
		}
	}
	for range min(workers, pieces) {
		wg.Go(work)
	}
	wg.Wait()
	if perr != nil {
		return perr
	}
	if int(next.Load()) < pieces {
		return ctx.Err()
	}
	return nil
}

func runPiece(fn func(int), i int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: piece %d: %v", ErrPanicked, i, r)
		}
	}()
	fn(i)
	return nil
}
