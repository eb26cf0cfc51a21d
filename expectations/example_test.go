package expectations_test

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/expectations"
)

// A controller that keeps 3 pods for its owner, with a cache (what the
// informer has delivered) that lags behind its creates. Expectations keep
// it from creating the in-flight pods a second time.
func Example() {
	exp, err := expectations.New(expectations.Options{})
	if err != nil {
		panic(err)
	}
	const key = "default/web" // the owner's key
	const desired = 3

	var cache, inFlight []string // delivered pods; created pods not yet delivered
	failures := 1                // the source rejects the first create
	create := func(name string) error {
		if failures > 0 {
			failures--
			return errors.New("quota exceeded")
		}
		inFlight = append(inFlight, name)
		return nil
	}

	// The informer's OnAdd for pods, with key resolved from the pod's
	// controller reference. (OnDelete would observe the name too.)
	onAdd := func(name string) {
		cache = append(cache, name)
		exp.CreationObservedOf(key, name)
	}
	deliver := func() {
		for _, name := range inFlight {
			onAdd(name)
		}
		inFlight = nil
	}

	// The controller's sync (reconcile) of key. A real one returns
	// reconcile.Result{RequeueAfter: d} when it waits, so that it runs
	// again at the expiry even if the awaited events are lost.
	sync := func() {
		if d, waiting := exp.Remaining(key); waiting {
			fmt.Printf("sync: waiting for %v (requeue within %v)\n",
				slices.Collect(exp.PendingCreations(key)), d.Round(time.Minute))
			return
		}
		var missing []string
		for i := range desired {
			if name := fmt.Sprintf("web-%d", i); !slices.Contains(cache, name) {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 {
			fmt.Printf("sync: %d pods, nothing to do\n", len(cache))
			return
		}
		exp.ExpectCreationsOf(key, missing) // before the creates
		created := 0
		for _, name := range missing {
			if err := create(name); err != nil {
				fmt.Println("sync: create failed:", err)
				exp.CreationObservedOf(key, name) // no event will come for it
				continue
			}
			created++
		}
		fmt.Printf("sync: created %d of %d\n", created, len(missing))
	}

	sync()    // creates 2 of 3; the failed one is lowered at once
	sync()    // the cache lags: without expectations this would create 3 more
	deliver() // the informer catches up
	sync()    // creates the one that failed
	deliver()
	sync()

	exp.Delete(key) // the owner's OnDelete
	_, _, ok := exp.Get(key)
	fmt.Println("record after the owner is deleted:", ok)
	// Output:
	// sync: create failed: quota exceeded
	// sync: created 2 of 3
	// sync: waiting for [web-1 web-2] (requeue within 5m0s)
	// sync: created 1 of 1
	// sync: 3 pods, nothing to do
	// record after the owner is deleted: false
}

// Graceful deletion: a pod is first seen with a deletion timestamp, then
// seen deleted. UIDTracking counts the two observations once.
func ExampleUIDTracking() {
	exp, err := expectations.NewUIDTracking(expectations.Options{})
	if err != nil {
		panic(err)
	}
	const key = "default/web"

	exp.ExpectDeletions(key, []string{"uid-1", "uid-2"}) // before the deletes
	exp.DeletionObserved(key, "uid-1")                   // OnUpdate: deletion timestamp set
	exp.DeletionObserved(key, "uid-1")                   // OnDelete: gone; already counted
	exp.DeletionObserved(key, "uid-9")                   // not ours to wait for
	_, del, _ := exp.Get(key)
	fmt.Println(del, exp.Satisfied(key), slices.Collect(exp.PendingDeletions(key)))

	exp.DeletionObserved(key, "uid-2") // the delete of uid-2 failed: lower at once
	_, del, _ = exp.Get(key)
	fmt.Println(del, exp.Satisfied(key), slices.Collect(exp.PendingDeletions(key)))
	// Output:
	// 1 false [uid-2]
	// 0 true []
}
