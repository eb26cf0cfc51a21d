package persistentvolume_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/persistentvolume"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/source"
)

// A claim bound to the smallest volume that fits.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		panic(err)
	}
	f := informer.NewFactory(informer.FactoryOptions{Logger: quiet})
	ctl, err := persistentvolume.New(c, f, persistentvolume.Options{Logger: quiet})
	if err != nil {
		panic(err)
	}
	f.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- ctl.Run(ctx) }()

	watch, err := c.PersistentVolumeClaims().Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	pvWatch, err := c.PersistentVolumes().Watch(ctx, source.WatchOptions{})
	if err != nil {
		panic(err)
	}
	for _, v := range []*api.PersistentVolume{staticPV("pv-10g", "10Gi", "Retain"), staticPV("pv-2g", "2Gi", "Retain")} {
		if _, err := c.PersistentVolumes().Create(ctx, v); err != nil {
			panic(err)
		}
	}
	// Wait until the controller has seen both volumes (they turn Available).
	available := map[string]bool{}
	for ev := range pvWatch {
		if ev.Object.Status.Phase == "Available" {
			available[ev.Object.Name] = true
		}
		if len(available) == 2 {
			break
		}
	}
	none := ""
	if _, err := c.PersistentVolumeClaims().Create(ctx, claim("data", "1Gi", &none)); err != nil {
		panic(err)
	}
	for ev := range watch {
		if ev.Object.Status.Phase == "Bound" {
			fmt.Println(ev.Object.Name, "bound to", ev.Object.Spec.VolumeName)
			break
		}
	}
	cancel()
	fmt.Println(<-done)
	f.Shutdown()
	// Output:
	// data bound to pv-2g
	// context canceled
}
