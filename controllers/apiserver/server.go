package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/admission"
	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver/satoken"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/rbac"
)

// Options configures a Server. The zero value serves every kind with the
// defaults below.
type Options struct {
	// Version is what /version reports as gitVersion. Default
	// "v1.32.0-ctrlkit".
	Version string
	// Logger logs failed requests at debug level and internal errors at
	// error level. Default: slog.Default().
	Logger *slog.Logger
	// MaxWatchTimeout is the base of the server's timeout of a watch, as
	// kube-apiserver's --min-request-timeout (1800 s): a watch without
	// timeoutSeconds ends after a random duration between MaxWatchTimeout
	// and twice it (kube-apiserver's jitter, so that the watches of many
	// clients do not all end and re-list at once), and timeoutSeconds is
	// honoured up to twice it. Default 30 minutes.
	MaxWatchTimeout time.Duration
	// RequestTimeout bounds every request but watches, as
	// kube-apiserver's --request-timeout: the request's context ends after
	// it (a request still waiting then is answered 504 Timeout), and the
	// request body must have arrived by then (the read deadline of the
	// connection). Default 60 seconds.
	RequestTimeout time.Duration
	// MaxRequestsInFlight bounds the read-only requests (GET, HEAD; not
	// watches, which are long-running) served at once, as
	// kube-apiserver's --max-requests-inflight; a request beyond it is
	// answered 429 TooManyRequests with Retry-After: 1. Default 400;
	// negative: no limit.
	MaxRequestsInFlight int
	// MaxMutatingRequestsInFlight bounds the POST, PUT, PATCH and DELETE
	// requests served at once, as kube-apiserver's
	// --max-mutating-requests-inflight, answered 429 beyond it. Default
	// 200; negative: no limit.
	MaxMutatingRequestsInFlight int
	// MaxListsInFlight bounds the LISTs (and deletecollections) that
	// read and encode a list at once, so that concurrent large LISTs do not
	// hold many copies of a kind in memory: a LIST waits for a slot until
	// its context ends, then is answered 429 TooManyRequests. Default 16;
	// negative: no limit.
	MaxListsInFlight int
	// AllowNonLoopback lets Listen bind an address that is not a
	// loopback address. The server has no authentication of its own
	// (package serving adds TLS and a token): anyone who can reach an
	// unwrapped server can read and write the whole cluster. Default
	// false: Listen refuses.
	AllowNonLoopback bool
	// ResourceUsage, when set, serves the resource metrics API
	// (metrics.k8s.io/v1beta1 PodMetrics and NodeMetrics, as
	// metrics-server; kubectl top) from the pods' usage it reports.
	// Default: not served.
	ResourceUsage ResourceUsage
	// PortForward, when set, serves pods/{name}/portforward (kubectl
	// port-forward; portforward.go) with the ports it simulates. Nil:
	// the upgrade is refused with a 400 Status.
	PortForward PortForwarder
	// AuthorizationMode is AuthorizationAlwaysAllow (the default: every
	// request of whoever reached the server is served) or
	// AuthorizationRBAC (a request RBAC does not allow is 403 Forbidden,
	// as kube-apiserver's --authorization-mode=RBAC; authz.go). The
	// review resources answer by RBAC in both modes.
	AuthorizationMode string
	// ServiceAccountTokens, when set, signs the tokens of the
	// serviceaccounts/token subresource (TokenRequest, `kubectl create
	// token`; token.go) and verifies them in AuthenticateToken and
	// TokenReview. Nil: the subresource is not served (404), as
	// kube-apiserver without --service-account-issuer.
	ServiceAccountTokens *satoken.Issuer
	// ServiceAccountMaxTokenExpiration caps a requested token's
	// lifetime (--service-account-max-token-expiration), with kube's
	// warning; 0: no cap.
	ServiceAccountMaxTokenExpiration time.Duration
	// FieldManager keeps metadata.managedFields on every create, update
	// and patch and serves server-side apply (PATCH
	// application/apply-patch+yaml); the nested module ssa implements it.
	// Nil: managedFields are stored as sent and apply is 415.
	FieldManager FieldManager
}

func (o *Options) validate() error {
	if o.Version == "" {
		o.Version = "v1.32.0-ctrlkit"
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	switch o.AuthorizationMode {
	case "":
		o.AuthorizationMode = AuthorizationAlwaysAllow
	case AuthorizationAlwaysAllow, AuthorizationRBAC:
	default:
		return fmt.Errorf("apiserver: authorization mode %q: want %s or %s", o.AuthorizationMode, AuthorizationAlwaysAllow, AuthorizationRBAC)
	}
	if o.MaxWatchTimeout < 0 || o.RequestTimeout < 0 {
		return errors.New("apiserver: negative MaxWatchTimeout or RequestTimeout")
	}
	if o.MaxWatchTimeout == 0 {
		o.MaxWatchTimeout = DefaultMaxWatchTimeout
	}
	if o.RequestTimeout == 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.MaxRequestsInFlight == 0 {
		o.MaxRequestsInFlight = DefaultMaxRequestsInFlight
	}
	if o.MaxMutatingRequestsInFlight == 0 {
		o.MaxMutatingRequestsInFlight = DefaultMaxMutatingRequestsInFlight
	}
	if o.MaxListsInFlight == 0 {
		o.MaxListsInFlight = DefaultMaxListsInFlight
	}
	return nil
}

// The defaults of Options, kube-apiserver's.
const (
	// DefaultMaxWatchTimeout is kube-apiserver's --min-request-timeout.
	DefaultMaxWatchTimeout = 30 * time.Minute
	// DefaultRequestTimeout is kube-apiserver's --request-timeout.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultMaxRequestsInFlight is kube-apiserver's
	// --max-requests-inflight.
	DefaultMaxRequestsInFlight = 400
	// DefaultMaxMutatingRequestsInFlight is kube-apiserver's
	// --max-mutating-requests-inflight.
	DefaultMaxMutatingRequestsInFlight = 200
	// DefaultMaxListsInFlight is this server's own bound on concurrent
	// LISTs.
	DefaultMaxListsInFlight = 16
)

// The timeouts of the http.Server that Serve runs.
const (
	// ReadHeaderTimeout bounds the reading of a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// IdleTimeout closes a keep-alive connection idle that long.
	IdleTimeout = 90 * time.Second
)

// Server is the Kubernetes REST API over one cluster.Cluster: an
// http.Handler. It is safe for concurrent use and starts no goroutine;
// each open watch runs in its request's goroutine.
type Server struct {
	opts Options
	c    *cluster.Cluster
	// readOnly, mutating and lists are the in-flight semaphores (nil: no
	// limit).
	readOnly, mutating, lists chan struct{}
	// encoded shares the encoding of watched objects among watches.
	encoded *encodeCache
	// builtins are the handlers of the built-in kinds, in the order of
	// api.Kinds, and builtinByPath the same keyed "groupVersion/resource"
	// ("apps/v1/deployments"); both are read-only after New.
	builtins      []handler
	builtinByPath map[string]handler
	// dynamic holds the handlers of the kinds added with api.Register,
	// made at their first use (lookup, served); dynMu guards it.
	dynMu   sync.Mutex
	dynamic map[api.GroupVersionKind]handler
	// openapi holds the OpenAPI documents of the kinds served (openapi.go).
	openapi openAPICache

	// authorizer is RBAC over the cluster's roles: the reviews', and
	// every request's with AuthorizationRBAC.
	authorizer *rbac.Authorizer
}

var _ http.Handler = (*Server)(nil)

// New returns a Server for every kind of c: the built-in kinds and the
// kinds added with api.Register, including those registered after New
// (served from their first request, and listed by discovery from then
// on).
func New(c *cluster.Cluster, opts Options) (*Server, error) {
	if c == nil {
		return nil, errors.New("apiserver: New: nil cluster")
	}
	if err := opts.validate(); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, c: c, builtinByPath: map[string]handler{}, dynamic: map[api.GroupVersionKind]handler{},
		readOnly: semaphore(opts.MaxRequestsInFlight), mutating: semaphore(opts.MaxMutatingRequestsInFlight),
		lists: semaphore(opts.MaxListsInFlight), encoded: newEncodeCache(encodeCacheBytes, encodeCacheEntries),
		authorizer: rbac.New(c)}
	if err := registerAll(s, c); err != nil {
		return nil, err
	}
	return s, nil
}

func semaphore(n int) chan struct{} {
	if n < 0 {
		return nil
	}
	return make(chan struct{}, n)
}

// tooManyRequests is kube-apiserver's answer beyond its in-flight limits.
func tooManyRequests() *apiError {
	e := newError(http.StatusTooManyRequests, "TooManyRequests", "Too many requests, please try again later.")
	e.status.Details = &StatusDetails{RetryAfterSeconds: 1}
	return e
}

// ServeHTTP serves one request: an unknown method is 405; a watch runs
// until it ends; any other request is counted against the in-flight
// limits (429 beyond them) and bounded by Options.RequestTimeout.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mutating := false
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		mutating = true
	default:
		writeError(w, newError(http.StatusMethodNotAllowed, "MethodNotAllowed",
			fmt.Sprintf("the server does not allow this method on the requested resource (%s)", r.Method)), nil, "")
		return
	}
	if (!mutating && isWatch(r)) || isLongRunning(r) { // isLongRunning: exec.go
		// A connection kept alive keeps the write deadline of its
		// previous request: a watch has none.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
		ww := &warningWriter{ResponseWriter: w}
		s.route(ww, r.WithContext(admission.WithWarnings(r.Context(), ww.record)))
		return
	}
	sem := s.readOnly
	if mutating {
		sem = s.mutating
	}
	if sem != nil {
		select {
		case sem <- struct{}{}:
			defer func() { <-sem }()
		default:
			writeError(w, tooManyRequests(), nil, "")
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	// The body must arrive within the request timeout, and the answer be
	// taken soon after it: a client that holds a half-sent body or stops
	// reading is cut off. A writer that cannot set deadlines (a
	// ResponseRecorder) is served without.
	rc := http.NewResponseController(w)
	deadline := time.Now().Add(s.opts.RequestTimeout)
	_ = rc.SetReadDeadline(deadline)
	_ = rc.SetWriteDeadline(deadline.Add(s.opts.RequestTimeout))
	mode, protoMeta, _ := negotiateAs(r)
	if prefer, jsonOK := acceptProtobuf(r); (prefer && mode == asObject) || protoMeta {
		pw := &protoWriter{ResponseWriter: w, jsonOK: jsonOK}
		defer pw.finish()
		w = pw
	}
	ww := &warningWriter{ResponseWriter: w}
	s.route(ww, r.WithContext(admission.WithWarnings(ctx, ww.record)))
}

// isWatch reports whether r is a watch: ?watch=true (or 1), or a path
// under a group version's watch/ prefix.
func isWatch(r *http.Request) bool {
	if q := r.URL.Query().Get("watch"); q == "true" || q == "1" {
		return true
	}
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/api/"):
		segs := strings.SplitN(strings.TrimPrefix(p, "/api/"), "/", 3)
		return len(segs) > 2 && segs[1] == "watch"
	case strings.HasPrefix(p, "/apis/"):
		segs := strings.SplitN(strings.TrimPrefix(p, "/apis/"), "/", 4)
		return len(segs) > 3 && segs[2] == "watch"
	}
	return false
}

// route serves one request by its path.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	r, ok := s.authorize(w, r) // authz.go
	if !ok {
		return
	}
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case p == "/version":
		s.serveVersion(w, r)
		return
	case p == "/healthz" || p == "/livez" || p == "/readyz" ||
		strings.HasPrefix(p, "/healthz/") || strings.HasPrefix(p, "/livez/") || strings.HasPrefix(p, "/readyz/"):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Write([]byte("ok"))
		return
	case p == "/api":
		s.serveAPIVersions(w, r)
		return
	case p == "/apis":
		s.serveGroups(w, r)
		return
	case strings.HasPrefix(p, "/openapi/"):
		if !s.serveOpenAPI(w, r, p) {
			writeError(w, notFound(), nil, "")
		}
		return
	}
	if s.serveResourceMetrics(w, r, p) { // metricsapi.go
		return
	}
	if _, _, refused := negotiateAs(r); refused { // a protobuf Table only
		writeError(w, notAcceptable(), nil, "")
		return
	}
	var gv string
	var rest []string
	switch {
	case strings.HasPrefix(p, "/api/"):
		segs := strings.Split(strings.TrimPrefix(p, "/api/"), "/")
		gv, rest = segs[0], segs[1:]
	case strings.HasPrefix(p, "/apis/"):
		segs := strings.Split(strings.TrimPrefix(p, "/apis/"), "/")
		if len(segs) == 1 {
			s.serveGroup(w, r, segs[0])
			return
		}
		gv, rest = segs[0]+"/"+segs[1], segs[2:]
	default:
		writeError(w, newError(http.StatusNotFound, "NotFound", "the server could not find the requested resource"), nil, "")
		return
	}
	if len(rest) == 0 {
		s.serveResources(w, r, gv)
		return
	}
	if s.serveReview(w, r, gv, rest) { // reviews.go
		return
	}
	req, err := s.parse(w, r, gv, rest)
	if err != nil {
		writeError(w, err, nil, "")
		return
	}
	req.h.serve(req)
}

// request is one parsed resource request.
type request struct {
	w         http.ResponseWriter
	r         *http.Request
	h         handler
	namespace string
	name      string
	sub       string
	watch     bool
	// body is the request body once read (a retried scale).
	body []byte
}

func notFound() *apiError {
	return newError(http.StatusNotFound, "NotFound", "the server could not find the requested resource")
}

// parse reads [watch/][namespaces/NS/]RESOURCE[/NAME[/SUB]].
func (s *Server) parse(w http.ResponseWriter, r *http.Request, gv string, segs []string) (*request, error) {
	req := &request{w: w, r: r}
	if segs[0] == "watch" {
		req.watch, segs = true, segs[1:]
	}
	if len(segs) >= 3 && segs[0] == "namespaces" && segs[2] != "status" && segs[2] != "finalize" {
		req.namespace, segs = segs[1], segs[2:]
	}
	if len(segs) == 0 || len(segs) > 3 {
		return nil, notFound()
	}
	h, ok := s.lookup(gv, segs[0])
	if !ok {
		return nil, notFound()
	}
	req.h = h
	if len(segs) > 1 {
		req.name = segs[1]
	}
	if len(segs) > 2 {
		req.sub = segs[2]
	}
	info := h.info()
	if req.namespace != "" && !info.namespaced {
		return nil, notFound()
	}
	if req.sub != "" && !(req.sub == "status" && info.hasStatus) && !(req.sub == "scale" && info.hasScale) &&
		!((req.sub == "binding" || req.sub == "eviction" || req.sub == "ephemeralcontainers" || isStreamSub(req.sub)) && info.name == "pods") &&
		!(req.sub == "token" && info.name == "serviceaccounts" && s.opts.ServiceAccountTokens != nil) {
		return nil, notFound()
	}
	if q := r.URL.Query().Get("watch"); q == "true" || q == "1" {
		req.watch = true
	}
	return req, nil
}

// Listen listens on addr ("127.0.0.1:0" picks a free port) and returns the
// listener, whose Addr is the bound address, for http.Serve(l, s) or
// Serve. An address that is not a loopback address (or a host name
// other than localhost) is refused unless Options.AllowNonLoopback.
func (s *Server) Listen(addr string) (net.Listener, error) {
	if err := CheckAddress(addr, s.opts.AllowNonLoopback); err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("apiserver: listen: %w", err)
	}
	return l, nil
}

// ErrNonLoopback is returned by Listen and CheckAddress for an address
// that is not a loopback address, when it is not allowed.
var ErrNonLoopback = errors.New("apiserver: refusing to listen on a non-loopback address without authentication (allow it explicitly)")

// CheckAddress checks that addr (host:port) is a loopback address
// ("127.0.0.1", "::1", "localhost"), unless allowNonLoopback; an empty
// host means every interface and is refused as well.
func CheckAddress(addr string, allowNonLoopback bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("apiserver: listen address %q: %w", addr, err)
	}
	if allowNonLoopback {
		return nil
	}
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: %q", ErrNonLoopback, addr)
	}
	return nil
}

// NewHTTPServer returns the http.Server that Serve runs, for a caller
// that serves h (a Server, or a handler wrapping one) on its own
// listener: ReadHeaderTimeout and IdleTimeout set, and no ReadTimeout or
// WriteTimeout, which would cut watches (a Server sets each request's
// read and write deadlines itself).
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleTimeout}
}

// Serve listens on addr as Listen does and serves s until ctx ends; it
// calls ready, when not nil, with the bound address once it accepts
// connections, and returns after the server has shut down (open watches
// are cut). It returns nil when ctx ended, else the error that stopped
// it.
func (s *Server) Serve(ctx context.Context, addr string, ready func(net.Addr)) error {
	l, err := s.Listen(addr)
	if err != nil {
		return err
	}
	hs := NewHTTPServer(s)
	hs.BaseContext = func(net.Listener) context.Context { return ctx }
	if ready != nil {
		ready(l.Addr())
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return fmt.Errorf("apiserver: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	<-errc
	return nil
}
