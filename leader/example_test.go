package leader_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/leader"
)

// Two replicas share one Memory elector. The first leads until it is
// deposed; its work is stopped before the second replica takes over, and
// it leads again once the second has finished and resigned.
func ExampleRun() {
	m := leader.NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	firstLeads := make(chan int)
	firstDone := make(chan error, 1)
	go func() {
		term := 0
		firstDone <- leader.Run(ctx, m, func(ctx context.Context) error {
			term++
			firstLeads <- term
			<-ctx.Done() // work until the term ends
			fmt.Println("replica 1: stopped")
			return nil
		})
	}()
	fmt.Println("replica 1: leading, term", <-firstLeads)

	secondDone := make(chan error, 1)
	go func() {
		secondDone <- leader.Run(ctx, m, func(ctx context.Context) error {
			fmt.Println("replica 2: leading")
			return nil // work finished: resign and return
		})
	}()
	m.Depose() // replica 1 loses its term

	fmt.Println("replica 2 returned:", <-secondDone)
	fmt.Println("replica 1: leading, term", <-firstLeads)
	cancel()
	fmt.Println("replica 1 returned:", <-firstDone)
	// Output:
	// replica 1: leading, term 1
	// replica 1: stopped
	// replica 2: leading
	// replica 2 returned: <nil>
	// replica 1: leading, term 2
	// replica 1: stopped
	// replica 1 returned: context canceled
}
