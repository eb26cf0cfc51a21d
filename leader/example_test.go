package leader_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/leader"
)

// A replica leads, loses its term (Depose stands in for an expired lease),
// has its work stopped, and leads again; cancelling the context ends it.
func ExampleRun() {
	m := leader.NewMemory()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	leads := make(chan int)
	done := make(chan error, 1)
	go func() {
		term := 0
		done <- leader.Run(ctx, m, func(ctx context.Context) error {
			term++
			leads <- term
			<-ctx.Done() // work until the term ends
			fmt.Println("work stopped")
			return nil
		})
	}()

	fmt.Println("leading, term", <-leads)
	m.Depose()
	fmt.Println("leading, term", <-leads)
	cancel()
	fmt.Println("Run returned:", <-done)
	fmt.Println("seat taken:", m.Leading())
	// Output:
	// leading, term 1
	// work stopped
	// leading, term 2
	// work stopped
	// Run returned: context canceled
	// seat taken: false
}
