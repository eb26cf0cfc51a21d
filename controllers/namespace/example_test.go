package namespace_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/namespace"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// Deleting a namespace: its config map is deleted, then the namespace
// itself goes.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	nc, err := namespace.New(c, f, namespace.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- nc.Run(ctx) }()

	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
		panic(err)
	}
	if _, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "settings", Namespace: "shop"}}); err != nil {
		panic(err)
	}
	if _, err := c.Namespaces().DeleteWith(ctx, "shop", cluster.DeleteOptions{}); err != nil {
		panic(err)
	}
	// Wait (in real time, bounded: an Example has no *testing.T for a
	// testing/synctest bubble) for the namespace to go.
	for i := 0; i < 500; i++ {
		if _, _, err := c.Namespaces().Get(ctx, "shop"); errors.Is(err, source.ErrNotFound) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	_, _, err = c.ConfigMaps().Get(ctx, "shop/settings")
	fmt.Println("config map gone:", errors.Is(err, source.ErrNotFound))
	_, _, err = c.Namespaces().Get(ctx, "shop")
	fmt.Println("namespace gone:", errors.Is(err, source.ErrNotFound))
	cancel()
	<-done
	// Output:
	// config map gone: true
	// namespace gone: true
}
