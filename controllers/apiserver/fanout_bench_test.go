package apiserver_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// watchSink is the ResponseWriter of one benchmark watcher: it counts the
// bytes and the events (one line each) the server writes to it.
type watchSink struct {
	header  http.Header
	started chan struct{}
	once    sync.Once
	bytes   atomic.Int64
	events  atomic.Int64
	more    chan struct{} // signalled after each event
}

func newWatchSink() *watchSink {
	return &watchSink{header: http.Header{}, started: make(chan struct{}), more: make(chan struct{}, 1)}
}

func (s *watchSink) Header() http.Header { return s.header }
func (s *watchSink) WriteHeader(int)     { s.once.Do(func() { close(s.started) }) }
func (s *watchSink) Write(b []byte) (int, error) {
	s.once.Do(func() { close(s.started) })
	s.bytes.Add(int64(len(b)))
	if n := bytes.Count(b, []byte{'\n'}); n > 0 {
		s.events.Add(int64(n))
		select {
		case s.more <- struct{}{}:
		default:
		}
	}
	return len(b), nil
}
func (s *watchSink) Flush() {}

// waitEvents waits until the sink has seen n events.
func (s *watchSink) waitEvents(ctx context.Context, n int64) error {
	for s.events.Load() < n {
		select {
		case <-s.more:
		case <-ctx.Done():
			return fmt.Errorf("%d of %d events: %w", s.events.Load(), n, ctx.Err())
		}
	}
	return nil
}

// BenchmarkWatchFanout measures the delivery of writes of one 64 KiB
// ConfigMap to many watchers of it: one op is 100 writes, each delivered
// to every watcher (bytes/s is what the watchers receive). The watchers are
// in-process ResponseWriters, so the figure is the server's cost of the
// fan-out (encoding and writing), without the network.
func BenchmarkWatchFanout(b *testing.B) {
	for _, watchers := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("watchers=%d", watchers), func(b *testing.B) { benchFanout(b, watchers, 64<<10, 100) })
	}
}

func benchFanout(b *testing.B, watchers, size, writes int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := apiserver.New(c, apiserver.Options{})
	if err != nil {
		b.Fatal(err)
	}
	value := strings.Repeat("x", size)
	obj := &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "big", Namespace: "default"}, Data: map[string]string{"v": value}}
	rv, err := c.ConfigMaps().Create(ctx, obj)
	if err != nil {
		b.Fatal(err)
	}
	sinks := make([]*watchSink, watchers)
	var wg sync.WaitGroup
	for i := range sinks {
		s := newWatchSink()
		sinks[i] = s
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet,
			"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+rv, nil)
		wg.Add(1)
		go func() { defer wg.Done(); srv.ServeHTTP(s, req) }()
		<-s.started
	}
	defer wg.Wait()
	defer cancel()
	var total int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		before := int64(0)
		for _, s := range sinks {
			before += s.bytes.Load()
		}
		for w := range writes {
			cur, _, err := c.ConfigMaps().Get(ctx, "default/big")
			if err != nil {
				b.Fatal(err)
			}
			cur.Data["v"] = fmt.Sprintf("%08d", i*writes+w) + value[8:]
			if _, err := c.ConfigMaps().Update(ctx, cur, ""); err != nil {
				b.Fatal(err)
			}
		}
		want := int64((i + 1) * writes)
		for _, s := range sinks {
			if err := s.waitEvents(ctx, want); err != nil {
				b.Fatal(err)
			}
		}
		for _, s := range sinks {
			total += s.bytes.Load()
		}
		total -= before
	}
	b.StopTimer()
	b.SetBytes(total / int64(b.N))
}
