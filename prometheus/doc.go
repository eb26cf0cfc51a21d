// Package prometheus exports ctrlkit's metrics through the Prometheus
// client (github.com/prometheus/client_golang), under the names that
// client-go, controller-runtime and kube-controller-manager dashboards
// already use. Its package name is that of the client's; import one of
// them under another name.
//
// A Provider implements every ctrlkit MetricsProvider — workqueue,
// reflector, informer, expectations, reconcile and events — so one value
// goes in every Options.Metrics field:
//
//	reg := prom.NewRegistry()
//	p, err := prometheus.New(reg, prometheus.Options{})
//	...
//	reconcile.New("deployment", r, reconcile.Options[string]{Metrics: p, QueueMetrics: p})
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// # Contract
//
// New registers its collectors on the Registerer it is given; there is no
// default and the global registry is never touched. Each collector is
// created once, by New; the methods called by ctrlkit's constructors
// return children of them for the object's name. Two objects of the same
// name (two queues, a controller built twice in a test) do not panic and
// share their series: counters and histograms add up, gauges that are
// set (workqueue_depth, controller_runtime_active_workers,
// controller_runtime_max_concurrent_reconciles) report the sum of each
// object's last value, and of the gauges read at scrape
// workqueue_unfinished_work_seconds and ctrlkit_informer_handler_pending
// sum, workqueue_longest_running_processor_seconds and
// reflector_last_resource_version take the maximum and
// ctrlkit_informer_synced the minimum. Two
// Providers on one registry share the collectors too (New reuses an
// identical registered collector). Series are never deleted: ctrlkit's
// interfaces have no call for an object that is gone, so a Provider also
// keeps each queue's in-flight function (and so the queue) for its own
// lifetime. Use one Provider per registry for the life of the process,
// or a fresh registry and Provider per test.
//
// All children are created when the object is, so every series of an
// object is exported, at 0, before its first event.
//
// # Names
//
// Names that client-go or controller-runtime define keep their name,
// labels, help and buckets (controller-runtime v0.25's; the help of
// workqueue_retries_total is client-go's, whose meaning ctrlkit's
// counter has); names ctrlkit adds are prefixed ctrlkit_.
//
// Queues (workqueue.MetricsProvider), labels name and controller, both
// the queue's name, as controller-runtime sets them; workqueue_depth
// also has priority, always "" (ctrlkit's depth is not split by
// priority):
//
//	workqueue_depth                              gauge
//	workqueue_adds_total                         counter
//	workqueue_queue_duration_seconds             histogram, 1e-8..1e3 by ×10
//	workqueue_work_duration_seconds              histogram, 1e-8..1e3 by ×10
//	workqueue_retries_total                      counter (AddRateLimited calls)
//	workqueue_unfinished_work_seconds            gauge, computed at scrape
//	workqueue_longest_running_processor_seconds  gauge, computed at scrape
//
// Controllers (reconcile.MetricsProvider), label controller:
//
//	controller_runtime_reconcile_total{result}           counter; result is success, error,
//	                                                     requeue_after, requeue or terminal
//	controller_runtime_reconcile_errors_total            counter
//	controller_runtime_terminal_reconcile_errors_total   counter
//	controller_runtime_reconcile_panics_total            counter
//	controller_runtime_reconcile_time_seconds            histogram, 5ms..60s
//	controller_runtime_active_workers                    gauge
//	controller_runtime_max_concurrent_reconciles         gauge
//
// result="terminal" and the meaning of result="requeue" are ctrlkit's
// (see reconcile.Metrics); controller-runtime's
// controller_runtime_reconcile_timeouts_total has no ctrlkit counterpart.
//
// Reflectors (reflector.MetricsProvider), label name. The counters that
// client-go's reflector exported until Kubernetes 1.14 removed them
// (kubernetes/kubernetes#74636: their names had random suffixes, so the
// series leaked) keep their names; the rest are ctrlkit's. Name
// reflectors stably here too: series are never deleted.
//
//	reflector_lists_total                         counter (one per List call, so per page)
//	reflector_watches_total                       counter
//	reflector_short_watches_total                 counter
//	ctrlkit_reflector_events_total                counter
//	ctrlkit_reflector_replaces_total              counter
//	ctrlkit_reflector_resyncs_total               counter
//	ctrlkit_reflector_expired_total               counter
//	ctrlkit_reflector_backoffs_total              counter
//	ctrlkit_reflector_bad_source_total            counter
//	ctrlkit_reflector_store_errors_total          counter
//	ctrlkit_reflector_watch_list_fallbacks_total  counter
//	ctrlkit_reflector_transient_errors_total      counter
//
// Informers (informer.MetricsProvider), label informer, and handler for
// handler registrations:
//
//	ctrlkit_informer_cache_errors_total            counter
//	ctrlkit_informer_stale_deltas_total            counter
//	ctrlkit_informer_mutations_total               counter
//	ctrlkit_informer_quarantined_total             counter
//	ctrlkit_informer_callback_panics_total         counter
//	ctrlkit_informer_handler_panics_total          counter {informer, handler}
//
// and, read at scrape from what Provider.ObserveInformer and
// Provider.ObserveHandler are given (the informer interfaces have no
// such instruments):
//
//	ctrlkit_informer_synced                        gauge, 1 once the first list is applied
//	reflector_last_resource_version{name}          gauge, when the version is numeric
//	ctrlkit_informer_handler_pending               gauge {informer, handler}: the handler's lag,
//	                                               notifications not yet delivered
//
// Expectations (label name) and event broadcasters (label component):
//
//	ctrlkit_expectations_expired_total  counter
//	ctrlkit_events_written_total        counter
//	ctrlkit_events_dropped_total        counter
package prometheus
