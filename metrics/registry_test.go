package metrics_test

import (
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// The text exposition format: HELP and TYPE, families sorted by name,
// series by label values, cumulative histogram buckets with +Inf, _sum
// and _count, escaped label values, function gauges read at the scrape.
func TestRegistryText(t *testing.T) {
	r := metrics.NewRegistry()
	req := r.Counter("requests_total", "Requests.\nBy code.", "code", "path")
	req.With("200", "/a").Inc()
	req.With("200", "/a").Inc()
	req.With("404", `q"\`+"\n").Inc()
	r.Gauge("depth", "Depth.", "name").Gauge("q").Set(2.5)
	h := r.Histogram("latency_seconds", "Latency.", []float64{1, 0.1}, "verb").With("GET")
	for _, v := range []float64{0.05, 0.1, 0.5, 7} {
		h.Observe(v)
	}
	leading := 0.0
	r.GaugeFunc("leader", "Leader.", []string{"name"}, func() []metrics.Sample {
		return []metrics.Sample{{Labels: []string{"x"}, Value: leading}}
	})
	r.Counter("unused_total", "Never incremented: not written.")
	r.CounterFunc("attempts_total", "Attempts.", []string{"result"}, func() []metrics.Sample {
		return []metrics.Sample{{Labels: []string{"scheduled"}, Value: 3}}
	})
	leading = 1
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	require.Equal(t, `# HELP attempts_total Attempts.
# TYPE attempts_total counter
attempts_total{result="scheduled"} 3
# HELP depth Depth.
# TYPE depth gauge
depth{name="q"} 2.5
# HELP latency_seconds Latency.
# TYPE latency_seconds histogram
latency_seconds_bucket{verb="GET",le="0.1"} 2
latency_seconds_bucket{verb="GET",le="1"} 3
latency_seconds_bucket{verb="GET",le="+Inf"} 4
latency_seconds_sum{verb="GET"} 7.65
latency_seconds_count{verb="GET"} 4
# HELP leader Leader.
# TYPE leader gauge
leader{name="x"} 1
# HELP requests_total Requests.\nBy code.
# TYPE requests_total counter
requests_total{code="200",path="/a"} 2
requests_total{code="404",path="q\"\\\n"} 1
`, b.String())

	w := httptest.NewRecorder()
	r.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, "text/plain; version=0.0.4; charset=utf-8", w.Header().Get("Content-Type"))
	require.Equal(t, b.String(), w.Body.String())

	require.Panics(t, func() { r.Gauge("requests_total", "again", "code", "path") }, "another type under a taken name")
	require.Panics(t, func() { req.With("200") }, "too few label values")
}

// Instruments are safe for concurrent use: no increment is lost.
func TestRegistryConcurrent(t *testing.T) {
	r := metrics.NewRegistry()
	c := r.Counter("n_total", "N.", "k")
	h := r.Histogram("h", "H.", []float64{1}, "k")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				c.With("a").Inc()
				h.With("a").Observe(0.5)
			}
		})
	}
	wg.Wait()
	var b strings.Builder
	require.NoError(t, r.WriteText(&b))
	require.Contains(t, b.String(), `n_total{k="a"} 8000`)
	require.Contains(t, b.String(), `h_count{k="a"} 8000`)
}
