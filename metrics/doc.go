// Package metrics holds the three instrument interfaces every ctrlkit
// package reports through — Counter, Gauge and Histogram — so that an
// adapter to a metrics library (Prometheus, OpenTelemetry) is written once.
//
// There is no global registry and no global provider. Each package that reports
// metrics has its own MetricsProvider interface, set per object in its
// Options, whose one method returns a struct of instruments for one named
// object (a queue, a reflector, an informer, a controller). A nil field of
// that struct is not recorded. The names of the fields map one to one to
// the metric names of client-go and controller-runtime where those exist;
// each package's MetricsProvider doc lists them.
//
// The interfaces are the subsets of the Prometheus client's Counter,
// Gauge and Histogram that ctrlkit calls, so its types satisfy them
// directly. Implementations must be safe for concurrent use and fast:
// they are called on hot paths, some with a lock held.
//
// Registry is a standard-library implementation for programs that want
// metrics without the Prometheus client: families of counters, gauges
// and histograms with fixed label names, and gauges read at each scrape
// (GaugeFunc), written in the Prometheus text exposition format
// (WriteText, ServeHTTP). `ctrlkit up --listen` serves one at /metrics in
// the default build; the prometheus module's build replaces it.
package metrics
