package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
	"github.com/ctrlkit/ctrlkit/source"
)

// Sink is where a Broadcaster writes correlated events: the cluster store
// writes Event objects. Calls come from Broadcaster.Run's goroutine, one
// at a time.
type Sink interface {
	// Create writes the first occurrence of an event. It returns an
	// error wrapping source.ErrAlreadyExists when ev.Name is taken —
	// another recorder writing to the same sink named an event about the
	// same object at the same instant — and the Broadcaster retries
	// under a new name.
	Create(ctx context.Context, ev Event) error
	// Update writes a repeated event: the one created under ev.Name
	// with its Count and Last changed.
	Update(ctx context.Context, ev Event) error
}

// Options configures a Broadcaster.
type Options struct {
	// Component names the reporting component on every event (for
	// example "replicaset-controller"). Required.
	Component string
	// Host names the host the component runs on, on every event (the
	// kubelet's is its node's name: client-go's EventSource.Host).
	// Default "": none, as for the control plane's components.
	Host string
	// QueueSize bounds the events waiting for Run's goroutine; an event
	// that finds the queue full is dropped. Default 1000; negative is an
	// error.
	QueueSize int
	// Burst is how many events about one object may be written at once.
	// Default 25, as client-go; negative is an error.
	Burst int
	// Refill is how often one more event about an object may be
	// written once its burst is spent. Default 5 minutes, as client-go;
	// negative is an error.
	Refill time.Duration
	// CacheSize bounds the events remembered for correlation, and the
	// objects whose token buckets are remembered: the least recently
	// used is forgotten first (a forgotten event is written anew, a
	// forgotten object's bucket is full again). An event remembered
	// with its object's bucket costs about 240 bytes. Default 4096, as
	// client-go; negative is an error.
	CacheSize int
	// Logger receives sink errors. Default slog.Default().
	Logger *slog.Logger
	// Metrics, if set, is asked once, by NewBroadcaster, for the
	// broadcaster's counters. Default: none.
	Metrics MetricsProvider
}

// MetricsProvider creates the instruments of one Broadcaster.
type MetricsProvider interface {
	// EventsMetrics is called once, with Options.Component.
	EventsMetrics(component string) Metrics
}

// Metrics are the counters of one Broadcaster. A nil field is not
// recorded.
type Metrics struct {
	// Written counts events created or updated in the sink.
	Written metrics.Counter
	// Dropped counts events dropped: queue full, over the rate limit, or
	// refused by the sink.
	Dropped metrics.Counter
}

// nameAttempts bounds the names a Broadcaster tries for one event whose
// name the sink says is taken.
const nameAttempts = 8

// Broadcaster is a Recorder that correlates events and writes them to a
// Sink from Run's goroutine. See the package documentation.
type Broadcaster struct {
	sink  Sink
	opts  Options
	m     Metrics
	queue chan Event
	names namer
	// limit is Options.Refill as tokens a second.
	limit float64
	// Run's goroutine owns the rest: the events written, by the digest
	// of their object, type, reason and message, and the token buckets
	// of the objects, by the digest of the object.
	digests *hasher
	texts   interner
	seen    *lru[digest, seenEvent]
	buckets *lru[digest, bucket]
}

// NewBroadcaster returns a Broadcaster writing to sink. It starts
// nothing: events queue up until Run is called.
func NewBroadcaster(sink Sink, opts Options) (*Broadcaster, error) {
	var errs []error
	if sink == nil {
		errs = append(errs, errors.New("events: Sink is nil"))
	}
	if opts.Component == "" {
		errs = append(errs, errors.New("events: Options.Component is empty"))
	}
	for name, v := range map[string]int64{"QueueSize": int64(opts.QueueSize), "Burst": int64(opts.Burst),
		"Refill": int64(opts.Refill), "CacheSize": int64(opts.CacheSize)} {
		if v < 0 {
			errs = append(errs, fmt.Errorf("events: Options.%s is negative", name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if opts.QueueSize == 0 {
		opts.QueueSize = 1000
	}
	if opts.Burst == 0 {
		opts.Burst = 25
	}
	if opts.Refill == 0 {
		opts.Refill = 5 * time.Minute
	}
	if opts.CacheSize == 0 {
		opts.CacheSize = 4096
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	b := &Broadcaster{
		sink: sink, opts: opts,
		queue:   make(chan Event, opts.QueueSize),
		limit:   1 / opts.Refill.Seconds(),
		digests: newHasher(),
		seen:    newLRU[digest, seenEvent](opts.CacheSize),
		buckets: newLRU[digest, bucket](opts.CacheSize),
	}
	if opts.Metrics != nil {
		b.m = opts.Metrics.EventsMetrics(opts.Component)
	}
	b.m.Written = metrics.Or(b.m.Written)
	b.m.Dropped = metrics.Or(b.m.Dropped)
	return b, nil
}

// Event implements Recorder. It never blocks.
func (b *Broadcaster) Event(regarding Ref, typ Type, reason, message string) {
	b.event(b.opts.Host, regarding, typ, reason, message)
}

// ForHost returns a Recorder that records through b with host as the
// events' Host instead of Options.Host: many instances of one component
// (the kubelets of simulated nodes) share one queue and goroutine, each
// event carrying its own host. Events from different hosts are
// correlated and rate-limited apart, as client-go keys them by source.
func (b *Broadcaster) ForHost(host string) Recorder { return hostRecorder{b, host} }

// hostRecorder is a Broadcaster's Recorder for one host.
type hostRecorder struct {
	b    *Broadcaster
	host string
}

func (h hostRecorder) Event(regarding Ref, typ Type, reason, message string) {
	h.b.event(h.host, regarding, typ, reason, message)
}

func (h hostRecorder) Eventf(regarding Ref, typ Type, reason, format string, args ...any) {
	h.b.event(h.host, regarding, typ, reason, fmt.Sprintf(format, args...))
}

// event queues an event from host; it never blocks.
func (b *Broadcaster) event(host string, regarding Ref, typ Type, reason, message string) {
	now := time.Now()
	ev := newEvent(regarding, typ, reason, message, b.opts.Component, now, b.names.suffix(now))
	ev.Host = host
	select {
	case b.queue <- ev:
	default:
		b.m.Dropped.Inc()
	}
}

// Eventf implements Recorder.
func (b *Broadcaster) Eventf(regarding Ref, typ Type, reason, format string, args ...any) {
	b.Event(regarding, typ, reason, fmt.Sprintf(format, args...))
}

// Run writes queued events to the sink until ctx ends, then returns
// ctx.Err(). Events still queued then are dropped. Run may be called
// once at a time.
func (b *Broadcaster) Run(ctx context.Context) error {
	if ctx == nil {
		return errors.New("events: context is nil")
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev := <-b.queue:
			b.write(ctx, ev)
		}
	}
}

// write correlates ev with what was written before and writes it.
func (b *Broadcaster) write(ctx context.Context, ev Event) {
	object, key := b.digests.event(&ev)
	lim, ok := b.buckets.get(object)
	if !ok {
		lim = b.buckets.put(object, bucket{tokens: float64(b.opts.Burst)})
	}
	if !lim.allow(ev.Last, b.limit, b.opts.Burst) {
		b.m.Dropped.Inc()
		return
	}
	// The sink keeps these: one copy of a text many events share.
	ev.Message = b.texts.intern(ev.Message)
	ev.Regarding.FieldPath = b.texts.intern(ev.Regarding.FieldPath)
	var err error
	if prev, ok := b.seen.get(key); ok {
		// The same event as before: only its name, count and first
		// time are its own.
		ev.Name, ev.Count, ev.First = prev.name, prev.count+1, prev.first
		err = b.sink.Update(ctx, ev)
	} else {
		err = b.sink.Create(ctx, ev)
	}
	// A name another recorder took: the next suffix of this one's, a
	// few times (each try is past every name this recorder made).
	for try := 1; ev.Count == 1 && errors.Is(err, source.ErrAlreadyExists) && try < nameAttempts; try++ {
		ev.Name = eventName(ev.Regarding.Name, b.names.suffix(ev.First))
		err = b.sink.Create(ctx, ev)
	}
	if err != nil {
		b.m.Dropped.Inc()
		b.opts.Logger.Warn("events: the sink refused an event", "name", ev.Name, "reason", ev.Reason, "err", err)
		return
	}
	b.seen.put(key, seenEvent{name: ev.Name, count: ev.Count, first: ev.First})
	b.m.Written.Inc()
}
