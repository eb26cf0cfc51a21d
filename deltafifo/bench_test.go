package deltafifo

import (
	"context"
	"runtime"
	"strconv"
	"testing"
)

const benchObjects = 100_000

func benchObjs(n int) []*obj {
	objs := make([]*obj, n)
	for i := range objs {
		objs[i] = &obj{Key: "ns-" + strconv.Itoa(i%5) + "/pod-" + strconv.Itoa(1_000_000+i), Val: i}
	}
	return objs
}

func noop(Deltas[*obj], bool) error { return nil }

// BenchmarkAddPop: one op is one Add and one Pop with a no-op process, in
// batches of 100k queued objects (issue 7's W5a).
func BenchmarkAddPop(b *testing.B) {
	objs := benchObjs(benchObjects)
	rvs := make([]string, benchObjects)
	for i := range rvs {
		rvs[i] = strconv.Itoa(i + 1)
	}
	f := newFIFO(b, Options[*obj]{KnownObjects: newStore()})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(benchObjects, b.N-done)
		for i := range n {
			if err := f.Add(objs[i], rvs[i]); err != nil {
				b.Fatal(err)
			}
		}
		for range n {
			if err := f.Pop(ctx, noop); err != nil {
				b.Fatal(err)
			}
		}
		done += n
	}
}

// BenchmarkReplacePop: one op is a Replace of 90k objects onto a FIFO
// whose KnownObjects hold 100k (10k inferred deletes), then a Pop of all
// 100k keys (issue 7's W5b). ns/obj, B/obj and allocs/obj are per known
// object.
func BenchmarkReplacePop(b *testing.B) {
	objs := benchObjs(benchObjects)
	known := newStore(objs...)
	list := make([]*obj, 0, benchObjects)
	for i, x := range objs {
		if i%10 != 3 {
			list = append(list, x)
		}
	}
	f := newFIFO(b, Options[*obj]{KnownObjects: known})
	ctx := context.Background()
	var deletes int
	countDeletes := func(ds Deltas[*obj], _ bool) error {
		if ds[len(ds)-1].Type == Deleted {
			deletes++
		}
		return nil
	}
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.Replace(list, strconv.Itoa(i+1)); err != nil {
			b.Fatal(err)
		}
		deletes = 0
		for range benchObjects {
			if err := f.Pop(ctx, countDeletes); err != nil {
				b.Fatal(err)
			}
		}
		if deletes != benchObjects/10 {
			b.Fatalf("%d inferred deletes, want %d", deletes, benchObjects/10)
		}
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	objects := float64(b.N * benchObjects)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/objects, "ns/obj")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/objects, "B/obj")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/objects, "allocs/obj")
}
