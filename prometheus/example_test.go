package prometheus_test

import (
	"bufio"
	"fmt"
	"net/http/httptest"
	"strings"

	prom "github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ctrlkit/ctrlkit/prometheus"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// A queue metered by a Provider on a private registry, scraped through
// promhttp's handler.
func Example() {
	reg := prom.NewRegistry()
	p, err := prometheus.New(reg, prometheus.Options{})
	if err != nil {
		panic(err)
	}
	q := workqueue.New(workqueue.Options[string]{Name: "pods", Metrics: p})
	defer q.ShutDown()
	q.Add("a")
	q.Add("b")
	q.Add("a") // already pending: not an add
	item, _ := q.Get()
	q.Done(item)

	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		line := sc.Text()
		for _, prefix := range []string{"workqueue_depth", "workqueue_adds_total", "workqueue_work_duration_seconds_count", "workqueue_retries_total"} {
			if strings.HasPrefix(line, prefix+"{") {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// workqueue_adds_total{controller="pods",name="pods"} 2
	// workqueue_depth{controller="pods",name="pods",priority=""} 1
	// workqueue_retries_total{controller="pods",name="pods"} 0
	// workqueue_work_duration_seconds_count{controller="pods",name="pods"} 1
}
