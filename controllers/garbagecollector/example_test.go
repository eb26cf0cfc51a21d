package garbagecollector_test

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/garbagecollector"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// Delete an owner in the background and watch the collector delete its
// dependent.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	logger := slog.New(slog.DiscardHandler)
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	gc, err := garbagecollector.New(c, f, garbagecollector.Options{Logger: logger})
	if err != nil {
		fmt.Println(err)
		return
	}
	f.Start(ctx)
	defer f.Shutdown()
	done := make(chan error, 1)
	go func() { done <- gc.Run(ctx) }()

	owner := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "owner"}}
	if _, err := c.ConfigMaps().Create(ctx, owner); err != nil {
		fmt.Println(err)
		return
	}
	dep := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "dependent",
		OwnerReferences: []api.OwnerReference{api.NewControllerRef(owner)}}}
	if _, err := c.ConfigMaps().Create(ctx, dep); err != nil {
		fmt.Println(err)
		return
	}

	w, err := c.ConfigMaps().Watch(ctx, source.WatchOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.ConfigMaps().DeleteWith(ctx, "default/owner", cluster.DeleteOptions{PropagationPolicy: cluster.DeletePropagationBackground}); err != nil {
		fmt.Println(err)
		return
	}
	for ev := range w {
		if ev.Type == source.Deleted {
			fmt.Println("deleted", ev.Object.Name)
			if ev.Object.Name == "dependent" {
				break
			}
		}
	}
	cancel()
	fmt.Println("Run:", <-done)
	// Output:
	// deleted owner
	// deleted dependent
	// Run: context canceled
}
