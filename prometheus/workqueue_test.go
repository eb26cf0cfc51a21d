package prometheus_test

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/prometheus"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// A queue's push and pull metrics, after real operations, in a bubble so
// that the durations are exact.
func TestQueueMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, reg := newProvider(t)
		q := workqueue.New(workqueue.Options[string]{Name: "pods", Metrics: p})
		defer q.ShutDown()
		lv := []string{"name", "pods", "controller", "pods"}

		s := scrape(t, reg) // every series exists before the first event
		s.expect(t, 0, "workqueue_depth", "name", "pods", "controller", "pods", "priority", "")
		s.expect(t, 0, "workqueue_adds_total", lv...)
		s.expect(t, 0, "workqueue_unfinished_work_seconds", lv...)

		q.Add("a")
		q.Add("b")
		q.Add("a") // already pending: not counted
		time.Sleep(time.Second)
		a, _ := q.Get()
		time.Sleep(2 * time.Second)
		b, _ := q.Get()
		time.Sleep(time.Second)

		s = scrape(t, reg)
		s.expect(t, 0, "workqueue_depth", "name", "pods", "controller", "pods", "priority", "")
		s.expect(t, 2, "workqueue_adds_total", lv...)
		s.expect(t, 2, "workqueue_queue_duration_seconds", lv...)
		if got := s.sum(t, "workqueue_queue_duration_seconds", lv...); got != 1+3 {
			t.Errorf("queue duration sum = %v, want 4", got)
		}
		s.expect(t, 3+1, "workqueue_unfinished_work_seconds", lv...)
		s.expect(t, 3, "workqueue_longest_running_processor_seconds", lv...)
		s.expect(t, 0, "workqueue_work_duration_seconds", lv...)

		q.Done(a)
		q.AddRateLimited(b)
		q.Done(b)
		s = scrape(t, reg)
		s.expect(t, 2, "workqueue_work_duration_seconds", lv...)
		if got := s.sum(t, "workqueue_work_duration_seconds", lv...); got != 3+1 {
			t.Errorf("work duration sum = %v, want 4", got)
		}
		s.expect(t, 1, "workqueue_retries_total", lv...)
		s.expect(t, 0, "workqueue_unfinished_work_seconds", lv...)
		s.expect(t, 0, "workqueue_longest_running_processor_seconds", lv...)

		time.Sleep(time.Minute) // b's backoff ends: b is pending again
		s = scrape(t, reg)
		s.expect(t, 1, "workqueue_depth", "name", "pods", "controller", "pods", "priority", "")
		s.expect(t, 3, "workqueue_adds_total", lv...)

		h := s.find("workqueue_queue_duration_seconds", lv...).GetHistogram()
		var bounds []float64
		for _, b := range h.GetBucket()[:len(h.GetBucket())-1] { // the parser adds +Inf
			bounds = append(bounds, b.GetUpperBound())
		}
		if want := prometheus.DefaultQueueBuckets(); !slices.Equal(bounds, want) {
			t.Errorf("buckets %v, want %v", bounds, want)
		}
	})
}

// Objects of one name share their series, without a panic: counters add
// up, set gauges sum, the longest processor is the maximum.
func TestSameNameShares(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, reg := newProvider(t)
		q1 := workqueue.New(workqueue.Options[int]{Name: "dup", Metrics: p})
		q2 := workqueue.New(workqueue.Options[int]{Name: "dup", Metrics: p})
		defer q1.ShutDown()
		defer q2.ShutDown()
		q1.Add(1)
		q1.Add(2)
		q1.Add(3)
		q2.Add(1)
		i, _ := q1.Get()
		time.Sleep(2 * time.Second)
		j, _ := q2.Get()
		time.Sleep(time.Second)

		lv := []string{"name", "dup", "controller", "dup"}
		s := scrape(t, reg)
		s.expect(t, 4, "workqueue_adds_total", lv...)
		s.expect(t, 2, "workqueue_depth", "name", "dup", "controller", "dup", "priority", "")
		s.expect(t, 3+1, "workqueue_unfinished_work_seconds", lv...)
		s.expect(t, 3, "workqueue_longest_running_processor_seconds", lv...)
		if n := len(s["workqueue_adds_total"].GetMetric()); n != 1 {
			t.Errorf("%d workqueue_adds_total series, want 1", n)
		}
		q1.Done(i)
		q2.Done(j)
		s = scrape(t, reg)
		s.expect(t, 2, "workqueue_work_duration_seconds", lv...)
		s.expect(t, 0, "workqueue_longest_running_processor_seconds", lv...)
	})
}

// Two Providers on one registry share the collectors; a foreign collector
// under one of the names makes New fail and leaves nothing registered.
func TestRegistration(t *testing.T) {
	if _, err := prometheus.New(nil, prometheus.Options{}); err == nil {
		t.Error("New(nil) succeeded")
	}

	reg := prom.NewRegistry()
	p1, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p2, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		t.Fatalf("second New on one registry: %v", err)
	}
	p1.QueueMetrics("q", nil).Adds.Inc()
	p2.QueueMetrics("q", nil).Adds.Inc()
	scrape(t, reg).expect(t, 2, "workqueue_adds_total", "name", "q", "controller", "q")

	reg = prom.NewRegistry()
	foreign := prom.NewGauge(prom.GaugeOpts{Name: "controller_runtime_active_workers", Help: "other"})
	reg.MustRegister(foreign)
	_, err = prometheus.New(reg, prometheus.Options{})
	if err == nil {
		t.Fatal("New over a conflicting collector succeeded")
	}
	var are prom.AlreadyRegisteredError
	if errors.As(err, &are) {
		t.Errorf("error is AlreadyRegisteredError: %v", err)
	}
	fams, gerr := reg.Gather()
	if gerr != nil {
		t.Fatal(gerr)
	}
	var names []string
	for _, f := range fams {
		names = append(names, f.GetName())
	}
	if !slices.Equal(names, []string{"controller_runtime_active_workers"}) {
		t.Errorf("after a failed New the registry holds %v", names)
	}
}

// Options.QueueBuckets and ReconcileBuckets replace the defaults.
func TestBuckets(t *testing.T) {
	reg := prom.NewRegistry()
	p, err := prometheus.New(reg, prometheus.Options{QueueBuckets: []float64{1, 2}, ReconcileBuckets: []float64{3}})
	if err != nil {
		t.Fatal(err)
	}
	p.QueueMetrics("q", nil).WorkDuration.Observe(1.5)
	p.ControllerMetrics("c").ReconcileTime.Observe(1)
	s := scrape(t, reg)
	bounds := func(name string, labels ...string) []float64 {
		var out []float64
		for _, b := range s.find(name, labels...).GetHistogram().GetBucket() {
			out = append(out, b.GetUpperBound())
		}
		if n := len(out); n > 0 && math.IsInf(out[n-1], 1) {
			out = out[:n-1] // the text parser adds +Inf
		}
		return out
	}
	if got := bounds("workqueue_work_duration_seconds", "name", "q", "controller", "q"); !slices.Equal(got, []float64{1, 2}) {
		t.Errorf("queue buckets %v", got)
	}
	if got := bounds("controller_runtime_reconcile_time_seconds", "controller", "c"); !slices.Equal(got, []float64{3}) {
		t.Errorf("reconcile buckets %v", got)
	}
}

// Queues of one name created, used and scraped from many goroutines at
// once: no panic, no race, and the adds all counted.
func TestConcurrentSameName(t *testing.T) {
	p, reg := newProvider(t)
	const n, items = 8, 100
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			q := workqueue.New(workqueue.Options[int]{Name: "shared", Metrics: p})
			defer q.ShutDown()
			stop := p.ObserveInformer("shared", informerStub{})
			defer stop()
			for i := range items {
				q.Add(i)
				it, _ := q.Get()
				q.Done(it)
			}
		})
		wg.Go(func() { _ = scrape(t, reg) })
	}
	wg.Wait()
	s := scrape(t, reg)
	s.expect(t, n*items, "workqueue_adds_total", "name", "shared", "controller", "shared")
	s.expect(t, n*items, "workqueue_work_duration_seconds", "name", "shared", "controller", "shared")
	s.expect(t, 0, "workqueue_depth", "name", "shared", "controller", "shared", "priority", "")
}

type informerStub struct{}

func (informerStub) HasSynced() bool                 { return false }
func (informerStub) LastSyncResourceVersion() string { return "" }
