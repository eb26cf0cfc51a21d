package fake_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/source"
)

// plain has no VersionSetter: the source never changes it, so the
// benchmarks may write the same object again.
type plain struct{ name string }

func newPlainSource(b *testing.B) *fake.Source[*plain] {
	s, err := fake.NewSource(func(p *plain) string { return p.name }, fake.Options[*plain]{WatchBuffer: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkUpdate measures one write while watchers (drained by their own
// goroutines) are open.
func BenchmarkUpdate(b *testing.B) {
	for _, watchers := range []int{0, 1, 10} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) {
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			s := newPlainSource(b)
			objs := make([]*plain, 1000)
			for i := range objs {
				objs[i] = &plain{name: strconv.Itoa(i)}
				must(b)(s.Create(ctx, objs[i]))
			}
			done := make(chan int)
			for range watchers {
				ch, err := s.Watch(ctx, source.WatchOptions{})
				if err != nil {
					b.Fatal(err)
				}
				go func() {
					n := 0
					for range ch {
						n++
					}
					done <- n
				}()
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.Update(ctx, objs[i%len(objs)], ""); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			cancel()
			for range watchers {
				<-done
			}
		})
	}
}

// BenchmarkList measures a page of 500 out of 10,000 objects, at the
// current revision and at one 1,000 writes back.
func BenchmarkList(b *testing.B) {
	ctx := b.Context()
	s := newSource(b, fake.Options[*pod]{})
	for i := range 10000 {
		must(b)(s.Create(ctx, &pod{Name: fmt.Sprintf("%05d", i)}))
	}
	old := s.ResourceVersion()
	for i := range 1000 {
		must(b)(s.Update(ctx, &pod{Name: fmt.Sprintf("%05d", i*10)}, ""))
	}
	for _, tc := range []struct{ name, rv string }{{"current", ""}, {"1000-writes-back", old}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				l, err := s.List(ctx, source.ListOptions{ResourceVersionMatch: source.Exact, ResourceVersion: tc.rv, Limit: 500})
				if err != nil || len(l.Items) != 500 {
					b.Fatal(err, len(l.Items))
				}
			}
		})
	}
}

// BenchmarkWatchThroughput measures the cost per event from write to
// reader.
func BenchmarkWatchThroughput(b *testing.B) {
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	s := newPlainSource(b)
	p := &plain{name: "a"}
	must(b)(s.Create(ctx, p))
	ch, err := s.Watch(ctx, source.WatchOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	go func() {
		for range b.N {
			if _, err := s.Update(ctx, p, ""); err != nil {
				panic(err)
			}
		}
	}()
	for range b.N {
		<-ch
	}
}
