package ctrlkit_test

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Widget is an example object; the source stamps its resourceVersion.
type Widget struct {
	Name, Color string
	RV          string
}

func (w *Widget) GetResourceVersion() string   { return w.RV }
func (w *Widget) SetResourceVersion(rv string) { w.RV = rv }

// The data flow of ctrlkit in one place: a source, an informer whose handler
// feeds a work queue, and a worker that reads the informer's cache.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	key := func(w *Widget) string { return w.Name }

	src, err := fake.NewSource(key, fake.Options[*Widget]{})
	if err != nil {
		panic(err)
	}
	if _, err := src.Create(ctx, &Widget{Name: "a", Color: "red"}); err != nil {
		panic(err)
	}
	inf, err := informer.New(src, key, informer.Options[*Widget]{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	queue := workqueue.New(workqueue.Options[string]{Name: "widgets"})
	reg, err := inf.AddEventHandler(informer.HandlerFuncs[*Widget]{
		AddFunc:    func(w *Widget, _ bool) { queue.Add(w.Name) },
		UpdateFunc: func(_, w *Widget) { queue.Add(w.Name) },
		DeleteFunc: func(w *Widget, _ bool) { queue.Add(w.Name) },
	}, informer.HandlerOptions{})
	if err != nil {
		panic(err)
	}

	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(ctx) })
	if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
		panic("cache did not sync")
	}

	// One worker: take a key, read the cache, report, mark it done.
	process := func() {
		name, _ := queue.Get()
		defer queue.Done(name)
		if w, ok := inf.Lister().Get(name); ok {
			fmt.Println(name, "is", w.Color)
		} else {
			fmt.Println(name, "is gone")
		}
	}
	process() // from the initial list

	rv, err := src.Update(ctx, &Widget{Name: "a", Color: "blue"}, "")
	if err != nil {
		panic(err)
	}
	if err := inf.WaitForResourceVersion(ctx, rv); err != nil { // read your write
		panic(err)
	}
	process()

	if _, err := src.Delete(ctx, "a", ""); err != nil {
		panic(err)
	}
	process()

	cancel()
	wg.Wait()
	queue.ShutDown()
	// Output:
	// a is red
	// a is blue
	// a is gone
}
