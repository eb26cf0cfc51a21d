package apiserver_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
)

func newServer(t *testing.T, ctx context.Context, opts apiserver.Options) (*cluster.Cluster, *apiserver.Server) {
	t.Helper()
	c, err := cluster.New(ctx, cluster.Options{})
	require.NoError(t, err)
	srv, err := apiserver.New(c, opts)
	require.NoError(t, err)
	return c, srv
}

// firstRead is a body that closes reading when it is first read.
type firstRead struct {
	r       io.Reader
	reading chan struct{}
	once    sync.Once
}

func (f *firstRead) Read(p []byte) (int, error) {
	f.once.Do(func() { close(f.reading) })
	return f.r.Read(p)
}

// blockingWriter is a ResponseWriter whose first Write blocks until
// release is closed: it holds its request in flight.
type blockingWriter struct {
	*httptest.ResponseRecorder
	writing chan struct{}
	release chan struct{}
	once    sync.Once
}

func newBlockingWriter() *blockingWriter {
	return &blockingWriter{ResponseRecorder: httptest.NewRecorder(), writing: make(chan struct{}), release: make(chan struct{})}
}

func (w *blockingWriter) Write(b []byte) (int, error) {
	w.once.Do(func() { close(w.writing) })
	<-w.release
	return w.ResponseRecorder.Write(b)
}

func serve(srv http.Handler, ctx context.Context, method, path, ct string, body io.Reader) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, method, path, body)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	return rec
}

func requireRecStatus(t *testing.T, rec *httptest.ResponseRecorder, code int, reason string) map[string]any {
	t.Helper()
	require.Equal(t, code, rec.Code, rec.Body.String())
	var st map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st), rec.Body.String())
	require.Equal(t, "Status", st["kind"])
	require.Equal(t, reason, st["reason"])
	require.EqualValues(t, code, st["code"])
	return st
}

// Beyond MaxRequestsInFlight read-only or MaxMutatingRequestsInFlight
// mutating requests, a request is 429 with Retry-After; watches are not
// counted.
func TestInFlightLimits(t *testing.T) {
	ctx := t.Context()
	c, srv := newServer(t, ctx, apiserver.Options{MaxRequestsInFlight: 1, MaxMutatingRequestsInFlight: 1})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, serve(srv, ctx, "POST", cms, jsonCT, strings.NewReader(cm)).Code)

	// One GET in flight, held while it writes its answer.
	held := newBlockingWriter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeHTTP(held, httptest.NewRequestWithContext(ctx, "GET", cms+"/cm", nil))
	}()
	<-held.writing
	rec := serve(srv, ctx, "GET", cms, "", nil)
	st := requireRecStatus(t, rec, 429, "TooManyRequests")
	require.Equal(t, "1", rec.Header().Get("Retry-After"))
	require.EqualValues(t, 1, st["details"].(map[string]any)["retryAfterSeconds"])
	requireRecStatus(t, serve(srv, ctx, "HEAD", "/version", "", nil), 429, "TooManyRequests")

	// Mutating requests have their own limit; a watch is long-running and
	// not counted.
	cm2 := strings.Replace(cm, `"name":"cm"`, `"name":"cm2"`, 1)
	require.Equal(t, 201, serve(srv, ctx, "POST", cms, jsonCT, strings.NewReader(cm2)).Code)
	wctx, stopWatch := context.WithCancel(ctx)
	sink := newWatchSink()
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		srv.ServeHTTP(sink, httptest.NewRequestWithContext(wctx, "GET", cms+"?watch=true", nil))
	}()
	<-sink.started
	stopWatch()
	<-watched

	// One POST in flight, held while its body has not arrived.
	// The server reads a body only once the request holds its slot.
	pr, pw := io.Pipe()
	body := &firstRead{r: pr, reading: make(chan struct{})}
	posted := make(chan *httptest.ResponseRecorder)
	go func() { posted <- serve(srv, ctx, "POST", cms, jsonCT, body) }()
	<-body.reading
	requireRecStatus(t, serve(srv, ctx, "PATCH", cms+"/cm2", "", nil), 429, "TooManyRequests")
	requireRecStatus(t, serve(srv, ctx, "PUT", cms+"/cm", jsonCT, strings.NewReader(cm)), 429, "TooManyRequests")
	pw.Write([]byte(strings.Replace(cm, `"name":"cm"`, `"name":"cm3"`, 1)))
	pw.Close()
	require.Equal(t, 201, (<-posted).Code)

	close(held.release)
	<-done
	require.Equal(t, 200, held.Code)
	require.Equal(t, 200, serve(srv, ctx, "GET", cms, "", nil).Code)
	require.Equal(t, 200, serve(srv, ctx, "DELETE", cms+"/cm2", "", nil).Code)
	_, _, err := c.ConfigMaps().Get(ctx, "default/cm3")
	require.NoError(t, err)
}

// Beyond MaxListsInFlight, a LIST waits for a slot until its context
// ends, then is 429.
func TestListsInFlight(t *testing.T) {
	ctx := t.Context()
	_, srv := newServer(t, ctx, apiserver.Options{MaxListsInFlight: 1})
	const cms = "/api/v1/namespaces/default/configmaps"
	require.Equal(t, 201, serve(srv, ctx, "POST", cms, jsonCT, strings.NewReader(cm)).Code)
	held := newBlockingWriter()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.ServeHTTP(held, httptest.NewRequestWithContext(ctx, "GET", cms, nil))
	}()
	<-held.writing
	gone, cancel := context.WithCancel(ctx)
	cancel()
	requireRecStatus(t, serve(srv, gone, "GET", "/api/v1/configmaps", "", nil), 429, "TooManyRequests")
	requireRecStatus(t, serve(srv, gone, "DELETE", cms, "", nil), 429, "TooManyRequests")
	require.Equal(t, 200, serve(srv, ctx, "GET", cms+"/cm", "", nil).Code, "a GET of one object is not a LIST")
	close(held.release)
	<-done
	require.Equal(t, 200, held.Code)
	var l map[string]any
	require.NoError(t, json.Unmarshal(held.Body.Bytes(), &l), held.Body.String())
	require.Equal(t, "ConfigMapList", l["kind"])
	require.Len(t, l["items"], 1)
	require.Equal(t, 200, serve(srv, ctx, "GET", cms, "", nil).Code)
}

// deadlineConn is the ResponseWriter and the body of a request whose
// client sends half a body and then nothing: reads block until the read
// deadline the server sets, as a connection's do.
type deadlineConn struct {
	*httptest.ResponseRecorder
	mu       sync.Mutex
	deadline time.Time
	set      chan struct{} // closed when a deadline is set
	sent     bool
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.deadline = t
	if !t.IsZero() {
		select {
		case <-c.set:
		default:
			close(c.set)
		}
	}
	return nil
}

func (c *deadlineConn) SetWriteDeadline(time.Time) error { return nil }

func (c *deadlineConn) Read(p []byte) (int, error) {
	if !c.sent {
		c.sent = true
		return copy(p, `{"apiVersion":"v1","kind":"ConfigMap",`), nil
	}
	<-c.set // without a deadline, the read would block forever
	c.mu.Lock()
	d := c.deadline
	c.mu.Unlock()
	time.Sleep(time.Until(d))
	return 0, os.ErrDeadlineExceeded
}

// A client that holds a half-sent body is cut off after the request
// timeout with a 504 Timeout Status.
func TestBodyReadDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, srv := newServer(t, ctx, apiserver.Options{})
		conn := &deadlineConn{ResponseRecorder: httptest.NewRecorder(), set: make(chan struct{})}
		req := httptest.NewRequestWithContext(ctx, "POST", "/api/v1/namespaces/default/configmaps", conn)
		req.Header.Set("Content-Type", jsonCT)
		start := time.Now()
		srv.ServeHTTP(conn, req)
		require.Equal(t, 60*time.Second, time.Since(start), "kube-apiserver's --request-timeout")
		requireRecStatus(t, conn.ResponseRecorder, 504, "Timeout")
	})
}

// A watch without timeoutSeconds ends after a random time between
// MaxWatchTimeout and twice it; timeoutSeconds is honoured, up to twice
// MaxWatchTimeout.
func TestWatchTimeouts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		_, srv := newServer(t, ctx, apiserver.Options{})
		const cms = "/api/v1/namespaces/default/configmaps?watch=true"
		const base = 30 * time.Minute // kube-apiserver's --min-request-timeout
		run := func(query string) <-chan time.Duration {
			out := make(chan time.Duration, 1)
			go func() {
				start := time.Now()
				srv.ServeHTTP(newWatchSink(), httptest.NewRequestWithContext(ctx, "GET", cms+query, nil))
				out <- time.Since(start)
			}()
			return out
		}
		var plain []<-chan time.Duration
		for range 8 {
			plain = append(plain, run(""))
		}
		short, long := run("&timeoutSeconds=5"), run("&timeoutSeconds=86400")
		require.Equal(t, 5*time.Second, <-short)
		seen := map[time.Duration]bool{}
		for _, ch := range plain {
			d := <-ch
			require.GreaterOrEqual(t, d, base)
			require.Less(t, d, 2*base)
			seen[d] = true
		}
		require.Greater(t, len(seen), 1, "the watches' timeouts are jittered")
		require.Equal(t, 2*base, <-long)
	})
}

// The http.Server has header and idle timeouts, and none that would cut
// a watch.
func TestNewHTTPServer(t *testing.T) {
	hs := apiserver.NewHTTPServer(http.NotFoundHandler())
	require.Equal(t, apiserver.ReadHeaderTimeout, hs.ReadHeaderTimeout)
	require.Equal(t, apiserver.IdleTimeout, hs.IdleTimeout)
	require.Zero(t, hs.ReadTimeout)
	require.Zero(t, hs.WriteTimeout)
}
