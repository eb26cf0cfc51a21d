package metrics_test

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// count is the smallest Counter: an atomic integer.
type count struct{ atomic.Int64 }

func (c *count) Inc() { c.Add(1) }

// Or fills a nil instrument with Nop, so that code can call it
// unconditionally.
func ExampleOr() {
	var unset metrics.Counter
	set := &count{}
	for _, c := range []metrics.Counter{metrics.Or(unset), metrics.Or[metrics.Counter](set)} {
		c.Inc()
	}
	fmt.Println(set.Load())
	// Output: 1
}

// A Registry written in Prometheus' text format.
func ExampleRegistry() {
	r := metrics.NewRegistry()
	r.Counter("jobs_total", "Jobs done.", "result").With("ok").Inc()
	_ = r.WriteText(os.Stdout)
	// Output:
	// # HELP jobs_total Jobs done.
	// # TYPE jobs_total counter
	// jobs_total{result="ok"} 1
}
