package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controllers/api"
	"github.com/ctrlkit/ctrlkit/controllers/apiserver"
	"github.com/ctrlkit/ctrlkit/controllers/cluster"
	"github.com/ctrlkit/ctrlkit/controllers/cronjob"
)

// fuzzObjects are created in each fuzzed cluster, so that requests find
// objects to read, patch, scale and delete.
var fuzzObjects = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default","labels":{"a":"b"}},"data":{"a":"1"}}`,
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
	`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"c","image":"i"}]}}`,
	`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj","namespace":"default"},"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}}}}`,
}

// validMethod reports whether m is an HTTP token, as net/http requires
// of a request it hands to a handler.
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for _, r := range m {
		if r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// FuzzServeHTTP sends generated requests (method, path, query,
// Content-Type, Accept, body) to a Server over a fresh cluster and checks
// that none panics or is answered 5xx (but 504 Timeout, which a slow
// request may get), and that every error is a Status with the response's
// code and a reason. The seed corpus is testdata/fuzz/FuzzServeHTTP.
func FuzzServeHTTP(f *testing.F) {
	logger := slog.New(slog.DiscardHandler)
	f.Fuzz(func(t *testing.T, method, path, query, contentType, accept string, body []byte) {
		if !validMethod(method) || !strings.HasPrefix(path, "/") {
			return
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		c, err := cluster.New(ctx, cluster.Options{Admission: []cluster.AdmissionFunc{cronjob.Admission}})
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range fuzzObjects {
			objs, err := api.Decode([]byte(doc), api.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.CreateObject(ctx, objs[0]); err != nil {
				t.Fatal(err)
			}
		}
		srv, err := apiserver.New(c, apiserver.Options{Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		u := &url.URL{Path: path, RawQuery: query}
		// A watch runs until its context ends: a short one.
		rctx, rcancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer rcancel()
		req := (&http.Request{Method: method, URL: u, RequestURI: u.RequestURI(), Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: http.Header{}, Host: "localhost", Body: io.NopCloser(bytes.NewReader(body)),
			ContentLength: int64(len(body))}).WithContext(rctx)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("%s %s: %d %s", method, u, rec.Code, rec.Body)
		}
		if rec.Code >= 400 && method != http.MethodHead {
			var st apiserver.Status
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || st.Code != rec.Code || st.Reason == "" {
				t.Fatalf("%s %s: %d without a Status: %s", method, u, rec.Code, rec.Body)
			}
		}
	})
}
