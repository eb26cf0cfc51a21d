package metrics

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Registry is a set of metric families written in the Prometheus text
// exposition format (version 0.0.4) by WriteText and ServeHTTP, with the
// standard library only: what `ctrlkit up --listen` serves at /metrics
// in the default build. A family is a counter, gauge or histogram with a
// fixed list of label names; With returns (creating it once) the series
// of one list of label values. Series are never removed, so a family's
// label values must come from a bounded set. A Registry is safe for
// concurrent use; its instruments implement Counter, Gauge and
// Histogram.
type Registry struct {
	mu       sync.Mutex
	families map[string]*family
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{families: map[string]*family{}} }

// family is one metric name and its series.
type family struct {
	name, help, typ string
	labels          []string
	buckets         []float64 // histogram
	fn              func() []Sample

	mu     sync.Mutex
	series map[string]*series
}

// Sample is one series a function family reports at each scrape: the
// values of the family's labels, and the value.
type Sample struct {
	// Labels are the values of the family's labels, in their order.
	Labels []string
	// Value is the series' value.
	Value float64
}

// series is one series: a float value (counter, gauge) or a histogram.
type series struct {
	labels []string
	bits   atomic.Uint64 // counter or gauge value, or histogram sum

	mu     sync.Mutex // histogram
	counts []uint64   // per bucket, not cumulative; the last is +Inf
	count  uint64
	sum    float64
}

func (s *series) add(v float64) {
	for {
		old := s.bits.Load()
		if s.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Vec is a family of counters or gauges; With picks one series.
type Vec struct{ f *family }

// HistogramVec is a family of histograms; With picks one series.
type HistogramVec struct{ f *family }

func (r *Registry) family(name, help, typ string, buckets []float64, labels []string) *family {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f, ok := r.families[name]; ok {
		if f.typ != typ || !slices.Equal(f.labels, labels) {
			panic(fmt.Sprintf("metrics: %s registered twice with different types or labels", name))
		}
		return f
	}
	f := &family{name: name, help: help, typ: typ, labels: labels, buckets: buckets, series: map[string]*series{}}
	r.families[name] = f
	return f
}

// Counter returns the counter family name (registering it the first
// time) with the label names labels.
func (r *Registry) Counter(name, help string, labels ...string) Vec {
	return Vec{r.family(name, help, "counter", nil, labels)}
}

// Gauge returns the gauge family name with the label names labels.
func (r *Registry) Gauge(name, help string, labels ...string) Vec {
	return Vec{r.family(name, help, "gauge", nil, labels)}
}

// Histogram returns the histogram family name with the upper bounds
// buckets (sorted; +Inf is implied) and the label names labels.
func (r *Registry) Histogram(name, help string, buckets []float64, labels ...string) HistogramVec {
	b := slices.Clone(buckets)
	sort.Float64s(b)
	return HistogramVec{r.family(name, help, "histogram", b, labels)}
}

// GaugeFunc registers a gauge family whose series fn reports at each
// scrape (a leader's status, a queue's length read from its owner). fn
// must be safe to call from any goroutine.
func (r *Registry) GaugeFunc(name, help string, labels []string, fn func() []Sample) {
	f := r.family(name, help, "gauge", nil, labels)
	f.mu.Lock()
	f.fn = fn
	f.mu.Unlock()
}

// CounterFunc registers a counter family whose series fn reports at each
// scrape: totals another component keeps (a scheduler's attempts). fn
// must be safe to call from any goroutine and its values must never
// decrease.
func (r *Registry) CounterFunc(name, help string, labels []string, fn func() []Sample) {
	f := r.family(name, help, "counter", nil, labels)
	f.mu.Lock()
	f.fn = fn
	f.mu.Unlock()
}

func (f *family) with(values []string) *series {
	if len(values) != len(f.labels) {
		panic(fmt.Sprintf("metrics: %s has %d labels, got %d values", f.name, len(f.labels), len(values)))
	}
	key := strings.Join(values, "\xff")
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.series[key]
	if !ok {
		s = &series{labels: slices.Clone(values)}
		if f.typ == "histogram" {
			s.counts = make([]uint64, len(f.buckets)+1)
		}
		f.series[key] = s
	}
	return s
}

type counterSeries struct{ s *series }

func (c counterSeries) Inc() { c.s.add(1) }

type gaugeSeries struct{ s *series }

func (g gaugeSeries) Set(v float64) { g.s.bits.Store(math.Float64bits(v)) }

type histogramSeries struct {
	s       *series
	buckets []float64
}

func (h histogramSeries) Observe(v float64) {
	i := sort.SearchFloat64s(h.buckets, v) // first bound >= v
	h.s.mu.Lock()
	h.s.counts[i]++
	h.s.count++
	h.s.sum += v
	h.s.mu.Unlock()
}

// With returns the counter of the label values values (as many as the
// family has labels).
func (v Vec) With(values ...string) Counter { return counterSeries{v.f.with(values)} }

// Gauge returns the gauge of the label values values.
func (v Vec) Gauge(values ...string) Gauge { return gaugeSeries{v.f.with(values)} }

// With returns the histogram of the label values values.
func (v HistogramVec) With(values ...string) Histogram {
	return histogramSeries{v.f.with(values), v.f.buckets}
}

// ServeHTTP writes the registry in the text exposition format.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_ = r.WriteText(w)
}

// WriteText writes every family, sorted by name, each series sorted by
// its label values, in the Prometheus text exposition format.
func (r *Registry) WriteText(w io.Writer) error {
	r.mu.Lock()
	fams := make([]*family, 0, len(r.families))
	for _, f := range r.families {
		fams = append(fams, f)
	}
	r.mu.Unlock()
	sort.Slice(fams, func(i, j int) bool { return fams[i].name < fams[j].name })
	bw := bufio.NewWriter(w)
	for _, f := range fams {
		f.write(bw)
	}
	return bw.Flush()
}

func (f *family) write(w *bufio.Writer) {
	f.mu.Lock()
	fn := f.fn
	list := make([]*series, 0, len(f.series))
	for _, s := range f.series {
		list = append(list, s)
	}
	f.mu.Unlock()
	var samples []Sample
	if fn != nil {
		samples = fn()
	}
	if len(list) == 0 && len(samples) == 0 {
		return
	}
	fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n", f.name, escapeHelp(f.help), f.name, f.typ)
	sort.Slice(list, func(i, j int) bool { return slices.Compare(list[i].labels, list[j].labels) < 0 })
	sort.Slice(samples, func(i, j int) bool { return slices.Compare(samples[i].Labels, samples[j].Labels) < 0 })
	for _, s := range samples {
		fmt.Fprintf(w, "%s%s %s\n", f.name, labelText(f.labels, s.Labels, "", ""), formatFloat(s.Value))
	}
	for _, s := range list {
		if f.typ != "histogram" {
			fmt.Fprintf(w, "%s%s %s\n", f.name, labelText(f.labels, s.labels, "", ""), formatFloat(math.Float64frombits(s.bits.Load())))
			continue
		}
		s.mu.Lock()
		counts, count, sum := slices.Clone(s.counts), s.count, s.sum
		s.mu.Unlock()
		var cum uint64
		for i, b := range f.buckets {
			cum += counts[i]
			fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.labels, "le", formatFloat(b)), cum)
		}
		fmt.Fprintf(w, "%s_bucket%s %d\n", f.name, labelText(f.labels, s.labels, "le", "+Inf"), count)
		fmt.Fprintf(w, "%s_sum%s %s\n", f.name, labelText(f.labels, s.labels, "", ""), formatFloat(sum))
		fmt.Fprintf(w, "%s_count%s %d\n", f.name, labelText(f.labels, s.labels, "", ""), count)
	}
}

// labelText is {a="x",b="y"} (with extra="value" last when extra is
// set), or "" with no labels.
func labelText(names, values []string, extra, extraValue string) string {
	if len(names) == 0 && extra == "" {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(n)
		b.WriteString(`="`)
		b.WriteString(escapeValue(values[i]))
		b.WriteByte('"')
	}
	if extra != "" {
		if len(names) > 0 {
			b.WriteByte(',')
		}
		b.WriteString(extra)
		b.WriteString(`="`)
		b.WriteString(extraValue)
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

var (
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeValue(s string) string { return valueEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

// formatFloat writes v as Prometheus does: the shortest form, +Inf,
// -Inf and NaN by name.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
