package pvprotection_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/pvprotection"
	"github.com/ctrlkit/ctrlkit/informer"
)

// A new volume gets the protection finalizer.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	pc, err := pvprotection.New(c, f, pvprotection.Options{Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- pc.Run(ctx) }()
	if _, err := c.PersistentVolumes().Create(ctx, volume("pv-1")); err != nil {
		panic(err)
	}
	// Wait (in real time, bounded: an Example has no *testing.T for a
	// testing/synctest bubble) for the finalizer.
	var finalizers []string
	for i := 0; i < 500 && len(finalizers) == 0; i++ {
		pv, _, _ := c.PersistentVolumes().Get(ctx, "pv-1")
		finalizers = pv.Finalizers
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println(finalizers)
	cancel()
	<-done
	// Output:
	// [kubernetes.io/pv-protection]
}
