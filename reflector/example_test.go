package reflector_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/source"
)

// printStore prints what the reflector writes into it and stops the
// reflector after the delete.
type printStore struct{ stop context.CancelFunc }

func (s printStore) Add(obj string, rv string) error {
	fmt.Println("add", obj, "at", rv)
	return nil
}

func (s printStore) Update(obj string, rv string) error {
	fmt.Println("update", obj, "at", rv)
	return nil
}

func (s printStore) Delete(obj string, rv string) error {
	fmt.Println("delete", obj, "at", rv)
	s.stop()
	return nil
}

func (s printStore) Replace(items []string, rv string) error {
	fmt.Printf("replace [%s] at %s\n", strings.Join(items, " "), rv)
	return nil
}

func (s printStore) Resync() error { return nil }

// A reflector over a source made of two functions: a List and a
// channel-based Watch.
func Example() {
	changes := []source.Event[string]{
		{Type: source.Added, Object: "c", ResourceVersion: "3"},
		{Type: source.Modified, Object: "b2", ResourceVersion: "4"},
		{Type: source.Bookmark, ResourceVersion: "5"},
		{Type: source.Deleted, Object: "a", ResourceVersion: "6"},
	}
	lw := source.ListWatchFuncs[string]{
		ListFunc: func(ctx context.Context, opts source.ListOptions) (source.List[string], error) {
			return source.List[string]{Items: []string{"a", "b"}, ResourceVersion: "2"}, nil
		},
		WatchFunc: func(ctx context.Context, opts source.WatchOptions) (<-chan source.Event[string], error) {
			fmt.Println("watch from", opts.ResourceVersion)
			ch := make(chan source.Event[string])
			go func() {
				defer close(ch) // the source closes the channel when ctx ends
				for _, e := range changes {
					select {
					case ch <- e:
					case <-ctx.Done():
						return
					}
				}
				<-ctx.Done()
			}()
			return ch, nil
		},
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := reflector.New[string](lw, printStore{stop: cancel}, reflector.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("run:", r.Run(ctx))
	fmt.Println("last synced:", r.LastSyncResourceVersion())
	// Output:
	// replace [a b] at 2
	// watch from 2
	// add c at 3
	// update b2 at 4
	// delete a at 6
	// run: context canceled
	// last synced: 6
}
