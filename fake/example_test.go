package fake_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// Pod is an example object; the source stamps ResourceVersion.
type Pod struct {
	Name, Phase, ResourceVersion string
}

func (p *Pod) SetResourceVersion(rv string) { p.ResourceVersion = rv }

// A source is listed, then watched from the list's version, while a
// writer changes objects with optimistic concurrency.
func Example() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, err := fake.NewSource(func(p *Pod) string { return p.Name }, fake.Options[*Pod]{})
	if err != nil {
		panic(err)
	}
	_, _ = src.Create(ctx, &Pod{Name: "web", Phase: "Pending"})

	list, _ := src.List(ctx, source.ListOptions{})
	fmt.Println("listed", len(list.Items), "pod at version", list.ResourceVersion)
	events, _ := src.Watch(ctx, source.WatchOptions{ResourceVersion: list.ResourceVersion})

	_, rv, _ := src.Get(ctx, "web")
	_, _ = src.Update(ctx, &Pod{Name: "web", Phase: "Running"}, rv)
	_, err = src.Update(ctx, &Pod{Name: "web", Phase: "Failed"}, rv) // rv is stale now
	fmt.Println("second update conflicts:", errors.Is(err, source.ErrConflict))
	_, _ = src.Delete(ctx, "web", "")

	for range 2 {
		ev := <-events
		fmt.Println(ev.Type, ev.Object.Name, ev.Object.Phase, "at", ev.ResourceVersion)
	}
	// Output:
	// listed 1 pod at version 1
	// second update conflicts: true
	// Modified web Running at 2
	// Deleted web Running at 3
}

// Fault injection: a missed event is invisible to every watch; only a
// relist finds it.
func ExampleSource_MissNextEvents() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src, _ := fake.NewSource(func(p *Pod) string { return p.Name }, fake.Options[*Pod]{})
	events, _ := src.Watch(ctx, source.WatchOptions{})

	src.MissNextEvents(1)
	_, _ = src.Create(ctx, &Pod{Name: "ghost"})
	_, _ = src.Create(ctx, &Pod{Name: "seen"})

	ev := <-events
	fmt.Println("watch:", ev.Type, ev.Object.Name, "at", ev.ResourceVersion)
	list, _ := src.List(ctx, source.ListOptions{})
	for _, p := range list.Items {
		fmt.Println("list:", p.Name, "at", p.ResourceVersion)
	}
	// Output:
	// watch: Added seen at 2
	// list: ghost at 1
	// list: seen at 2
}

// A Recorder in front of a source records what a controller wrote, for a
// test to assert.
func ExampleRecorder() {
	type widget struct{ Name, Color string }
	key := func(w *widget) string { return w.Name }
	src, _ := fake.NewSource(key, fake.Options[*widget]{})
	rec := fake.NewRecorder[*widget](src, key)
	ctx := context.Background()

	// The code under test writes through rec.
	_, _ = rec.Create(ctx, &widget{Name: "a", Color: "red"})
	_, _ = rec.Create(ctx, &widget{Name: "a", Color: "blue"}) // already exists
	_, _ = rec.Update(ctx, &widget{Name: "a", Color: "green"}, "")
	_, _ = rec.Delete(ctx, "a", "")

	for _, a := range rec.Actions() {
		fmt.Println(a.Verb, a.Key, a.ResourceVersion, a.Err != nil)
	}
	fmt.Println("writes accepted:", len(rec.Writes()))
	// Output:
	// create a 1 false
	// create a  true
	// update a 2 false
	// delete a 3 false
	// writes accepted: 3
}
