package prometheus

import (
	"math"
	"strconv"
	"sync/atomic"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/events"
	"github.com/ctrlkit/ctrlkit/expectations"
	"github.com/ctrlkit/ctrlkit/informer"
	"github.com/ctrlkit/ctrlkit/reconcile"
	"github.com/ctrlkit/ctrlkit/reflector"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// QueueMetrics implements workqueue.MetricsProvider: the workqueue_*
// series labelled name=name and controller=name (as controller-runtime
// labels a controller's queue; ctrlkit's reconcile names a controller's
// queue after the controller). inFlight is read at every scrape for
// workqueue_unfinished_work_seconds and
// workqueue_longest_running_processor_seconds, and kept for the
// Provider's lifetime: the queue has no way to say it is gone.
func (p *Provider) QueueMetrics(name string, inFlight func() workqueue.InFlight) workqueue.QueueMetrics {
	if inFlight != nil {
		lv := []string{name, name}
		p.unfinished.add(lv, func() (float64, bool) { return inFlight().Unfinished.Seconds(), true })
		p.longest.add(lv, func() (float64, bool) { return inFlight().Longest.Seconds(), true })
	}
	return workqueue.QueueMetrics{
		Depth:         newShare(p.depth.WithLabelValues(name, name, "")),
		Adds:          p.adds.WithLabelValues(name, name),
		QueueDuration: p.queueDur.WithLabelValues(name, name),
		WorkDuration:  p.workDur.WithLabelValues(name, name),
		Retries:       p.retries.WithLabelValues(name, name),
	}
}

// ControllerMetrics implements reconcile.MetricsProvider: the
// controller_runtime_* series labelled controller=controller. Every
// result of controller_runtime_reconcile_total starts at 0, as in
// controller-runtime.
func (p *Provider) ControllerMetrics(controller string) reconcile.Metrics {
	total := func(result string) prom.Counter { return p.reconcileTotal.WithLabelValues(controller, result) }
	return reconcile.Metrics{
		TotalSuccess:            total(ResultSuccess),
		TotalError:              total(ResultError),
		TotalRequeueAfter:       total(ResultRequeueAfter),
		TotalTerminal:           total(ResultTerminal),
		TotalRequeue:            total(ResultRequeue),
		Errors:                  p.reconcileErrors.WithLabelValues(controller),
		TerminalErrors:          p.terminalErrors.WithLabelValues(controller),
		Panics:                  p.panics.WithLabelValues(controller),
		ReconcileTime:           p.reconcileTime.WithLabelValues(controller),
		ActiveWorkers:           newShare(p.activeWorkers.WithLabelValues(controller)),
		MaxConcurrentReconciles: newShare(p.maxConcurrent.WithLabelValues(controller)),
	}
}

// ReflectorMetrics implements reflector.MetricsProvider: counters
// labelled name=name, under client-go's old reflector_* names where
// client-go had one and ctrlkit_reflector_* otherwise (see the package
// doc).
func (p *Provider) ReflectorMetrics(name string) reflector.Metrics {
	var m reflector.Metrics
	for i, f := range reflectorFields {
		*f.field(&m) = p.reflector[i].WithLabelValues(name)
	}
	return m
}

// InformerMetrics implements informer.MetricsProvider: the
// ctrlkit_informer_*_total counters labelled informer=name.
func (p *Provider) InformerMetrics(name string) informer.Metrics {
	var m informer.Metrics
	for i, f := range informerFields {
		*f.field(&m) = p.informer[i].WithLabelValues(name)
	}
	return m
}

// HandlerMetrics implements informer.MetricsProvider:
// ctrlkit_informer_handler_panics_total labelled informer and handler.
func (p *Provider) HandlerMetrics(informerName, handler string) informer.HandlerMetrics {
	return informer.HandlerMetrics{Panics: p.handlerPanics.WithLabelValues(informerName, handler)}
}

// ExpectationsMetrics implements expectations.MetricsProvider:
// ctrlkit_expectations_expired_total labelled name=name.
func (p *Provider) ExpectationsMetrics(name string) expectations.Metrics {
	return expectations.Metrics{Expired: p.expired.WithLabelValues(name)}
}

// EventsMetrics implements events.MetricsProvider:
// ctrlkit_events_written_total and ctrlkit_events_dropped_total labelled
// component=component.
func (p *Provider) EventsMetrics(component string) events.Metrics {
	return events.Metrics{
		Written: p.written.WithLabelValues(component),
		Dropped: p.dropped.WithLabelValues(component),
	}
}

// InformerState is what ObserveInformer reads at scrape time.
// *informer.Informer[T] implements it.
type InformerState interface {
	// HasSynced reports whether the first list has been applied.
	HasSynced() bool
	// LastSyncResourceVersion is the resourceVersion last synced to.
	LastSyncResourceVersion() string
}

// HandlerState is what ObserveHandler reads at scrape time.
// *informer.Registration implements it.
type HandlerState interface {
	// Name is the registration's name (the handler label).
	Name() string
	// Pending is the number of notifications not yet delivered.
	Pending() int
}

// ObserveInformer exports, read at every scrape, the state of the
// informer named name (as given in its Options.Name):
// ctrlkit_informer_synced{informer=name} (1 or 0) and
// reflector_last_resource_version{name=name} (client-go's old name; only
// when the version parses as a number). An informer's reflector has the
// informer's name, so name is also that of its reflector_* series. The informer metrics interface has no such instruments,
// so this is called by hand, once per informer. Calling the returned
// function stops the export (and drops the reference to inf).
func (p *Provider) ObserveInformer(name string, inf InformerState) (stop func()) {
	lv := []string{name}
	s1 := p.synced.add(lv, func() (float64, bool) {
		if inf.HasSynced() {
			return 1, true
		}
		return 0, true
	})
	s2 := p.lastRV.add(lv, func() (float64, bool) {
		v, err := strconv.ParseFloat(inf.LastSyncResourceVersion(), 64)
		return v, err == nil
	})
	return func() { s1(); s2() }
}

// ObserveHandler exports, read at every scrape,
// ctrlkit_informer_handler_pending{informer=informerName,handler=reg.Name()}:
// the notifications queued for one handler registration, the lag of that
// handler behind its informer's cache. Call the returned function when
// the handler is removed.
func (p *Provider) ObserveHandler(informerName string, reg HandlerState) (stop func()) {
	return p.pending.add([]string{informerName, reg.Name()}, func() (float64, bool) {
		return float64(reg.Pending()), true
	})
}

// share is a gauge that several objects of one name set: each Set adds
// the change of this object's value to the shared child, so that the
// series is the sum over the objects.
type share struct {
	g    prom.Gauge
	last atomic.Uint64 // float64 bits of the last value set
}

func newShare(g prom.Gauge) *share { return &share{g: g} }

// Set records v as this object's value.
func (s *share) Set(v float64) {
	old := math.Float64frombits(s.last.Swap(math.Float64bits(v)))
	s.g.Add(v - old)
}
