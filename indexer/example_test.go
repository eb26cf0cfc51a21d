package indexer_test

import (
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/indexer"
)

type Pod struct {
	Namespace, Name string
	Labels          map[string]string
}

func Example() {
	podKey := func(p *Pod) string { return p.Namespace + "/" + p.Name }
	pods, err := indexer.New(podKey, indexer.Indexers[*Pod]{
		"namespace": func(p *Pod) ([]string, error) { return []string{p.Namespace}, nil },
		"app":       func(p *Pod) ([]string, error) { return []string{p.Labels["app"]}, nil },
	})
	if err != nil {
		panic(err)
	}
	for _, p := range []*Pod{
		{"prod", "web-2", map[string]string{"app": "web"}},
		{"prod", "db-0", map[string]string{"app": "db"}},
		{"dev", "web-1", map[string]string{"app": "web"}},
		{"prod", "web-1", map[string]string{"app": "web"}},
	} {
		if err := pods.Add(p); err != nil {
			panic(err)
		}
	}

	web, _ := pods.ByIndex("app", "web") // ordered by key
	for _, p := range web {
		fmt.Println("app=web:", p.Namespace, p.Name)
	}
	for key := range pods.Range("prod/") { // a namespace, in key order
		fmt.Println("in prod:", key)
	}

	// A snapshot is a consistent, immutable view that writers never wait for.
	snap := pods.Snapshot()
	_ = pods.Delete(&Pod{Namespace: "prod", Name: "db-0"})
	fmt.Println("now:", pods.Len(), "snapshot:", snap.Len())

	_, err = pods.ByIndex("tier", "frontend")
	fmt.Println(errors.Is(err, indexer.ErrUnknownIndex), err)
	// Output:
	// app=web: dev web-1
	// app=web: prod web-1
	// app=web: prod web-2
	// in prod: prod/db-0
	// in prod: prod/web-1
	// in prod: prod/web-2
	// now: 3 snapshot: 4
	// true indexer: unknown index "tier"
}
