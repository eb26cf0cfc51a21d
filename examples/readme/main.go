// Command readme is the README's quick start, verbatim: a controller that
// reconciles widgets from the in-memory source.
package main

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"sync"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
)

// Widget is the object; the source stamps its resourceVersion.
type Widget struct {
	Name, Color string
	RV          string
}

func (w *Widget) GetResourceVersion() string   { return w.RV }
func (w *Widget) SetResourceVersion(rv string) { w.RV = rv }

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	key := func(w *Widget) string { return w.Name }
	quiet := slog.New(slog.DiscardHandler)

	src, err := fake.NewSource(key, fake.Options[*Widget]{}) // or etcd.New(client, ...)
	if err != nil {
		return err
	}
	inf, err := informer.New(src, key, informer.Options[*Widget]{Logger: quiet})
	if err != nil {
		return err
	}
	lister := inf.Lister()

	// The reconciler reads the cache and reports what it saw.
	seen := make(chan string)
	ctl, err := reconcile.New("widgets", reconcile.Func[string](
		func(ctx context.Context, name string) (reconcile.Result, error) {
			if w, ok := lister.Get(name); ok {
				seen <- name + " is " + w.Color
			} else {
				seen <- name + " is gone"
			}
			return reconcile.Result{}, nil // an error retries with backoff
		}), reconcile.Options[string]{Workers: 2, Logger: quiet})
	if err != nil {
		return err
	}
	if _, err := reconcile.Watch(ctl, inf, reconcile.ByKey(key), reconcile.WatchOptions{}); err != nil {
		return err
	}

	var wg sync.WaitGroup
	defer wg.Wait() // Run returns once every goroutine it started has exited
	defer cancel()
	wg.Go(func() { _ = inf.Run(ctx) })
	wg.Go(func() { _ = ctl.Run(ctx) })

	if _, err := src.Create(ctx, &Widget{Name: "a", Color: "red"}); err != nil {
		return err
	}
	fmt.Println(<-seen)
	if _, err := src.Update(ctx, &Widget{Name: "a", Color: "blue"}, ""); err != nil {
		return err
	}
	fmt.Println(<-seen)
	if _, err := src.Delete(ctx, "a", ""); err != nil {
		return err
	}
	fmt.Println(<-seen)
	return nil
}
