package prometheus_test

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ctrlkit/ctrlkit/prometheus"
)

// newProvider returns a Provider on a fresh registry.
func newProvider(t *testing.T) (*prometheus.Provider, *prom.Registry) {
	t.Helper()
	reg := prom.NewRegistry()
	p, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p, reg
}

// scraped is one scrape of promhttp's handler, parsed.
type scraped map[string]*dto.MetricFamily

// scrape serves one GET /metrics from promhttp's handler for reg and
// parses the text it returns. It needs no network, so it also works
// inside a synctest bubble.
func scrape(t *testing.T, reg prom.Gatherer) scraped {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/metrics", nil)
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.PanicOnError}).ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// find returns the series of family name whose labels are exactly
// labels (name, value pairs), or nil.
func (s scraped) find(name string, labels ...string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(want) {
			continue
		}
		ok := true
		for _, l := range m.GetLabel() {
			if v, has := want[l.GetName()]; !has || v != l.GetValue() {
				ok = false
			}
		}
		if ok {
			return m
		}
	}
	return nil
}

// value returns the value of a counter or gauge series, or the sample
// count of a histogram series; it fails t if the series is missing.
func (s scraped) value(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	m := s.find(name, labels...)
	if m == nil {
		t.Fatalf("no series %s%v; have %s", name, labels, s.dump(name))
	}
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	t.Fatalf("series %s%v has no value", name, labels)
	return 0
}

// sum returns the sample sum of a histogram series.
func (s scraped) sum(t *testing.T, name string, labels ...string) float64 {
	t.Helper()
	m := s.find(name, labels...)
	if m == nil || m.Histogram == nil {
		t.Fatalf("no histogram %s%v; have %s", name, labels, s.dump(name))
	}
	return m.Histogram.GetSampleSum()
}

// expect checks the value of a series.
func (s scraped) expect(t *testing.T, want float64, name string, labels ...string) {
	t.Helper()
	if got := s.value(t, name, labels...); got != want {
		t.Errorf("%s%v = %v, want %v", name, labels, got, want)
	}
}

// dump lists the series of family name, for failure messages.
func (s scraped) dump(name string) string {
	f := s[name]
	if f == nil {
		return "no such family"
	}
	var out []string
	for _, m := range f.GetMetric() {
		var ls []string
		for _, l := range m.GetLabel() {
			ls = append(ls, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
		}
		out = append(out, "{"+strings.Join(ls, ",")+"}")
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}
