package workqueue_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// A worker loop: handlers add keys, workers take them one at a time, and
// ShutDownWithDrain waits until everything queued has been processed.
func Example_workerLoop() {
	q := workqueue.New(workqueue.Options[string]{Name: "example"})
	var mu sync.Mutex
	processed := map[string]bool{}

	var workers sync.WaitGroup
	for range 2 {
		workers.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				mu.Lock()
				processed[key] = true
				mu.Unlock()
				q.Done(key)
			}
		})
	}

	q.Add("default/a")
	q.Add("default/b")
	q.Add("default/a") // already queued or being processed: not lost, not doubled
	q.ShutDownWithDrain()
	workers.Wait()

	fmt.Println(slices.Sorted(maps.Keys(processed)))
	// Output: [default/a default/b]
}

// A rate-limited retry: a failing item comes back after a per-item
// exponential backoff until it succeeds, then Forget resets its history.
func Example_rateLimitedRetry() {
	q := workqueue.New(workqueue.Options[string]{
		RateLimiter: workqueue.NewItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
	})
	attempts := 0
	reconcile := func(string) error {
		attempts++
		if attempts < 3 {
			return errors.New("not yet")
		}
		return nil
	}

	q.Add("default/a")
	for {
		key, _ := q.Get()
		if err := reconcile(key); err != nil {
			fmt.Printf("attempt %d failed, retry #%d\n", attempts, q.NumRequeues(key)+1)
			q.AddRateLimited(key)
			q.Done(key)
			continue
		}
		fmt.Printf("attempt %d succeeded\n", attempts)
		q.Forget(key)
		q.Done(key)
		break
	}
	fmt.Println("requeues after Forget:", q.NumRequeues("default/a"))
	q.ShutDown()
	// Output:
	// attempt 1 failed, retry #1
	// attempt 2 failed, retry #2
	// attempt 3 succeeded
	// requeues after Forget: 0
}

// Priorities: live events overtake a backlog of resync events, which age
// and so are never starved.
func Example_priority() {
	q := workqueue.New(workqueue.Options[string]{})
	q.AddWithOptions("resync/a", workqueue.AddOptions{Priority: workqueue.LowPriority})
	q.AddWithOptions("resync/b", workqueue.AddOptions{Priority: workqueue.LowPriority})
	q.Add("event/c")
	q.AddWithOptions("urgent/d", workqueue.AddOptions{Priority: 10})
	for q.Len() > 0 {
		key, prio, _ := q.GetWithPriority()
		fmt.Println(key, prio)
		q.Done(key)
	}
	q.ShutDown()
	// Output:
	// urgent/d 10
	// event/c 0
	// resync/a -100
	// resync/b -100
}

// ParallelizeUntil fans pieces of work out over a few goroutines.
func ExampleParallelizeUntil() {
	squares := make([]int, 5)
	err := workqueue.ParallelizeUntil(context.Background(), 2, len(squares), func(i int) {
		squares[i] = i * i
	})
	fmt.Println(squares, err)
	// Output: [0 1 4 9 16] <nil>
}
