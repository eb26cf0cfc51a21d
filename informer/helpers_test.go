package informer

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/fake"
	"github.com/ctrlkit/ctrlkit/indexer"
	"github.com/ctrlkit/ctrlkit/source"
)

// obj is the test object: a key, a payload, an index field and the
// resourceVersion the source stamps.
type obj struct {
	Key  string
	Val  int
	Node string
	RV   string
}

func (o *obj) GetResourceVersion() string   { return o.RV }
func (o *obj) SetResourceVersion(rv string) { o.RV = rv }

func keyOf(o *obj) string { return o.Key }

func byNode(o *obj) ([]string, error) {
	if o.Node == "" {
		return nil, nil
	}
	return []string{o.Node}, nil
}

func copyObj(o *obj) *obj { c := *o; return &c }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newSource(t testing.TB) *fake.Source[*obj] {
	t.Helper()
	src, err := fake.NewSource(keyOf, fake.Options[*obj]{Copy: copyObj, Logger: quiet})
	require.NoError(t, err)
	return src
}

func newInformer(t testing.TB, lw source.ListWatcher[*obj], opts Options[*obj]) *Informer[*obj] {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet
	}
	if opts.Indexers == nil {
		opts.Indexers = indexer.Indexers[*obj]{"node": byNode}
	}
	inf, err := New(lw, keyOf, opts)
	require.NoError(t, err)
	return inf
}

// start runs inf until the test's cleanup (or the returned stop), failing
// the test if Run returns anything but the cancellation.
func start(t testing.TB, inf *Informer[*obj]) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			require.ErrorIs(t, <-done, context.Canceled)
		})
	}
	t.Cleanup(stop)
	return stop
}

func create(t testing.TB, src *fake.Source[*obj], key string, val int) string {
	t.Helper()
	rv, err := src.Create(context.Background(), &obj{Key: key, Val: val})
	require.NoError(t, err)
	return rv
}

func update(t testing.TB, src *fake.Source[*obj], key string, val int) string {
	t.Helper()
	rv, err := src.Update(context.Background(), &obj{Key: key, Val: val}, "")
	require.NoError(t, err)
	return rv
}

func remove(t testing.TB, src *fake.Source[*obj], key string) string {
	t.Helper()
	rv, err := src.Delete(context.Background(), key, "")
	require.NoError(t, err)
	return rv
}

// call is one recorded handler call.
type call struct {
	Op   string // "add", "update", "delete"
	Key  string
	Old  *obj // update only
	Obj  *obj
	Flag bool // isInInitialList or finalStateUnknown
}

func (c call) String() string {
	switch c.Op {
	case "update":
		return fmt.Sprintf("update %s %d->%d", c.Key, c.Old.Val, c.Obj.Val)
	default:
		return fmt.Sprintf("%s %s %d %v", c.Op, c.Key, c.Obj.Val, c.Flag)
	}
}

// recorder is a Handler that records its calls and checks that it is
// never called concurrently with itself. gate, if set, is received from
// before every call returns; panicIf, if set, makes a call panic after it
// was recorded.
type recorder struct {
	t       testing.TB
	gate    chan struct{}
	panicIf func(call) bool

	mu      sync.Mutex
	calls   []call
	running bool
}

func (r *recorder) record(c call) {
	r.mu.Lock()
	if r.running {
		r.mu.Unlock()
		r.t.Errorf("handler called concurrently with itself: %v", c)
		return
	}
	r.running = true
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running = false
		r.mu.Unlock()
	}()
	if r.gate != nil {
		<-r.gate
	}
	if r.panicIf != nil && r.panicIf(c) {
		panic("recorder: " + c.String())
	}
}

func (r *recorder) OnAdd(o *obj, initial bool) {
	r.record(call{Op: "add", Key: o.Key, Obj: o, Flag: initial})
}

func (r *recorder) OnUpdate(old, new *obj) {
	r.record(call{Op: "update", Key: new.Key, Old: old, Obj: new})
}

func (r *recorder) OnDelete(o *obj, unknown bool) {
	r.record(call{Op: "delete", Key: o.Key, Obj: o, Flag: unknown})
}

// strings returns the recorded calls, formatted, and forgets them.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.String()
	}
	r.calls = nil
	return out
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// countingMetrics is a MetricsProvider whose counters count, per
// (counter, handler).
type countingMetrics struct {
	mu sync.Mutex
	n  map[string]int
}

type namedCounter struct {
	m    *countingMetrics
	name string
}

func (c namedCounter) Inc() {
	c.m.mu.Lock()
	defer c.m.mu.Unlock()
	if c.m.n == nil {
		c.m.n = make(map[string]int)
	}
	c.m.n[c.name]++
}

func (m *countingMetrics) InformerMetrics(string) Metrics {
	return Metrics{
		CacheErrors:    namedCounter{m, "cache_errors/"},
		StaleDeltas:    namedCounter{m, "stale_deltas/"},
		Mutations:      namedCounter{m, "mutations/"},
		Quarantined:    namedCounter{m, "quarantined/"},
		CallbackPanics: namedCounter{m, "callback_panics/"},
	}
}

func (m *countingMetrics) HandlerMetrics(_, handler string) HandlerMetrics {
	return HandlerMetrics{Panics: namedCounter{m, "handler_panics/" + handler}}
}

func (m *countingMetrics) get(c, handler string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n[c+"/"+handler]
}
