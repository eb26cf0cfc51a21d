package leaderelection_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/client"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/leaderelection"
)

// A candidate acquires the Lease, which then names it; resigning
// releases the Lease so that the next candidate can take it at once.
func Example() {
	ctx := context.Background()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	leases, err := client.For[*api.Lease](c)
	if err != nil {
		panic(err)
	}
	e, err := leaderelection.New(leases, leaderelection.Options{
		Namespace: "kube-system", Name: "my-controller", Identity: "replica-a",
	})
	if err != nil {
		panic(err)
	}
	term, err := e.Campaign(ctx)
	if err != nil {
		panic(err)
	}
	l, _, _ := leases.Get(ctx, "kube-system/my-controller")
	fmt.Println("holder:", *l.Spec.HolderIdentity, "duration:", *l.Spec.LeaseDurationSeconds)

	if err := term.Resign(ctx); err != nil {
		panic(err)
	}
	l, _, _ = leases.Get(ctx, "kube-system/my-controller")
	fmt.Printf("holder after resign: %q\n", *l.Spec.HolderIdentity)
	// Output:
	// holder: replica-a duration: 15
	// holder after resign: ""
}
