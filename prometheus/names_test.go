package prometheus_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// families is every family the Provider exports, with its type and
// label names (sorted), as the package doc lists them.
var families = map[string]struct {
	typ    dto.MetricType
	labels string
}{
	"workqueue_depth":                             {dto.MetricType_GAUGE, "controller,name,priority"},
	"workqueue_adds_total":                        {dto.MetricType_COUNTER, "controller,name"},
	"workqueue_queue_duration_seconds":            {dto.MetricType_HISTOGRAM, "controller,name"},
	"workqueue_work_duration_seconds":             {dto.MetricType_HISTOGRAM, "controller,name"},
	"workqueue_retries_total":                     {dto.MetricType_COUNTER, "controller,name"},
	"workqueue_unfinished_work_seconds":           {dto.MetricType_GAUGE, "controller,name"},
	"workqueue_longest_running_processor_seconds": {dto.MetricType_GAUGE, "controller,name"},

	"controller_runtime_reconcile_total":                 {dto.MetricType_COUNTER, "controller,result"},
	"controller_runtime_reconcile_errors_total":          {dto.MetricType_COUNTER, "controller"},
	"controller_runtime_terminal_reconcile_errors_total": {dto.MetricType_COUNTER, "controller"},
	"controller_runtime_reconcile_panics_total":          {dto.MetricType_COUNTER, "controller"},
	"controller_runtime_reconcile_time_seconds":          {dto.MetricType_HISTOGRAM, "controller"},
	"controller_runtime_active_workers":                  {dto.MetricType_GAUGE, "controller"},
	"controller_runtime_max_concurrent_reconciles":       {dto.MetricType_GAUGE, "controller"},

	"reflector_lists_total":                        {dto.MetricType_COUNTER, "name"},
	"reflector_watches_total":                      {dto.MetricType_COUNTER, "name"},
	"reflector_short_watches_total":                {dto.MetricType_COUNTER, "name"},
	"reflector_last_resource_version":              {dto.MetricType_GAUGE, "name"},
	"ctrlkit_reflector_events_total":               {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_replaces_total":             {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_resyncs_total":              {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_expired_total":              {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_backoffs_total":             {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_bad_source_total":           {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_store_errors_total":         {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_watch_list_fallbacks_total": {dto.MetricType_COUNTER, "name"},
	"ctrlkit_reflector_transient_errors_total":     {dto.MetricType_COUNTER, "name"},

	"ctrlkit_informer_cache_errors_total":    {dto.MetricType_COUNTER, "informer"},
	"ctrlkit_informer_stale_deltas_total":    {dto.MetricType_COUNTER, "informer"},
	"ctrlkit_informer_mutations_total":       {dto.MetricType_COUNTER, "informer"},
	"ctrlkit_informer_quarantined_total":     {dto.MetricType_COUNTER, "informer"},
	"ctrlkit_informer_callback_panics_total": {dto.MetricType_COUNTER, "informer"},
	"ctrlkit_informer_handler_panics_total":  {dto.MetricType_COUNTER, "handler,informer"},
	"ctrlkit_informer_synced":                {dto.MetricType_GAUGE, "informer"},
	"ctrlkit_informer_handler_pending":       {dto.MetricType_GAUGE, "handler,informer"},

	"ctrlkit_expectations_expired_total": {dto.MetricType_COUNTER, "name"},
	"ctrlkit_events_written_total":       {dto.MetricType_COUNTER, "component"},
	"ctrlkit_events_dropped_total":       {dto.MetricType_COUNTER, "component"},
}

type rvState string

func (rvState) HasSynced() bool                   { return true }
func (s rvState) LastSyncResourceVersion() string { return string(s) }

type handlerState string

func (h handlerState) Name() string { return string(h) }
func (handlerState) Pending() int   { return 3 }

// Over a real HTTP server: one object of each kind exports every family
// of the package doc, with its type, label names and help, and nothing
// else.
func TestNamesOverHTTP(t *testing.T) {
	p, reg := newProvider(t)
	p.QueueMetrics("q", func() workqueue.InFlight { return workqueue.InFlight{} })
	p.ControllerMetrics("c")
	p.ReflectorMetrics("r")
	p.InformerMetrics("i")
	p.HandlerMetrics("i", "h")
	p.ObserveInformer("i", rvState("42"))
	p.ObserveHandler("i", handlerState("h"))
	p.ExpectationsMetrics("e")
	p.EventsMetrics("comp")

	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type %q", ct)
	}
	body, _ := io.ReadAll(resp.Body)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range families {
		f := fams[name]
		if f == nil {
			t.Errorf("%s: missing", name)
			continue
		}
		if f.GetType() != want.typ {
			t.Errorf("%s: type %v, want %v", name, f.GetType(), want.typ)
		}
		if f.GetHelp() == "" {
			t.Errorf("%s: no help", name)
		}
		for _, m := range f.GetMetric() {
			var ls []string
			for _, l := range m.GetLabel() {
				ls = append(ls, l.GetName())
			}
			slices.Sort(ls)
			if got := strings.Join(ls, ","); got != want.labels {
				t.Errorf("%s: labels %s, want %s", name, got, want.labels)
			}
		}
	}
	for name := range fams {
		if _, ok := families[name]; !ok {
			t.Errorf("%s: exported but not documented", name)
		}
	}
	s := scraped(fams)
	s.expect(t, 42, "reflector_last_resource_version", "name", "i")
	s.expect(t, 3, "ctrlkit_informer_handler_pending", "informer", "i", "handler", "h")
	if !strings.Contains(string(body), `workqueue_depth{controller="q",name="q",priority=""} 0`) {
		t.Errorf("no zero depth line for q in\n%s", body)
	}
}

// sink accepts every event.
type sink struct{}

func (sink) Create(context.Context, events.Event) error { return nil }
func (sink) Update(context.Context, events.Event) error { return nil }

// Expectations that expire and a broadcaster that writes and drops.
func TestExpectationsAndEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, reg := newProvider(t)
		exp, err := expectations.New(expectations.Options{
			Name: "rs", TTL: time.Minute, Metrics: p, Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		exp.ExpectCreations("ns/web", 2)
		exp.ExpectCreations("ns/db", 1)
		exp.CreationObserved("ns/db")
		time.Sleep(2 * time.Minute)
		for range 2 { // counted once per record
			exp.Satisfied("ns/web")
			exp.Satisfied("ns/db")
		}

		b, err := events.NewBroadcaster(sink{}, events.Options{Component: "rs-controller", QueueSize: 2, Metrics: p})
		if err != nil {
			t.Fatal(err)
		}
		pod := events.Ref{Kind: "Pod", Namespace: "ns", Name: "web-1"}
		for range 3 { // the third finds the queue full
			b.Event(pod, events.Normal, "Created", "created web-1")
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- b.Run(ctx) }()
		synctest.Wait()

		s := scrape(t, reg)
		s.expect(t, 1, "ctrlkit_expectations_expired_total", "name", "rs")
		s.expect(t, 2, "ctrlkit_events_written_total", "component", "rs-controller")
		s.expect(t, 1, "ctrlkit_events_dropped_total", "component", "rs-controller")
		cancel()
		<-done
	})
}
