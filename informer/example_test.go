package informer_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/informer"
)

// Pod is a minimal object: the source stamps its resourceVersion.
type Pod struct {
	Name, Node, ResourceVersion string
}

func (p *Pod) GetResourceVersion() string   { return p.ResourceVersion }
func (p *Pod) SetResourceVersion(rv string) { p.ResourceVersion = rv }

func podName(p *Pod) string { return p.Name }

func byNode(p *Pod) ([]string, error) { return []string{p.Node}, nil }

// An informer over an in-memory source: a handler hears of every change,
// the Lister answers from the cache.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	src, _ := fake.NewSource(podName, fake.Options[*Pod]{})
	_, _ = src.Create(ctx, &Pod{Name: "a", Node: "n1"})

	inf, err := informer.New(src, podName, informer.Options[*Pod]{
		Indexers: indexer.Indexers[*Pod]{"node": byNode},
	})
	if err != nil {
		panic(err)
	}
	// The handler runs on its own goroutine; it reports to this one.
	seen := make(chan string)
	reg, _ := inf.AddEventHandler(informer.HandlerFuncs[*Pod]{
		AddFunc: func(p *Pod, initial bool) {
			seen <- fmt.Sprintf("add %s on %s (initial list: %v)", p.Name, p.Node, initial)
		},
		UpdateFunc: func(old, new *Pod) {
			seen <- fmt.Sprintf("update %s: %s -> %s", new.Name, old.Node, new.Node)
		},
		DeleteFunc: func(p *Pod, finalStateUnknown bool) {
			seen <- fmt.Sprintf("delete %s (final state unknown: %v)", p.Name, finalStateUnknown)
		},
	}, informer.HandlerOptions{})

	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = inf.Run(ctx)
	}()
	fmt.Println(<-seen)
	if !informer.WaitForCacheSync(ctx, reg.HasSynced) {
		panic("not synced")
	}

	_, _ = src.Create(ctx, &Pod{Name: "b", Node: "n1"})
	fmt.Println(<-seen)
	rv, _ := src.Update(ctx, &Pod{Name: "a", Node: "n2"}, "")
	fmt.Println(<-seen)
	_, _ = src.Delete(ctx, "b", "")
	fmt.Println(<-seen)

	// Read your own write: wait until the cache has caught up with rv.
	if err := inf.WaitForResourceVersion(ctx, rv); err != nil {
		panic(err)
	}
	onN2, _ := inf.Lister().ByIndex("node", "n2")
	for _, p := range onN2 {
		fmt.Println("on n2:", p.Name)
	}
	cancel()
	<-done
	// Output:
	// add a on n1 (initial list: true)
	// add b on n1 (initial list: false)
	// update a: n1 -> n2
	// delete b (final state unknown: false)
	// on n2: a
}

// Several controllers share one informer per name and type through a
// Factory.
func ExampleFactory() {
	ctx := context.Background()
	src, _ := fake.NewSource(podName, fake.Options[*Pod]{})
	_, _ = src.Create(ctx, &Pod{Name: "a", Node: "n1"})
	_, _ = src.Create(ctx, &Pod{Name: "b", Node: "n2"})

	f := informer.NewFactory(informer.FactoryOptions{})
	first, _ := informer.Shared(f, "pods", src, podName, informer.Options[*Pod]{})
	second, _ := informer.Shared(f, "pods", src, podName, informer.Options[*Pod]{})
	fmt.Println("shared:", first == second)

	f.Start(ctx)
	fmt.Println("synced:", f.WaitForCacheSync(ctx))
	fmt.Println("cached:", first.Lister().Len())
	f.Shutdown()
	// Output:
	// shared: true
	// synced: true
	// cached: 2
}

// A FilteringHandler passes only the objects its filter accepts, turning
// an update that leaves the filter into a delete.
func ExampleFilteringHandler() {
	onN1 := func(p *Pod) bool { return p.Node == "n1" }
	h := informer.FilteringHandler[*Pod]{
		Filter: onN1,
		Handler: informer.HandlerFuncs[*Pod]{
			AddFunc:    func(p *Pod, _ bool) { fmt.Println("add", p.Name) },
			UpdateFunc: func(_, p *Pod) { fmt.Println("update", p.Name) },
			DeleteFunc: func(p *Pod, _ bool) { fmt.Println("delete", p.Name) },
		},
	}
	h.OnAdd(&Pod{Name: "a", Node: "n1"}, false)
	h.OnAdd(&Pod{Name: "b", Node: "n2"}, false)
	h.OnUpdate(&Pod{Name: "a", Node: "n1"}, &Pod{Name: "a", Node: "n2"})
	h.OnUpdate(&Pod{Name: "b", Node: "n2"}, &Pod{Name: "b", Node: "n1"})
	// Output:
	// add a
	// delete a
	// add b
}
