package rootcacertpublisher_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/rootcacertpublisher"
	"github.com/ctrlkit/ctrlkit/informer"
)

// A new namespace gets the cluster's CA bundle.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logger := slog.New(slog.DiscardHandler)
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: logger})
	p, err := rootcacertpublisher.New(c, f, rootcacertpublisher.Options{RootCA: []byte("-----BEGIN CERTIFICATE-----\n…\n"), Logger: logger})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	if _, err := c.Namespaces().Create(ctx, &api.Namespace{ObjectMeta: api.ObjectMeta{Name: "shop"}}); err != nil {
		panic(err)
	}
	// Wait (in real time, bounded: an Example has no *testing.T for a
	// testing/synctest bubble) for the ConfigMap.
	var cm *api.ConfigMap
	for i := 0; i < 500 && cm == nil; i++ {
		cm, _, _ = c.ConfigMaps().Get(ctx, "shop/kube-root-ca.crt")
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("%q\n", cm.Data["ca.crt"])
	cancel()
	<-done
	// Output:
	// "-----BEGIN CERTIFICATE-----\n…\n"
}
