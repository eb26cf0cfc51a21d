package indexer

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// The benchmark workload (the bench/ module runs the same against
// client-go): 100,000 pods in 100 namespaces with 1,000 distinct "app"
// labels, indexed by namespace and by app, added in shuffled order.

type benchPod struct {
	Namespace, Name string
	Labels          map[string]string
}

const benchN = 100_000

func benchKey(p *benchPod) string { return p.Namespace + "/" + p.Name }

func benchIndexers() Indexers[*benchPod] {
	return Indexers[*benchPod]{
		"namespace": func(p *benchPod) ([]string, error) { return []string{p.Namespace}, nil },
		"app":       func(p *benchPod) ([]string, error) { return []string{p.Labels["app"]}, nil },
	}
}

// benchPods builds n pods; labelPrefix varies the app label between
// generations of the same pods.
func benchPods(n int, labelPrefix string, shuffle bool) []*benchPod {
	pods := make([]*benchPod, n)
	for i := range pods {
		pods[i] = &benchPod{
			Namespace: fmt.Sprintf("ns-%03d", i%100),
			Name:      fmt.Sprintf("pod-%06d", i),
			Labels:    map[string]string{"app": fmt.Sprintf("%sapp-%03d", labelPrefix, i%1000)},
		}
	}
	if shuffle {
		r := rand.New(rand.NewPCG(1, 2))
		r.Shuffle(n, func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	}
	return pods
}

func benchIndexer(b *testing.B, pods []*benchPod) *Indexer[*benchPod] {
	x, err := New(benchKey, benchIndexers())
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range pods {
		if err := x.Add(p); err != nil {
			b.Fatal(err)
		}
	}
	return x
}

func BenchmarkAdd100k(b *testing.B) {
	for _, shuffle := range []bool{true, false} {
		name := "generated" // keys of the 100 namespaces interleaved
		if shuffle {
			name = "shuffled"
		}
		b.Run(name, func(b *testing.B) {
			pods := benchPods(benchN, "", shuffle)
			b.ReportAllocs()
			for b.Loop() {
				benchIndexer(b, pods)
			}
		})
	}
}

func BenchmarkReplace100k(b *testing.B) {
	pods := benchPods(benchN, "", true)
	x := benchIndexer(b, nil)
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Replace(pods, "1"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdate100k(b *testing.B) {
	gens := [2][]*benchPod{benchPods(benchN, "", true), benchPods(benchN, "v2-", true)}
	x := benchIndexer(b, gens[0])
	b.ReportAllocs()
	g := 0
	for b.Loop() {
		g = 1 - g
		for _, p := range gens[g] {
			if err := x.Update(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkFirstOrderedRead measures what Add defers: the first ordered
// read after adding 100,000 objects folds the logs of the store and both
// indexes (sorts 300,000 changes and builds the leaves).
func BenchmarkFirstOrderedRead(b *testing.B) {
	for _, shuffle := range []bool{true, false} {
		name := "generated"
		if shuffle {
			name = "shuffled"
		}
		b.Run(name, func(b *testing.B) {
			pods := benchPods(benchN, "", shuffle)
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				x := benchIndexer(b, pods)
				b.StartTimer()
				if _, err := x.ByIndex("app", "app-042"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpdateUnindexed updates every object with a copy whose indexed
// values are the same (the common informer update): no index work, the
// object is written into its cell.
func BenchmarkUpdateUnindexed(b *testing.B) {
	pods := benchPods(benchN, "", true)
	gens := [2][]*benchPod{pods, make([]*benchPod, len(pods))}
	for i, p := range pods {
		c := *p
		gens[1][i] = &c
	}
	x := benchIndexer(b, gens[0])
	b.ReportAllocs()
	g := 0
	for b.Loop() {
		g = 1 - g
		for _, p := range gens[g] {
			if err := x.Update(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkByIndex(b *testing.B) {
	x := benchIndexer(b, benchPods(benchN, "", true))
	for _, c := range []struct{ name, value string }{{"namespace", "ns-042"}, {"app", "app-042"}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := x.ByIndex(c.name, c.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkGet(b *testing.B) {
	pods := benchPods(benchN, "", true)
	x := benchIndexer(b, pods)
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = benchKey(p)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := x.Get(keys[i%len(keys)]); !ok {
			b.Fatal("missing")
		}
		i++
	}
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkBytesPerObject reports the heap the store and its two indexes
// retain per object (keys included, the objects themselves excluded),
// after adding 100,000 objects and after then updating each one with a
// changed label.
func BenchmarkBytesPerObject(b *testing.B) {
	for _, c := range []struct {
		name    string
		shuffle bool
		replace bool
	}{{"add-shuffled", true, false}, {"add-generated", false, false}, {"replace", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			pods := benchPods(benchN, "", c.shuffle)
			next := benchPods(benchN, "v2-", true)
			var added, updated float64
			for b.Loop() {
				before := heapAlloc()
				x := benchIndexer(b, nil)
				if c.replace {
					if err := x.Replace(pods, "1"); err != nil {
						b.Fatal(err)
					}
				} else {
					for _, p := range pods {
						if err := x.Add(p); err != nil {
							b.Fatal(err)
						}
					}
				}
				added = float64(heapAlloc()-before) / benchN
				for _, p := range next {
					if err := x.Update(p); err != nil {
						b.Fatal(err)
					}
				}
				updated = float64(heapAlloc()-before) / benchN
				runtime.KeepAlive(x)
			}
			b.ReportMetric(added, "B/obj")
			b.ReportMetric(updated, "B/obj-updated")
		})
	}
}
