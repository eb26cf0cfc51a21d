package prometheus

import (
	"strings"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"
)

// pullGauge is a gauge vector whose values are read at scrape time from
// functions added per object. Functions under the same label values are
// combined with agg.
type pullGauge struct {
	desc *prom.Desc
	agg  func(a, b float64) float64

	mu   sync.Mutex
	next uint64
	fns  map[uint64]pullFn
}

type pullFn struct {
	lv   []string
	read func() (float64, bool) // false: no value now
}

func sum(a, b float64) float64     { return a + b }
func maximum(a, b float64) float64 { return max(a, b) }
func minimum(a, b float64) float64 { return min(a, b) }

func newPullGauge(name, help string, labels []string, agg func(a, b float64) float64) *pullGauge {
	return &pullGauge{desc: prom.NewDesc(name, help, labels, nil), agg: agg, fns: map[uint64]pullFn{}}
}

// add makes read a source of the series lv until remove is called.
func (g *pullGauge) add(lv []string, read func() (float64, bool)) (remove func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id := g.next
	g.next++
	g.fns[id] = pullFn{lv: lv, read: read}
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.fns, id)
	}
}

// Describe implements prometheus.Collector.
func (g *pullGauge) Describe(ch chan<- *prom.Desc) { ch <- g.desc }

// Collect implements prometheus.Collector. The functions are called
// without g's lock held.
func (g *pullGauge) Collect(ch chan<- prom.Metric) {
	g.mu.Lock()
	fns := make([]pullFn, 0, len(g.fns))
	for _, f := range g.fns {
		fns = append(fns, f)
	}
	g.mu.Unlock()
	type series struct {
		lv []string
		v  float64
	}
	var order []string
	by := map[string]*series{}
	for _, f := range fns {
		v, ok := f.read()
		if !ok {
			continue
		}
		k := strings.Join(f.lv, "\xff")
		if s, seen := by[k]; seen {
			s.v = g.agg(s.v, v)
			continue
		}
		by[k] = &series{lv: f.lv, v: v}
		order = append(order, k)
	}
	for _, k := range order {
		s := by[k]
		ch <- prom.MustNewConstMetric(g.desc, prom.GaugeValue, s.v, s.lv...)
	}
}
