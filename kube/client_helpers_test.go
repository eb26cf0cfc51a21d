package kube_test

import (
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/kube"
)

// pipeTransport serves each request with h in process and streams the
// answer through an io.Pipe: no socket, so that a client, its watches,
// its rate limiter and the server all run in one synctest bubble, in
// virtual time.
type pipeTransport struct{ h http.Handler }

type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	once   sync.Once
	ready  chan struct{}
	code   int
	sent   http.Header
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	w.once.Do(func() { w.code, w.sent = code, w.header.Clone(); close(w.ready) })
}

func (w *pipeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.pw.Write(b)
}

func (w *pipeWriter) Flush() {}

func (t pipeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	pr, pw := io.Pipe()
	w := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	if req.Body == nil {
		req.Body = http.NoBody
	}
	go func() {
		defer pw.Close()
		defer w.WriteHeader(http.StatusOK)
		t.h.ServeHTTP(w, req)
	}()
	select {
	case <-w.ready:
	case <-req.Context().Done():
		pr.Close()
		return nil, req.Context().Err()
	}
	return &http.Response{StatusCode: w.code, Status: http.StatusText(w.code), Header: w.sent, Body: pr,
		Request: req, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}, nil
}

// pipeConfig is a rest.Config whose requests h serves in process.
func pipeConfig(h http.Handler) *rest.Config {
	return &rest.Config{Host: "http://127.0.0.1", Transport: pipeTransport{h}}
}

// servedAPI is ctrlkit's cluster behind its API server, behind a handler
// that counts the requests and lets a test answer some itself.
type servedAPI struct {
	c        *cluster.Cluster
	srv      *apiserver.Server
	requests atomic.Int64
	// intercept, if set, may answer a request (returning true).
	mu        sync.Mutex
	intercept func(w http.ResponseWriter, r *http.Request) bool
}

func (s *servedAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	s.mu.Lock()
	f := s.intercept
	s.mu.Unlock()
	if f != nil && f(w, r) {
		return
	}
	s.srv.ServeHTTP(w, r)
}

func (s *servedAPI) setIntercept(f func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	s.intercept = f
	s.mu.Unlock()
}

// newServedClient returns a kube.Client of a new cluster served in
// process (call it inside a synctest bubble to run in virtual time).
func newServedClient(t *testing.T, copts cluster.Options, opts kube.ClientOptions) (*kube.Client, *servedAPI) {
	t.Helper()
	c, err := cluster.New(t.Context(), copts)
	require.NoError(t, err)
	srv, err := apiserver.New(c, apiserver.Options{})
	require.NoError(t, err)
	s := &servedAPI{c: c, srv: srv}
	cl, err := kube.NewClient(pipeConfig(s), opts)
	require.NoError(t, err)
	return cl, s
}

func newTestPod(ns, name string) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "web"}},
		Spec: api.PodSpec{Containers: []api.Container{{Name: "c", Image: "nginx"}}}}
}
