package source_test

import (
	"context"
	"fmt"

	"github.com/ctrlkit/ctrlkit/source"
)

// A ListWatcher can be built from two functions; here a source of one
// fixed list whose watch reports a single change.
func ExampleListWatchFuncs() {
	lw := source.ListWatchFuncs[string]{
		ListFunc: func(ctx context.Context, opts source.ListOptions) (source.List[string], error) {
			return source.List[string]{Items: []string{"a", "b"}, ResourceVersion: source.FormatRevision(2)}, nil
		},
		WatchFunc: func(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[string], error) {
			ch := make(chan source.Event[string], 1)
			ch <- source.Event[string]{Type: source.Added, Object: "c", ResourceVersion: "3"}
			close(ch)
			return ch, nil
		},
	}
	ctx := context.Background()
	list, _ := lw.List(ctx, source.ListOptions{})
	fmt.Println(list.Items, "at", list.ResourceVersion)
	events, _ := lw.Watch(ctx, source.WatchOptions{ResourceVersion: list.ResourceVersion})
	for ev := range events {
		fmt.Println(ev.Type, ev.Object, "at", ev.ResourceVersion)
	}
	newer, _ := source.CompareRevisions("3", list.ResourceVersion)
	fmt.Println("3 is newer:", newer > 0)
	// Output:
	// [a b] at 2
	// Added c at 3
	// 3 is newer: true
}
