package deltafifo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ctrlkit/ctrlkit/deltafifo"
)

type pod struct {
	Name  string
	Phase string
}

// cache is a minimal consumer cache; an informer uses an indexer.
type cache map[string]*pod

func (c cache) Get(key string) (*pod, bool) { p, ok := c[key]; return p, ok }

func (c cache) ListKeys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A reflector's writes, a relist that misses a deleted pod, and a
// consumer that applies the deltas to its cache.
func Example() {
	c := cache{}
	f, err := deltafifo.New(func(p *pod) string { return p.Name }, deltafifo.Options[*pod]{KnownObjects: c})
	if err != nil {
		panic(err)
	}

	drain := func() {
		for f.Len() > 0 {
			_ = f.Pop(context.Background(), func(ds deltafifo.Deltas[*pod], initial bool) error {
				for _, d := range ds {
					fmt.Printf("%-8s %s=%s rv=%s initial=%v unknown=%v\n",
						d.Type, d.Object.Name, d.Object.Phase, d.ResourceVersion, initial, d.FinalStateUnknown)
					if d.Type == deltafifo.Deleted {
						delete(c, d.Object.Name)
					} else {
						c[d.Object.Name] = d.Object
					}
				}
				return nil
			})
		}
	}

	// The initial list, then a watch event.
	_ = f.Replace([]*pod{{"a", "Pending"}, {"b", "Running"}}, "10")
	_ = f.Update(&pod{"a", "Running"}, "11")
	fmt.Println("synced:", f.HasSynced())
	drain()
	fmt.Println("synced:", f.HasSynced())

	// The watch broke; b was deleted meanwhile, so the relist lacks it.
	_ = f.Replace([]*pod{{"a", "Running"}}, "15")
	drain()

	rv, _ := f.ProcessedResourceVersion()
	fmt.Println("processed up to", rv)

	f.Close()
	err = f.Pop(context.Background(), func(deltafifo.Deltas[*pod], bool) error { return nil })
	fmt.Println(errors.Is(err, deltafifo.ErrClosed))
	// Output:
	// synced: false
	// Replaced a=Pending rv=10 initial=true unknown=false
	// Updated  a=Running rv=11 initial=true unknown=false
	// Replaced b=Running rv=10 initial=true unknown=false
	// synced: true
	// Replaced a=Running rv=15 initial=false unknown=false
	// Deleted  b=Running rv=15 initial=false unknown=true
	// processed up to 15
	// true
}
