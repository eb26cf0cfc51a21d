package serviceaccount_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/serviceaccount"
	"github.com/ctrlkit/ctrlkit/informer"
)

// The controller gives a new namespace its default account, and the
// admission step makes a pod run as it.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	sa := serviceaccount.NewAdmission()
	c, err := cluster.New(ctx, cluster.Options{Mutating: []cluster.MutatingFunc{sa.Admit}})
	if err != nil {
		panic(err)
	}
	if err := sa.SetClient(c); err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	ctl, err := serviceaccount.New(c, f, serviceaccount.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
		panic(err)
	}
	// Wait (in real time, bounded: an Example has no *testing.T for a
	// testing/synctest bubble) for the account.
	for i := 0; i < 500; i++ {
		if _, _, err := c.ServiceAccounts().Get(ctx, "shop/default"); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "nginx", Image: "nginx"}}}}
	if _, err := c.Pods().Create(ctx, p); err != nil {
		panic(err)
	}
	fmt.Println("serviceAccountName:", p.Spec.ServiceAccountName)
	cancel()
	<-done
	// Output:
	// serviceAccountName: default
}
