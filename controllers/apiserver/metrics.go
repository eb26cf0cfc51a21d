package apiserver

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/metrics"
)

// RequestDurationBuckets are kube-apiserver's buckets of
// apiserver_request_duration_seconds (seconds).
var RequestDurationBuckets = []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60}

// requestLabels are the labels of apiserver_request_total, in order
// (kube-apiserver's, with dry_run).
var requestLabels = []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}

// Instrument returns s wrapped to record kube-apiserver's request metrics
// in reg:
//
//	apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}  counter
//	apiserver_request_duration_seconds{verb,dry_run,group,version,resource,subresource,scope,component}  histogram (RequestDurationBuckets)
//
// verb is kube's reported verb: GET, LIST, WATCH, POST, PUT, PATCH,
// APPLY, DELETE, DELETECOLLECTION (a DELETE of a collection); scope is
// "resource" (a named object), "namespace" (a namespaced collection) or
// "cluster"; component is "apiserver"; dry_run is "All" on a dry run.
// Label values are bounded, as kube-apiserver bounds them: a path that
// names no served resource (a typo, a scanner's probe) is recorded with
// empty group, version, resource and subresource, and a non-resource
// path (/version, /openapi/v3, discovery) with those empty too.
// Watches observe their whole duration.
func (s *Server) Instrument(reg *metrics.Registry) http.Handler {
	total := reg.Counter("apiserver_request_total",
		"Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		requestLabels...)
	duration := reg.Histogram("apiserver_request_duration_seconds",
		"Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
		RequestDurationBuckets, requestLabels[:len(requestLabels)-1]...)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		cw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
		labels := s.requestLabels(r)
		s.ServeHTTP(cw, r)
		duration.With(labels...).Observe(time.Since(start).Seconds())
		total.With(append(labels, strconv.Itoa(cw.code))...).Inc()
	})
}

// requestLabels returns the labels of r but its code.
func (s *Server) requestLabels(r *http.Request) []string {
	q := r.URL.Query()
	dry := ""
	if len(q["dryRun"]) > 0 && r.Method != http.MethodGet {
		dry = dryRunAll
	}
	verb := strings.ToUpper(r.Method)
	if verb == http.MethodPatch {
		if ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); strings.TrimSpace(ct) == "application/apply-patch+yaml" {
			verb = "APPLY"
		}
	}
	var gv string
	var rest []string
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case strings.HasPrefix(p, "/api/"):
		segs := strings.Split(strings.TrimPrefix(p, "/api/"), "/")
		gv, rest = segs[0], segs[1:]
	case strings.HasPrefix(p, "/apis/"):
		if segs := strings.Split(strings.TrimPrefix(p, "/apis/"), "/"); len(segs) > 2 {
			gv, rest = segs[0]+"/"+segs[1], segs[2:]
		}
	}
	none := []string{verb, dry, "", "", "", "", "", "apiserver"}
	if len(rest) == 0 {
		return none
	}
	req, err := s.parse(nil, r, gv, rest)
	if err != nil {
		return none
	}
	info := req.h.info()
	scope := "cluster"
	switch {
	case req.name != "":
		scope = "resource"
	case req.namespace != "":
		scope = "namespace"
	}
	switch {
	case req.watch:
		verb = "WATCH"
	case verb == http.MethodGet && req.name == "":
		verb = "LIST"
	case verb == http.MethodDelete && req.name == "":
		verb = "DELETECOLLECTION"
	}
	return []string{verb, dry, info.group, info.version, info.name, req.sub, scope, "apiserver"}
}

// codeWriter records the status code of a response.
type codeWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (c *codeWriter) WriteHeader(code int) {
	if !c.wrote {
		c.code, c.wrote = code, true
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *codeWriter) Write(b []byte) (int, error) {
	c.wrote = true
	return c.ResponseWriter.Write(b)
}

// Flush flushes a watch's events.
func (c *codeWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (c *codeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
