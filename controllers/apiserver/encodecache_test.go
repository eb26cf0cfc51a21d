package apiserver

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

// counted is a json.Marshaler that counts its encodings.
type counted struct {
	n    *atomic.Int64
	body string
}

func (c counted) MarshalJSON() ([]byte, error) {
	c.n.Add(1)
	return []byte(`"` + c.body + `"`), nil
}

func TestEncodeCacheOnce(t *testing.T) {
	c := newEncodeCache(1<<20, 100)
	var n atomic.Int64
	k := encodeKey{resource: "configmaps", key: "default/a", rv: "5", mode: asObject}
	var wg sync.WaitGroup
	out := make([][]byte, 50)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := c.get(k, counted{&n, "x"})
			require.NoError(t, err)
			out[i] = b
		}()
	}
	wg.Wait()
	require.EqualValues(t, 1, n.Load(), "concurrent watches encode an event once")
	for _, b := range out {
		require.Equal(t, `"x"`, string(b))
	}
	// Another version, another form, or no version: encoded anew.
	c.get(encodeKey{resource: "configmaps", key: "default/a", rv: "6"}, counted{&n, "y"})
	c.get(encodeKey{resource: "configmaps", key: "default/a", rv: "5", mode: asMetadata}, counted{&n, "z"})
	c.get(encodeKey{resource: "configmaps", key: "default/a"}, counted{&n, "w"})
	c.get(encodeKey{resource: "configmaps", key: "default/a"}, counted{&n, "w"})
	require.EqualValues(t, 5, n.Load())
}

func TestEncodeCacheBounds(t *testing.T) {
	var n atomic.Int64
	c := newEncodeCache(100, 3)
	key := func(rv string) encodeKey { return encodeKey{resource: "r", key: "k", rv: rv} }
	big := strings.Repeat("b", 38) // 40 bytes encoded
	for _, rv := range []string{"1", "2", "3"} {
		c.get(key(rv), counted{&n, big})
	}
	// 120 bytes > 100: the oldest is gone.
	require.EqualValues(t, 80, c.bytes)
	require.Len(t, c.entries, 2)
	c.get(key("3"), counted{&n, big})
	require.EqualValues(t, 3, n.Load(), "the newest is kept")
	c.get(key("1"), counted{&n, big})
	require.EqualValues(t, 4, n.Load(), "the oldest was evicted")
	for _, rv := range []string{"4", "5", "6", "7"} {
		c.get(key(rv), counted{&n, "s"})
	}
	require.LessOrEqual(t, len(c.entries), 3)
	require.LessOrEqual(t, c.bytes, int64(100))
	require.Len(t, c.order, len(c.entries))
}

// sink is a watch's ResponseWriter that keeps what it gets.
type sink struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	header  http.Header
	started chan struct{}
	once    sync.Once
}

func (s *sink) Header() http.Header { return s.header }
func (s *sink) WriteHeader(int)     { s.once.Do(func() { close(s.started) }) }
func (s *sink) Flush()              {}
func (s *sink) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(b)
}
func (s *sink) lines() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := strings.SplitAfter(s.buf.String(), "\n")
	return l[:len(l)-1] // the complete lines
}

// Every watch of an object sends the same bytes of one encoding.
func TestWatchesShareEncoding(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	srv, err := New(c, Options{})
	require.NoError(t, err)
	rv, err := c.ConfigMaps().Create(ctx, &api.ConfigMap{ObjectMeta: api.ObjectMeta{Name: "a", Namespace: "default"}, Data: map[string]string{"k": "<v>"}})
	require.NoError(t, err)
	var sinks []*sink
	var wg sync.WaitGroup
	for i := range 20 {
		s := &sink{header: http.Header{}, started: make(chan struct{})}
		sinks = append(sinks, s)
		path := "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=" + rv
		if i%2 == 1 {
			path = "/api/v1/watch/namespaces/default/configmaps/a?resourceVersion=" + rv
		}
		wg.Add(1)
		go func() { defer wg.Done(); srv.ServeHTTP(s, httptest.NewRequestWithContext(ctx, "GET", path, nil)) }()
		<-s.started
	}
	cur, _, err := c.ConfigMaps().Get(ctx, "default/a")
	require.NoError(t, err)
	cur.Data["k"] = "<w>"
	_, err = c.ConfigMaps().Update(ctx, cur, "")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		for _, s := range sinks {
			if len(s.lines()) < 1 {
				return false
			}
		}
		return true
	}, 30*time.Second, time.Millisecond)
	want := sinks[0].lines()[0]
	require.True(t, strings.HasPrefix(want, `{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"ConfigMap"`), want)
	require.Contains(t, want, `\u003cw\u003e`, "escaped as json.Marshal does")
	require.True(t, strings.HasSuffix(want, "}}\n"), want)
	for _, s := range sinks {
		require.Equal(t, []string{want}, s.lines())
	}
	require.Len(t, srv.encoded.entries, 1, "one encoding for every watch")
	cancel()
	wg.Wait()
}
